import ArgumentParser
import Foundation
import NudgeAPI

/// `nudge ls [--list NAME] [--all]`: GET /v1/items.
struct LsCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the items still to do, or all of them with --all.",
        discussion: """
            Items are grouped by list. Each line shows the ID, [ ] or [x], the text, the due date in local time, \
            and \(Render.pendingMark) (an alarm clock) when a reminder is pending (or "overdue" when an unchecked item is past due \
            without one).

              nudge ls --list groceries --all
            """
    )

    @Option(help: ArgumentHelp("Only this list, by name, ignoring case.", valueName: "name"))
    var list: String?

    @Flag(help: "Include checked-off items.")
    var all = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let query = Operations.ListItems.Input.Query(list: list, all: all ? true : nil)
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let items = try await client.call { try await $0.listItems(query: query).ok.body.json }
            if global.json { return Output.json(items) }
            if items.isEmpty {
                Output.line(all ? "no items" : "nothing to do (nudge ls --all shows checked-off items too)")
            } else {
                Output.lines(Render.itemTable(items, time: LocalTimeFormat()))
            }
        }
    }
}
