import Foundation
import NudgeAPI
import NudgeCore

/// Human output: pure functions from the API's answers to lines of text. `--json` bypasses them and prints the
/// answers as JSON.
enum Render {
    /// Marks an item whose reminder is pending.
    static let pendingMark = "⏰"

    // MARK: Items

    /// `ls`: items grouped under their list's name, in the daemon's order.
    ///
    ///     List
    ///       3  [ ] water the plants  Sat 21 Nov 17:00  ⏰
    ///      12  [x] buy milk
    /// Items grouped by list, each group under its list's name; `withListName: false` leaves the name out for a
    /// page that continues the previous one's list.
    static func itemTable(_ items: [Components.Schemas.Item], time: LocalTimeFormat, withListName: Bool = true)
        -> [String]
    {
        var order: [Int] = []
        var groups: [Int: [Components.Schemas.Item]] = [:]
        for item in items {
            if groups[item.listID] == nil { order.append(item.listID) }
            groups[item.listID, default: []].append(item)
        }
        let idWidth = items.map { String($0.itemID).count }.max() ?? 1
        let textWidth = min(items.map { $0.text.count }.max() ?? 0, 48)
        var lines: [String] = []
        for listID in order {
            guard let group = groups[listID], let first = group.first else { continue }
            if withListName || listID != order.first { lines.append(first.listName) }
            for item in group {
                lines.append("  " + itemLine(item, time: time, idWidth: idWidth, textWidth: textWidth))
            }
        }
        return lines
    }

    /// One item on one line, with its list: what `edit`, `done` and `undone` print.
    static func itemSummary(_ item: Components.Schemas.Item, time: LocalTimeFormat) -> String {
        trimmed(itemLine(item, time: time, idWidth: 0, textWidth: 0) + "  (\(item.listName))")
    }

    private static func itemLine(_ item: Components.Schemas.Item, time: LocalTimeFormat, idWidth: Int, textWidth: Int)
        -> String
    {
        let id = padded(String(item.itemID), to: idWidth, left: true)
        let text = item.text.replacingOccurrences(of: "\n", with: " ")
        let line = "\(id)  \(item.checked ? "[x]" : "[ ]") "
        let priority = item.priority == .normal ? "" : "  !\(item.priority.rawValue)"
        guard let due = item.dueDate?.date else { return trimmed(line + text + priority) }
        var columns = [padded(text, to: textWidth), time.short(due)]
        if let rule = item._repeat { columns.append("↻ \(rule)") }
        if !priority.isEmpty { columns.append(String(priority.dropFirst(2))) }
        if item.pendingDue != nil {
            columns.append(pendingMark)
        } else if !item.checked && due < time.now {
            columns.append("overdue")
        }
        return line + columns.joined(separator: "  ")
    }

    /// `show`: every field, dates in local time.
    static func itemDetails(_ item: Components.Schemas.Item, time: LocalTimeFormat) -> [String] {
        func date(_ value: Instant?, otherwise: String) -> String {
            value.map { time.full($0.date) } ?? otherwise
        }
        var rows: [(String, String)] = [
            ("ID", String(item.itemID)),
            ("Text", item.text),
            ("List", "\(item.listName) (list \(item.listID))"),
            ("Checked", item.checked ? "yes" : "no"),
            ("Due", date(item.dueDate, otherwise: "no due date")),
            ("Remind", item.shouldRemind ? "yes" : "no"),
            ("Priority", item.priority.rawValue),
            ("Catch up", item.catchUp.map(catchUpText) ?? "as nudged's --catch-up-window says"),
            ("Warnings", item.warnings.map(warningsText) ?? "none"),
            ("Pending", item.pendingDue.map { "\(pendingMark) \(time.full($0.date))" } ?? "no reminder pending"),
            ("Last fired", date(item.lastFiredAt, otherwise: "never")),
            ("Created", time.full(item.createdAt.date)),
            ("Updated", time.full(item.updatedAt.date)),
        ]
        if let snoozed = item.snoozedUntil, let pending = rows.firstIndex(where: { $0.0 == "Pending" }) {
            rows.insert(("Snoozed", "until \(time.full(snoozed.date))"), at: pending)
        }
        if let rule = item._repeat {
            // After "Due", which is the next occurrence.
            rows.insert(("Repeat", rule), at: 5)
            rows.insert(("Completed", date(item.completedThrough, otherwise: "no occurrence yet")), at: 6)
        }
        return table(rows.map { [$0.0 + ":", $0.1] })
    }

    /// What to tell someone whose item reminds but is due at an instant already past (further back than `--due
    /// now`): it is kept, but no reminder will fire for it. Nil when one is pending or has fired.
    static func pastDueNote(_ item: Components.Schemas.Item, time: LocalTimeFormat) -> String? {
        guard item.shouldRemind, !item.checked, let due = item.dueDate?.date, item.pendingDue == nil,
            (item.lastFiredAt?.date).map({ $0 < due }) ?? true
        else { return nil }
        return "note: item \(item.itemID) is due \(time.full(due)), which has passed, so no reminder will fire for it; "
            + "give a time ahead, like \"in 10m\", or \"now\""
    }

