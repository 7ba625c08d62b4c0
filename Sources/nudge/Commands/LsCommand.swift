import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge ls [--list NAME] [--all | --checked] [--overdue] [--due-before WHEN] [--priority P] [--sort ORDER]`:
/// GET /v1/items, a page at a time.
struct LsCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the items still to do, or all of them with --all.",
        discussion: """
            Items are grouped by list. Each line shows the ID, [ ] or [x], the text, the due date (how far off, then \
            when, in local time), and \(Render.pendingMark) (an alarm clock) when a reminder is pending, or \
            "overdue" when an unchecked item is past due without one; \(Render.unacknowledgedMark) (a bell) when its \
            reminder fired and is not acknowledged yet (nudge ack). A marker shows a priority other than normal \
            (!high, !low) and ↻ a repeat rule (or "↻ 2w after done" for a repeat after completion). Times count from \
            nudged's clock.

              nudge ls --list groceries --all
              nudge ls --overdue
              nudge ls --due-before "fri 17:00" --sort due
              nudge ls --checked                # what was done
              nudge ls --unacknowledged         # reminders that fired, not acknowledged yet
              nudge ls --sort priority          # high first, then by due date, within each list

            On a terminal, output is coloured (see --color) and each line cut to the terminal's width; text is \
            measured in display columns (wide CJK characters and emoji take two), and control characters in it are \
            shown escaped (\\n, \\t).
            """
    )

    enum Order: String, ExpressibleByArgument, CaseIterable {
        case id, created, due, priority
    }

    @Option(help: ArgumentHelp("Only this list, by name, ignoring case.", valueName: "name"))
    var list: String?

    @Flag(help: "Include checked-off items.")
    var all = false

    @Flag(help: "Only checked-off items.")
    var checked = false

    @Flag(help: "Only unchecked items past their due date with no reminder pending.")
    var overdue = false

    @Flag(help: "Only items whose reminder fired and is not acknowledged yet (nudge ack).")
    var unacknowledged = false

    @Option(
        help: ArgumentHelp(
            "Only items due before this time, as --due takes it (\"fri 17:00\", \"in 2d\"); a day alone (fri) "
                + "means before that day begins.",
            valueName: "when"
        ),
        transform: SharedArguments.parseWhen
    )
    var dueBefore: WhenText?

    @Option(
        help: ArgumentHelp("Only items of this priority: low, normal or high.", valueName: "priority"),
        transform: Priority.init(validating:)
    )
    var priority: Priority?

    @Option(
        help: ArgumentHelp(
            "Order within each list: id (the default, read a page at a time), created (oldest first; the same "
                + "order, as IDs are allocated in turn), due (soonest first, no due date last) or priority (high "
                + "first, then by due date); a list is read whole to sort it by due or priority.",
            valueName: "order"
        )
    )
    var sort: Order = .id

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if checked && overdue {
            throw ValidationError("--checked and --overdue exclude each other: overdue items are unchecked")
        }
    }

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let look = global.look(now: try await client.now())
            // A day alone means before that day begins, the day `parse` gives for it: a weekday named on that
            // weekday is next week's once its 09:00 has passed, as it always was here.
            var dueBefore = try self.dueBefore?.date(now: look.now)
            if let text = self.dueBefore, case .on = try text.due(now: look.now), let instant = dueBefore {
                dueBefore = CalendarDay(containing: instant, in: look.time.timeZone).start(in: look.time.timeZone)
            }
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
                        Output.lines(Render.itemTable(items, look: look, withListName: !shownName))
                    }
                    shownName = true
                    printed += items.count
                }
                repeat {
                    let query = Operations.ListItems.Input.Query(
                        list: name,
                        all: all || checked ? true : nil,
                        unacknowledged: unacknowledged ? true : nil,
                        after: after
                    )
                    let page = try await client.call { try await $0.listItems(query: query).ok.body.json }
                    let items = page.items.filter { matches($0, look: look, dueBefore: dueBefore) }
                    if sort == .id || sort == .created { show(items) } else { gathered += items }
                    after = page.next ?? 0
                } while after != 0
                show(Self.sorted(gathered, by: sort, look: look))
            }
            if global.json { return json.finish() }
            if printed == 0 { Output.line(nothingMessage(dueBefore: dueBefore)) }
        }
    }

    /// Whether an item passes the filters given (the daemon has already left checked items out unless asked).
    private func matches(_ item: Components.Schemas.Item, look: Look, dueBefore: Date?) -> Bool {
        if checked && !item.checked { return false }
        if overdue && !Render.isOverdue(item, look: look) { return false }
        if let dueBefore, Render.dueOrder(item, look: look).map({ $0 < dueBefore }) != true { return false }
        if let priority, item.priority.rawValue != priority.rawValue { return false }
        return true
    }

    /// What to say when nothing matched: which filters left everything out.
    private func nothingMessage(dueBefore: Date?) -> String {
        var filters: [String] = []
        if checked { filters.append("checked-off") }
        if overdue { filters.append("overdue") }
        if unacknowledged { filters.append("not acknowledged") }
        if let priority { filters.append("\(priority.rawValue)-priority") }
        if let dueBefore { filters.append("due before \(LocalTimeFormat().short(dueBefore))") }
        if filters.isEmpty {
            return all ? "no items" : "nothing to do (nudge ls --all shows checked-off items too)"
        }
        return "no \(all || checked ? "" : "unchecked ")items that are " + filters.joined(separator: ", ")
    }

    /// Soonest first (an item due on a day before that day's timed items), items without a due date last, then by
    /// ID; for `priority`, high first and so on.
    static func sorted(_ items: [Components.Schemas.Item], by order: Order, look: Look) -> [Components.Schemas.Item] {
        func rank(_ item: Components.Schemas.Item) -> Int {
            order == .priority ? -(Priority(rawValue: item.priority.rawValue) ?? .normal).rank : 0
        }
        func due(_ item: Components.Schemas.Item) -> Date { Render.dueOrder(item, look: look) ?? .distantFuture }
        return items.sorted { (rank($0), due($0), $0.itemID) < (rank($1), due($1), $1.itemID) }
    }
}
