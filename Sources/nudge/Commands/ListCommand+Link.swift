import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes

extension ListCommand {
    struct Link: DaemonCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a checklist in a folder of task files, as todoman, khal and vdirsyncer keep them.",
            discussion: """
                The folder is a vdir collection: one .ics file per task, like those todoman writes and vdirsyncer \
                syncs with Nextcloud, Radicale or any CalDAV server. It is the list's source of truth: each file \
                holding a task (VTODO) is one item, reminding at its due time (unless --remind-due no); files of \
                events are left alone, and a file nudge cannot take is skipped, counted in 'nudge lists' (each with \
                why in 'nudge lists --json'); so is a repeat nudge cannot follow exactly ("limited": the task is \
                taken as its one occurrence). \
                The folder's displayname, if it has one, names the list. nudged follows the folder as it changes, \
                and reads it again when it starts. 'nudge done', 'undone', 'edit' (text, due date, priority, \
                warnings, reminding), 'add --list' and 'rm' write to the task's file, every other line of it kept, \
                and never over a file another program changed since nudged read it (nudge says so; try again); a \
                snooze stays in nudge. A list that does not exist is made; one with items of its own, or the default \
                list, is refused.

                  nudge list link Work ~/.local/share/calendars/work
                  nudge list unlink Work      # the items leave nudge; the files stay
                """
        )

        @Argument(help: "The list's name, ignoring case; a new list if none has it.")
        var name: String

        @Argument(help: "The collection folder (relative to the current directory, or from /).", completion: .directory)
        var folder: String

        @Option(
            help: ArgumentHelp(
                "Whether a task with a due date and no alarm reminds at its due time.",
                valueName: "yes|no"
            )
        )
        var remindDue: YesNo = .yes

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let path = URL(
                fileURLWithPath: folder,
                relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            )
            .standardizedFileURL.path
            let request = Components.Schemas.ListLinkRequest(folder: path, remindDue: remindDue == .yes)
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let lists = try await client.call { try await $0.listLists().ok.body.json }
                let existing = lists.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
                let list: Components.Schemas.List
                if let existing {
                    list = existing
                } else {
                    list = try await client.call {
                        try await $0.createList(body: .json(.init(name: name))).created.body.json
                    }
                }
                let linked: Components.Schemas.List
                do {
                    linked = try await client.call {
                        try await $0.linkList(path: .init(id: list.listID), body: .json(request)).ok.body.json
                    }
                } catch {
                    // A list made for a link that was refused is not left behind.
                    if existing == nil {
                        _ = try? await client.call { try await $0.deleteList(path: .init(id: list.listID)).noContent }
                    }
                    throw error
                }
                if global.json { return Output.json(linked) }
                let tasks = "\(linked.itemCount) task\(linked.itemCount == 1 ? "" : "s")"
                Output.line("linked list \"\(linked.name)\" to \(path): \(tasks)")
                for skipped in linked.link?.skipped ?? [] {
                    Output.line("  skipped \(skipped.file): \(skipped.reason)")
                }
                for limited in linked.link?.limited ?? [] {
                    Output.line("  limited \(limited.file): \(limited.reason)")
                }
            }
        }
    }

    struct Unlink: DaemonCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a checklist's link to its folder: its items leave nudge, the folder's files stay.",
            discussion: "The list stays, empty, and is nudge's own again."
        )

        @Argument(help: "The list's name, ignoring case.")
        var name: String

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let list = try await client.list(named: name)
                let unlinked = try await client.call {
                    try await $0.unlinkList(path: .init(id: list.listID)).ok.body.json
                }
                if global.json { return Output.json(unlinked) }
                guard let link = list.link else {
                    return Output.line("list \"\(list.name)\" is not linked to a folder")
                }
                let items = list.itemCount == 1 ? "its 1 item" : "its \(list.itemCount) items"
                Output.line("unlinked list \"\(list.name)\" from \(link.folder); \(items) left nudge, the files stay")
            }
        }
    }

    enum YesNo: String, ExpressibleByArgument, CaseIterable {
        case yes, no
    }
}