    /// What to tell someone who gave an item warnings but no due date: they count back from one.
    static func warningsWithoutDueNote(_ item: Components.Schemas.Item) -> String? {
        guard item.warnings?.isEmpty == false, item.dueDate == nil else { return nil }
        return "note: item \(item.itemID) has no due date, so its warnings will not fire until it has one "
            + "(nudge edit \(item.itemID) --due WHEN)"
    }

    /// What `done` and `undone` print for each item: the item on one line.
    static func itemSummaryLine(_ item: Components.Schemas.Item) -> String {
        itemSummary(item, time: LocalTimeFormat())
    }

    // MARK: Reminders, lists, events

    /// `pending`: soonest first, each reminder with the advance warnings still to come before it.
    ///
    ///     Sat 21 Nov 17:00  #7  water the plants  (List)  warns Sat 21 Nov 16:00, 16:50
    static func reminders(_ reminders: [Components.Schemas.Reminder], time: LocalTimeFormat) -> [String] {
        let sorted = reminders.sorted { ($0.due, $0.itemID) < ($1.due, $1.itemID) }
        return table(
            sorted.map { reminder in
                var row = [
                    time.short(reminder.due.date), "#\(reminder.itemID)", reminder.text, "(\(reminder.listName))",
                ]
                if let warnings = reminder.warnings, let first = warnings.first {
                    let rest = warnings.dropFirst().map { time.clock($0.date, relativeTo: first.date) }
                    row.append("warns " + ([time.short(first.date)] + rest).joined(separator: ", "))
                }
                return row
            }
        )
    }

    /// `lists`: ID, name, icon, items left.
    ///
    ///     1  Inbox      (default)  Inbox      2 Remaining
    ///     3  Groceries             Groceries  All Done
    static func lists(_ lists: [Components.Schemas.List]) -> [String] {
        table(
            lists.map {
                [String($0.listID), $0.name, $0.isDefault ? "(default)" : "", $0.iconName.rawValue, $0.status]
            },
            rightAligned: [0]
        )
    }

    /// `watch`: one line per event.
    ///
    ///     2026-11-21 17:00:00  fired      #7 "water the plants" (due 17:00:00, 3s late)
    static func event(_ event: Components.Schemas.Event, time: LocalTimeFormat) -> String {
        let at = event.at.date
        let due = time.clock(event.due.date, relativeTo: at)
        let detail: String
        switch event.kind {
        case .scheduled:
            detail = "due \(due)"
        case .replaced:
            detail = "due \(due)" + (event.previousDue.map { ", was \(time.clock($0.date, relativeTo: at))" } ?? "")
        case .cancelled:
            detail = "was due \(due)"
        case .fired:
            let late = event.lateBy ?? 0
            detail =
                "due \(due), " + (late < 1 ? "on time" : "\(DurationText.short(late)) late")
                + coalesced(event)
        case .warned:
            let late = event.lateBy ?? 0
            detail =
                "\(event.warning.map(warningText) ?? "warning"), due \(due), "
                + (late < 1 ? "on time" : "\(DurationText.short(late)) late")
        case .missed:
            detail =
                (event.warning.map { warningText($0) + ", " } ?? "")
                + "due \(due), missed by \(DurationText.short(event.lateBy ?? 0))"
                + (event.catchUp.map { " (catch-up: \(catchUpText($0)))" } ?? "") + coalesced(event)
        case .snoozed:
            detail = "until \(due)" + (event.previousDue.map { ", due \(time.clock($0.date, relativeTo: at))" } ?? "")
        case .completed:
            detail = "occurrence due \(due) done"
        }
        let kind = padded(event.kind.rawValue, to: 9)
        return "\(time.stamp(at))  \(kind)  #\(event.itemID) \(quoted(event.text)) (\(detail))  event \(event.id)"
    }

    /// Advance warnings as people read them: "1h, 10m before".
    static func warningsText(_ warnings: [String]) -> String {
        warnings.map { DurationText.seconds($0).map(DurationText.short) ?? $0 }.joined(separator: ", ") + " before"
    }

    /// One advance warning: "warning 1h ahead".
    private static func warningText(_ warning: String) -> String {
        "warning \(DurationText.seconds(warning).map(DurationText.short) ?? warning) ahead"
    }

    /// A catch-up rule as people read it: always, never, or "within 2h".
    static func catchUpText(_ rule: String) -> String {
        guard let seconds = DurationText.seconds(rule) else { return rule }
        return "within \(DurationText.short(seconds))"
    }

    /// For a recurring reminder found late: how many occurrences its one decision stands for.
    private static func coalesced(_ event: Components.Schemas.Event) -> String {
        event.coalesced.map { ", for \($0) occurrences that passed unwatched" } ?? ""
    }

    // MARK: Text

    /// Columns separated by two spaces, each as wide as its widest cell; the last column is not padded.
    static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let columnCount = rows.map(\.count).max() ?? 0
        let widths = (0..<columnCount).map { column in
            rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            trimmed(
                row.enumerated().map { column, cell in
                    column == row.count - 1 && !rightAligned.contains(column)
                        ? cell : padded(cell, to: widths[column], left: rightAligned.contains(column))
                }.joined(separator: "  ")
            )
        }
    }

    /// `"water the plants"`, with quotes, backslashes and control characters escaped so an event stays on one line.
    static func quoted(_ text: String) -> String {
        "\"" + text.escapingControlCharacters(quoting: true) + "\""
    }

    private static func padded(_ text: String, to width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }

    private static func trimmed(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
