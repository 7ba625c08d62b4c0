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
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            // One list at a time, a page at a time: the output groups by list, and memory holds one page whatever
            // the store holds.
            var names = list.map { [$0] } ?? []
            if list == nil { names = try await client.call { try await $0.listLists().ok.body.json }.map(\.name) }
            var json = Output.JSONArray()
            var printed = 0
            for name in names {
                var after = 0
                repeat {
                    let query = Operations.ListItems.Input.Query(list: name, all: all ? true : nil, after: after)
                    let page = try await client.call { try await $0.listItems(query: query).ok.body.json }
                    if global.json {
                        json.append(page.items)
                    } else {
                        Output.lines(Render.itemTable(page.items, time: LocalTimeFormat(), withListName: after == 0))
                    }
                    printed += page.items.count
                    after = page.next ?? 0
                } while after != 0
            }
            if global.json { return json.finish() }
            if printed == 0 {
                Output.line(all ? "no items" : "nothing to do (nudge ls --all shows checked-off items too)")
            }
        }
    }
}
