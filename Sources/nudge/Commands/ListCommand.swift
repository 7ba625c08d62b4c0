import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge list add|rename|rm|icon|default|digest|link|unlink`: changes checklists, named as people type them.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Add, rename or remove a checklist, change its icon or digest time, choose the default, or link one.",
        discussion: """
            Lists are named ignoring case and kept sorted by name. 'nudge lists' shows them, with their IDs and \
            which is the default: where 'nudge add' puts an item when no --list is given. A new store starts with \
            one list, Inbox, the default until you choose another.

            \(SharedArguments.iconDiscussion)
            """,
        subcommands: [Add.self, Rename.self, Remove.self, Icon.self, Default.self, Digest.self, Link.self, Unlink.self]
    )

    struct Add: DaemonCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a checklist.",
            discussion: """
                  nudge list add Groceries --icon groceries

                \(SharedArguments.iconDiscussion)
                """
        )

        @Argument(help: "The new list's name; unique, ignoring case.")
        var name: String

        @Option(
            help: ArgumentHelp("Its icon (default: No Icon).", valueName: "icon"),
            completion: .list(SharedArguments.iconNames),
            transform: IconName.init(validating:)
        )
        var icon: IconName?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = Components.Schemas.NewList(name: name, iconName: icon.map(Components.Schemas.IconName.init))
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let list = try await client.call { try await $0.createList(body: .json(request)).created.body.json }
                if global.json { return Output.json(list) }
                Output.line("added list \"\(list.name)\" (\(list.iconName.rawValue))")
            }
        }
    }

    struct Rename: DaemonCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a checklist.")

        @Argument(help: "The list's name now, ignoring case.")
        var name: String

        @Argument(help: "Its new name; unique, ignoring case.")
        var newName: String

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let list = try await client.list(named: name)
                let renamed = try await client.update(list, Components.Schemas.ListPatch(name: newName))
                if global.json { return Output.json(renamed) }
                Output.line("renamed list \"\(list.name)\" to \"\(newName)\"")
            }
        }
    }

    struct Remove: DaemonCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Delete a checklist, with its items and their pending reminders.",
            discussion: "A list that still has items is deleted only with --force. The last list cannot be deleted."
        )

        @Argument(help: "The list's name, ignoring case.")
        var name: String

        @Flag(help: "Delete the list even if it has items; they are deleted with it.")
        var force = false

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let list = try await client.list(named: name)
                if list.itemCount > 0 && !force {
                    let items =
                        list.itemCount == 1
                        ? "1 item; add --force to delete it" : "\(list.itemCount) items; add --force to delete them"
                    throw CLIError.refused("list \"\(list.name)\" was not removed: it has \(items) with it", json: nil)
                }
                _ = try await client.call { try await $0.deleteList(path: .init(id: list.listID)).noContent }
                if global.json { return Output.json(Removed(listID: list.listID)) }
                Output.line(
                    "removed list \"\(list.name)\"" + (list.itemCount > 0 ? " and its \(list.itemCount) items" : "")
                )
            }
        }
    }

    struct Icon: DaemonCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a checklist's icon.",
            discussion: """
                  nudge list icon Groceries groceries

                \(SharedArguments.iconDiscussion)
                """
        )

        @Argument(help: "The list's name, ignoring case.")
        var name: String

        @Argument(
            help: ArgumentHelp("The icon.", valueName: "icon"),
            completion: .list(SharedArguments.iconNames),
            transform: IconName.init(validating:)
        )
        var icon: IconName

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let list = try await client.list(named: name)
                let changed = try await client.update(list, Components.Schemas.ListPatch(iconName: .init(icon)))
                if global.json { return Output.json(changed) }
                Output.line("list \"\(list.name)\" now has the icon \(icon.rawValue)")
            }
        }
    }
}

extension ListCommand {
    struct Default: DaemonCommand {
        static let configuration = CommandConfiguration(
            abstract: "Choose the list 'nudge add' uses when no --list is given, or show it.",
            discussion: """
                The choice is kept by nudged in its store. Until one is made, the default is the oldest list \
                (Inbox in a new store); if the chosen list is removed, it falls back to the oldest again.

                  nudge list default Groceries
                  nudge list default            # which list is the default
                """
        )

        @Argument(help: "The list's name, ignoring case; leave it out to show the default.")
        var name: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                guard let name else {
                    let lists = try await client.call { try await $0.listLists().ok.body.json }
                    guard let chosen = lists.first(where: \.isDefault) else {
                        throw CLIError.unreadableAnswer(from: global.socketPath, "no list is the default")
                    }
                    if global.json { return Output.json(chosen) }
                    return Output.line("the default list is \"\(chosen.name)\"")
                }
                let list = try await client.list(named: name)
                let changed = try await client.update(list, Components.Schemas.ListPatch(isDefault: true))
                if global.json { return Output.json(changed) }
                Output.line("\"\(changed.name)\" is now the default list")
            }
        }
    }

    struct Digest: DaemonCommand {
        static let configuration = CommandConfiguration(
            abstract: "Choose when the day's digest brings a checklist's items due on a day, or show it.",
            discussion: """
                Items due on a day without a time (--due fri) do not remind one by one: the day's digest brings \
                them, with the overdue ones, at nudged's --digest-time (09:00 unless set), in nudged's time zone. A \
                list may have a time of its own; 'default' gives it nudged's again. A time already passed today \
                brings what today's digests have not brought, at once; nothing comes twice a day.

                  nudge list digest Work 07:30
                  nudge list digest Work default
                  nudge list digest Work          # when it comes
                """
        )

        @Argument(help: "The list's name, ignoring case.")
        var name: String

        @Argument(
            help: ArgumentHelp("HH:MM on the 24-hour clock, or default; leave it out to show it.", valueName: "time")
        )
        var time: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let time, time != "default", TimeOfDay.seconds(time) == nil {
                throw ValidationError(
                    "\"\(time)\" is not a time of day; use HH:MM on the 24-hour clock, like 07:30, or default"
                )
            }
        }

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                var list = try await client.list(named: name)
                if let time { list = try await client.update(list, Components.Schemas.ListPatch(digestTime: time)) }
                if global.json { return Output.json(list) }
                Output.line(
                    "the digest brings the items of \"\(list.name)\" due on a day at "
                        + (list.digestTime.map { "\($0), its own time" } ?? "nudged's --digest-time")
                )
            }
        }
    }

    /// What `list rm --json` prints: which list went.
    struct Removed: Encodable {
        let listID: Int
        var removed = true
    }
}

extension DaemonClient {
    /// The list called `name`, ignoring case, found through GET /v1/lists.
    func list(named name: String) async throws(CLIError) -> Components.Schemas.List {
        let lists = try await call { try await $0.listLists().ok.body.json }
        guard let list = lists.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw .unknownList(name, known: lists.map(\.name))
        }
        return list
    }

    /// PATCH /v1/lists/ID.
    func update(
        _ list: Components.Schemas.List,
        _ patch: Components.Schemas.ListPatch
    ) async throws(CLIError) -> Components.Schemas.List {
        try await call { try await $0.updateList(path: .init(id: list.listID), body: .json(patch)).ok.body.json }
    }
}

extension Components.Schemas.IconName {
    /// The contract's name for an icon: the same set as the model's, so every one has its name.
    init(_ icon: IconName) {
        self = Self(rawValue: icon.rawValue) ?? .noIcon
    }
}
