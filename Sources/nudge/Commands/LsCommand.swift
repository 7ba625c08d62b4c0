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
        var query: [(name: String, value: String)] = []
        if let list { query.append(("list", list)) }
        if all { query.append(("all", "true")) }
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let answer = try await client.send(.GET, APIPath.items, query: query)
            if global.json { return Output.json(answer) }
            let items = try client.decode([ItemResource].self, from: answer)
            if items.isEmpty {
                Output.line(all ? "no items" : "nothing to do (nudge ls --all shows checked-off items too)")
            } else {
                Output.lines(Render.itemTable(items, time: LocalTimeFormat()))
            }
        }
    }
}
