import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge list add|rename|rm|icon`: changes checklists, named as people type them.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Add, rename, remove or change the icon of a checklist.",
        discussion: """
            Lists are named ignoring case and kept sorted by name. 'nudge lists' shows them.

            \(SharedArguments.iconDiscussion)
            """,
        subcommands: [Add.self, Rename.self, Remove.self, Icon.self]
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
            transform: SharedArguments.parseIcon
        )
        var icon: IconName?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = Components.Schemas.NewList(name: name, iconName: icon?.rawValue)
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
                    throw CLIError.usage("list \"\(list.name)\" has \(items) with it")
                }
                _ = try await client.call { try await $0.deleteList(path: .init(id: list.listID)).noContent }
                if global.json { return }
                Output.line("removed list \"\(list.name)\"")
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
            transform: SharedArguments.parseIcon
        )
        var icon: IconName

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let list = try await client.list(named: name)
                let changed = try await client.update(list, Components.Schemas.ListPatch(iconName: icon.rawValue))
                if global.json { return Output.json(changed) }
                Output.line("list \"\(list.name)\" now has the icon \(icon.rawValue)")
            }
        }
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
