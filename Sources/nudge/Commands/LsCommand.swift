import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge ls [--list NAME] [--all] [--priority P] [--sort id|due|priority]`: GET /v1/items.
struct LsCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the items still to do, or all of them with --all.",
        discussion: """
            Items are grouped by list. Each line shows the ID, [ ] or [x], the text, the due date in local time, \
            and \(Render.pendingMark) (an alarm clock) when a reminder is pending (or "overdue" when an unchecked item is past due \
            without one).

              nudge ls --list groceries --all
              nudge ls --priority high
              nudge ls --sort priority      # high first, then by due date, within each list

            A marker shows a priority other than normal (!high, !low) and ↻ a repeat rule.
            """
    )

    enum Order: String, ExpressibleByArgument, CaseIterable {
        case id, due, priority
    }

    @Option(help: ArgumentHelp("Only this list, by name, ignoring case.", valueName: "name"))
    var list: String?

    @Flag(help: "Include checked-off items.")
    var all = false

    @Option(
        help: ArgumentHelp("Only items of this priority: low, normal or high.", valueName: "priority"),
        transform: SharedArguments.parsePriority
    )
    var priority: Priority?

    @Option(
        help: ArgumentHelp(
            "Order within each list: id (the default, read a page at a time), due (soonest first, no due date "
                + "last) or priority (high first, then by due date); a list is read whole to sort it.",
            valueName: "order"
        )
    )
    var sort: Order = .id

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
                var gathered: [Components.Schemas.Item] = []
                var shownName = false
                func show(_ items: [Components.Schemas.Item]) {
                    guard !items.isEmpty else { return }
                    if global.json {
                        json.append(items)
                    } else {
                        Output.lines(Render.itemTable(items, time: LocalTimeFormat(), withListName: !shownName))
                    }
                    shownName = true
                    printed += items.count
                }
                repeat {
                    let query = Operations.ListItems.Input.Query(list: name, all: all ? true : nil, after: after)
                    let page = try await client.call { try await $0.listItems(query: query).ok.body.json }
                    let items = page.items.filter { priority == nil || $0.priority.rawValue == priority?.rawValue }
                    if sort == .id { show(items) } else { gathered += items }
                    after = page.next ?? 0
                } while after != 0
                show(Self.sorted(gathered, by: sort))
            }
            if global.json { return json.finish() }
            if printed == 0, priority != nil {
                return Output.line("no \(all ? "" : "unchecked ")items of priority \(priority?.rawValue ?? "")")
            }
            if printed == 0 {
                Output.line(all ? "no items" : "nothing to do (nudge ls --all shows checked-off items too)")
            }
        }
    }

    /// Soonest first, items without a due date last, then by ID; for `priority`, high first and so on.
    static func sorted(_ items: [Components.Schemas.Item], by order: Order) -> [Components.Schemas.Item] {
        func rank(_ item: Components.Schemas.Item) -> Int {
            order == .priority ? -(Priority(rawValue: item.priority.rawValue) ?? .normal).rank : 0
        }
        return items.sorted {
            (rank($0), $0.dueDate?.date ?? .distantFuture, $0.itemID)
                < (rank($1), $1.dueDate?.date ?? .distantFuture, $1.itemID)
        }
    }
}
