import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

extension GlobalOptions {
    /// The look for this command's output, with times relative to `now` (nudged's clock).
    func look(now: Date = Date()) -> Look {
        Look(time: LocalTimeFormat(now: now), terminal: .standardOutput(colour: color))
    }
}

/// Human output: pure functions from the API's answers to lines of text. `--json` bypasses them and prints the
/// answers as JSON. Text from items and lists is shown on one line with control characters escaped (`\n`, `\t`),
/// columns are measured in display width, and on a terminal lines are cut to fit it.
enum Render {
    /// Marks an item whose reminder is pending.
    static let pendingMark = "⏰"
    /// Marks an item whose reminder fired and awaits acknowledgement.
    static let unacknowledgedMark = "🔔"

    /// A table cell: parts of text, each styled its own way when colour is on, separated by two spaces.
    struct Cell {
        var parts: [(text: String, style: Terminal.Style)]

        init(_ text: String, _ style: Terminal.Style = .plain) {
            parts = [(text, style)]
        }

        init(parts: [(text: String, style: Terminal.Style)]) {
            self.parts = parts.filter { !$0.text.isEmpty }
        }

        var text: String { parts.map(\.text).joined(separator: "  ") }
    }

    /// The widest the flexible column of a table is padded to when output is not to a terminal.
    static let maximumFlexibleWidth = 48

    // MARK: Items

    /// `ls`: items grouped under their list's name, in the order given.
    ///
    ///     Inbox
    ///        3  [ ]  water the plants  in 2h 5m · Sat 21 Nov 17:00  ⏰
    ///       12  [x]  buy milk
    ///        4  [ ]  pay rent          1d 6h ago · Thu 19 Nov 09:00  overdue
    /// `withListName: false` leaves the name out for a page that continues the previous one's list.
    static func itemTable(_ items: [Components.Schemas.Item], look: Look, withListName: Bool = true) -> [String] {
        // One layout for the whole page, so the columns line up from one list to the next.
        let lines = table(
            items.map { itemRow($0, look: look) },
            rightAligned: [0],
            flexible: 2,
            indent: "  ",
            terminal: look.terminal
        )
        var order: [Int] = []
        var groups: [Int: [Int]] = [:]
        for (index, item) in items.enumerated() {
            if groups[item.listID] == nil { order.append(item.listID) }
            groups[item.listID, default: []].append(index)
        }
        var output: [String] = []
        for listID in order {
            guard let indices = groups[listID], let first = indices.first else { continue }
            if withListName || listID != order.first {
                output.append(look.terminal.styled(oneLine(items[first].listName), .bold))
            }
            output += indices.map { lines[$0] }
        }
        return output
    }

    /// One item on one line, with its list: what `add`, `edit`, `done` and `undone` print.
    static func itemSummary(_ item: Components.Schemas.Item, look: Look) -> String {
        var row = itemRow(item, look: look)
        row[row.count - 1].parts.append(("(\(oneLine(item.listName)))", .plain))
        return table([row], rightAligned: [0], terminal: look.terminal).first ?? ""
    }

    /// ID, check box, text, due (relative and absolute), then the repeat rule (or the repeat after completion), a
    /// priority other than normal, the mark of a fired reminder not acknowledged, and the pending or overdue mark, or
    /// `digest` for an item due on a day that the day's digest brings.
    private static func itemRow(_ item: Components.Schemas.Item, look: Look) -> [Cell] {
        let overdue = isOverdue(item, look: look)
        let repeats = item._repeat.map(ruleSummary) ?? repeatAfterText(item).map { "\($0) after done" }
        var notes: [(text: String, style: Terminal.Style)] = [(repeats.map { "↻ \($0)" } ?? "", .cyan)]
        switch item.priority {
        case .high: notes.append(("!high", .red))
        case .low: notes.append(("!low", .dim))
        case .normal: break
        }
        if item.unacknowledgedSince != nil { notes.append((unacknowledgedMark, .bold)) }
        if item.pendingDue != nil {
            notes.append((pendingMark, .plain))
        } else if overdue {
            notes.append(("overdue", .red))
        } else if remindsInDigest(item) {
            notes.append(("digest", .plain))
        }
        return [
            Cell(String(item.itemID), .dim),
            Cell(item.checked ? "[x]" : "[ ]"),
            Cell(oneLine(item.text), item.checked ? .dim : .plain),
            Cell(
                item.dueDay.map(look.time.relativeAndShort) ?? item.dueDate.map { look.time.relativeAndShort($0.date) }
                    ?? "",
                overdue ? .red : .plain
            ),
            Cell(parts: notes),
        ]
    }

    /// A repeat rule for a line: a recurrence without its DTSTART, which the due date beside it makes plain
    /// (`RRULE:FREQ=WEEKLY;INTERVAL=2`); an expression as it is. `nudge show` gives the whole.
    static func ruleSummary(_ rule: String) -> String {
        guard Recurrence.isRecurrence(rule) else { return rule }
        return rule.split(whereSeparator: \.isWhitespace).filter { !$0.uppercased().hasPrefix("DTSTART") }
            .joined(separator: " ")
    }

    /// How long after a check-off the item is due again (`2w`, `36h`, `1d 12h`), if it repeats after completion.
    static func repeatAfterText(_ item: Components.Schemas.Item) -> String? {
        guard let seconds = item.repeatAfter.flatMap(DurationText.iso8601Seconds) else { return nil }
        let weeks = seconds / (7 * 86_400)
        return weeks >= 1 && weeks.rounded() == weeks ? "\(Int(weeks))w" : DurationText.short(seconds)
    }

    /// Unchecked and past its due instant with no reminder pending (a snoozed one is pending); an item due on a day,
    /// from the next day on.
    static func isOverdue(_ item: Components.Schemas.Item, look: Look) -> Bool {
        guard !item.checked else { return false }
        if let day = item.dueDay { return day < look.time.today && item.pendingDue == nil }
        guard let due = item.dueDate?.date else { return false }
        return due < look.now && item.pendingDue == nil
    }

    /// An open item due on a day that reminds: the day's digest brings it (`nudge today`).
    static func remindsInDigest(_ item: Components.Schemas.Item) -> Bool {
        item.dueDay != nil && item.shouldRemind && !item.checked
    }

    /// Where an item's due date sorts: an item due on a day at the day's start, before that day's timed items.
    static func dueOrder(_ item: Components.Schemas.Item, look: Look) -> Date? {
        item.dueDay.map { $0.start(in: look.time.timeZone) } ?? item.dueDate?.date
    }

    /// `show`: every field, dates in local time, with how far off they are.
    static func itemDetails(_ item: Components.Schemas.Item, look: Look) -> [String] {
        let time = look.time
        func date(_ value: Instant?, otherwise: String) -> String {
            value.map { "\(time.full($0.date)) (\(time.relative($0.date)))" } ?? otherwise
        }
        var due =
            item.dueDay.map { "\(time.short($0)) (\(time.relative($0))), all day" }
            ?? date(item.dueDate, otherwise: "no due date")
        if isOverdue(item, look: look) { due += ", overdue" }
        var rows: [(String, String)] = [
            ("ID", String(item.itemID)),
            ("Text", oneLine(item.text)),
            ("List", "\(oneLine(item.listName)) (list \(item.listID))"),
            ("Checked", item.checked ? item.completedAt.map { "yes, " + date($0, otherwise: "") } ?? "yes" : "no"),
            ("Due", due),
            ("Remind", item.shouldRemind ? "yes" : "no"),
            ("Priority", item.priority.rawValue),
            ("Catch up", item.catchUp.map(catchUpText) ?? "as nudged's --catch-up-window says"),
            ("Warnings", item.warnings.map(warningsText) ?? "none"),
            ("Nag", item.nag.map(nagText) ?? "no: a reminder fires once"),
            (
                "Pending",
                item.pendingDue.map { "\(pendingMark) \(date($0, otherwise: ""))" }
                    ?? (remindsInDigest(item) ? "in the day's digest (nudge today)" : "no reminder pending")
            ),
            // The due instant whose reminder was last fired or found missed, not when that happened.
            ("Last reminder", item.lastFiredAt.map { "for the instant due \(date($0, otherwise: ""))" } ?? "none yet"),
            (
                "Acknowledged",
                item.unacknowledgedSince.map { "\(unacknowledgedMark) not yet: fired \(date($0, otherwise: ""))" }
                    ?? "nothing awaits it"
            ),
            ("Created", date(item.createdAt, otherwise: "")),
            ("Updated", date(item.updatedAt, otherwise: "")),
        ]
        if let file = item.file { rows.append(("File", file + " (in its list's linked folder)")) }
        if let uid = item.uid { rows.append(("UID", oneLine(uid))) }
        if let snoozed = item.snoozedUntil, let pending = rows.firstIndex(where: { $0.0 == "Pending" }) {
            rows.insert(("Snoozed", "until \(date(snoozed, otherwise: ""))"), at: pending)
        }
        if let rule = item._repeat {
            // After "Due", which is the next occurrence.
            rows.insert(("Repeat", rule), at: 5)
            rows.insert(("Completed", date(item.completedThrough, otherwise: "no occurrence yet")), at: 6)
        } else if let length = repeatAfterText(item) {
            rows.insert(("Repeat", "\(length) after each check-off"), at: 5)
            rows.insert(("Completed", date(item.completedThrough, otherwise: "not yet")), at: 6)
        }
        return table(
            rows.map {
                [Cell($0.0 + ":", .bold), Cell($0.1, $0.0 == "Due" && isOverdue(item, look: look) ? .red : .plain)]
            },
            flexible: 1,
            terminal: look.terminal
        )
    }

    /// What to tell someone whose item reminds but is due at an instant already past (further back than `--due
    /// now`): it is kept, but no reminder will fire for it. Nil when one is pending or has fired, and for an item due
    /// on a day, which the day's digest brings.
    static func pastDueNote(_ item: Components.Schemas.Item, look: Look) -> String? {
        guard item.shouldRemind, !item.checked, item.pendingDue == nil else { return nil }
        // An item due on a day (it answers without a dueDate) is in the day's digest, or follows it at once.
        guard let due = item.dueDate?.date, (item.lastFiredAt?.date).map({ $0 < due }) ?? true else { return nil }
        return "note: item \(item.itemID) is due \(look.time.full(due)) (\(look.time.relative(due))), which has "
            + "passed, so no reminder will fire for it; give a time ahead, like \"in 10m\", or \"now\""
    }

    /// What to tell someone who gave an item warnings but no due date: they count back from one.
    static func warningsWithoutDueNote(_ item: Components.Schemas.Item) -> String? {
        guard item.warnings?.isEmpty == false, item.dueDate == nil, item.dueDay == nil else { return nil }
        return "note: item \(item.itemID) has no due date, so its warnings will not fire until it has one "
            + "(nudge edit \(item.itemID) --due WHEN)"
    }

    // MARK: Reminders, lists, events

    /// `pending`: soonest first, each reminder with the advance warnings still to come before it.
    ///
    ///     in 2h 5m · Sat 21 Nov 17:00  #7  water the plants  (Inbox)  warns Sat 21 Nov 16:00, 16:50
    static func reminders(_ reminders: [Components.Schemas.Reminder], look: Look) -> [String] {
        let time = look.time
        let sorted = reminders.sorted { ($0.due, $0.itemID) < ($1.due, $1.itemID) }
        return table(
            sorted.map { reminder in
                var row = [
                    Cell(time.relativeAndShort(reminder.due.date)), Cell("#\(reminder.itemID)", .dim),
                    Cell(oneLine(reminder.text)), Cell("(\(oneLine(reminder.listName)))"),
                ]
                if let warnings = reminder.warnings, let first = warnings.first {
                    let rest = warnings.dropFirst().map { time.clock($0.date, relativeTo: first.date) }
                    row.append(Cell("warns " + ([time.short(first.date)] + rest).joined(separator: ", "), .yellow))
                }
                return row
            },
            flexible: 2,
            terminal: look.terminal
        )
    }

    /// `today`: the day and the counts, then each item: ID, text, its day, its list; overdue first.
    ///
    ///     Fri 20 Nov: 1 due today, 1 overdue
    ///     3  bills  yesterday · Thu 19 Nov  overdue  (Inbox)
    ///     4  rent   today · Fri 20 Nov               (Inbox)
    static func digest(_ digest: Components.Schemas.Digest, look: Look) -> [String] {
        let time = look.time
        guard digest.count > 0 else { return ["nothing due on \(time.short(digest.day)) without a time"] }
        var counts: [String] = []
        if digest.dueTodayCount > 0 { counts.append("\(digest.dueTodayCount) due today") }
        if digest.overdueCount > 0 { counts.append("\(digest.overdueCount) overdue") }
        // How far back, from the digest's day (nudged's today), not this terminal's.
        func when(_ day: CalendarDay) -> String { time.relative(day, from: digest.day) + " · " + time.short(day) }
        let rows = (digest.overdue.map { ($0, true) } + digest.dueToday.map { ($0, false) }).map { entry, overdue in
            [
                Cell(String(entry.itemID), .dim), Cell(oneLine(entry.text)),
                Cell(when(entry.dueDay), overdue ? .red : .plain),
                Cell(overdue ? "overdue" : "", .red), Cell("(\(oneLine(entry.listName)))"),
            ]
        }
        let unlisted = digest.count - digest.overdue.count - digest.dueToday.count
        return ["\(time.short(digest.day)): " + counts.joined(separator: ", ")]
            + table(rows, rightAligned: [0], flexible: 1, terminal: look.terminal)
            + (unlisted > 0 ? ["and \(unlisted) more (nudge ls --sort due)"] : [])
    }

    /// `lists`: ID, name, icon, items left.
    ///
    ///     1  Inbox      (default)  Inbox      2 Remaining
    ///     3  Groceries             Groceries  All Done
    static func lists(_ lists: [Components.Schemas.List], look: Look) -> [String] {
        table(
            lists.map {
                [
                    Cell(String($0.listID), .dim), Cell(oneLine($0.name), .bold),
                    Cell($0.isDefault ? "(default)" : ""), Cell($0.iconName.rawValue), Cell($0.status),
                    Cell($0.link.map(linkText) ?? "", .dim),
                ]
            },
            rightAligned: [0],
            flexible: 1,
            terminal: look.terminal
        )
    }

    /// A linked list's folder and how it stood when last read: `linked to /path: ok, 1 skipped, 2 limited`.
    static func linkText(_ link: Components.Schemas.ListLink) -> String {
        let state: String =
            switch link.state {
            case .ok:
                "ok" + (link.skipped.isEmpty ? "" : ", \(link.skipped.count) skipped")
                    + (link.limited.isEmpty ? "" : ", \(link.limited.count) limited")
                    + (link.otherFiles == 0 ? "" : ", \(link.otherFiles) other files left alone")
            case .unavailable: "unavailable: " + oneLine(link.reason ?? "")
            case .unread: "not read yet"
            }
        return "linked to \(oneLine(link.folder)): \(state)"
    }

    /// `watch`: one line per event.
    ///
    ///     2026-11-21 17:00:00  fired      #7 "water the plants" (due 17:00:00, 3s late)
    /// With `relative` (the history, read after the fact), the stamp says how long ago: `2026-11-21 17:00:00 (3h
    /// ago)`.
    static func event(_ event: Components.Schemas.Event, look: Look, relative: Bool = false) -> String {
        let time = look.time
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
            detail = event.source == .notification ? "due \(due), done" : "occurrence due \(due) done"
        case .dismissed, .expired:
            detail = "showing due \(due)"
        case .acknowledged:
            detail = "fired due \(due)"
        case .renotified, .exhausted:
            detail = "repeat \(event.repeatNumber ?? 0) of the fire due \(due)" + coalesced(event)
        case .digest:
            let late = event.lateBy ?? 0
            detail =
                itemList(event.itemIDs ?? []) + ", "
                + (late < 1 ? "on time" : "\(DurationText.short(late)) after \(due)")
        case .changed, .undone:
            detail = event.itemID == 0 ? itemList(event.itemIDs ?? []) : ""
        }
        let kind = event.kind.rawValue + String(repeating: " ", count: max(0, 9 - event.kind.rawValue.count))
        let style: Terminal.Style =
            switch event.kind {
            case .fired, .warned, .digest: .bold
            case .missed: .red
            case .cancelled: .dim
            default: .plain
            }
        let stamp = time.stamp(at) + (relative ? " (\(time.relative(at)))" : "")
        let notes = ([detail] + (event.source.map { ["from the \($0.rawValue)"] } ?? [])).filter { !$0.isEmpty }
        // A digest and a change say what they are in their text; a reminder's text is the item's.
        let text = [.digest, .changed, .undone].contains(event.kind) ? event.text : quoted(event.text)
        return
            "\(stamp)  \(look.terminal.styled(kind, style))  "
            + (event.itemID == 0 ? "" : "#\(event.itemID) ")
            + text + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))") + "  "
            + "event \(event.id)"
    }

    /// The items an event of several names: "3 items: #4 #7 #9", at most ten of them by ID.
    static func itemList(_ ids: [Int]) -> String {
        let named = ids.prefix(10).map { "#\($0)" } + (ids.count > 10 ? ["and \(ids.count - 10) more"] : [])
        return "\(ids.count) item\(ids.count == 1 ? "" : "s"): " + named.joined(separator: " ")
    }

    /// A change `nudge undo --list` shows: its event ID, when, what it did, and whether undo would take it back.
    static func undoableChange(_ change: Components.Schemas.UndoableChange, look: Look) -> String {
        let event = change.event
        let state = change.undoable ? "" : "  " + look.terminal.styled("not undoable: \(change.reason ?? "")", .dim)
        let id = String(event.id)
        return String(repeating: " ", count: max(0, 6 - id.count)) + id + "  \(look.time.stamp(event.at.date))  "
            + event.text + state
    }

    /// Advance warnings as people read them: "1h, 10m before".
    static func warningsText(_ warnings: [String]) -> String {
        warnings.map { DurationText.seconds($0).map(DurationText.short) ?? $0 }.joined(separator: ", ") + " before"
    }

    /// How a fired reminder repeats until acknowledged: "every 10m, at most 5 times, until seen, high priority after
    /// 2".
    static func nagText(_ text: String) -> String {
        guard let nag = try? Nag(exactly: text) else { return text }
        var parts = ["every \(DurationText.short(nag.every))", "at most \(nag.times) times"]
        parts.append(nag.untilSeen ? "until seen" : "until acknowledged")
        if let after = nag.escalateAfter { parts.append("high priority after \(after)") }
        return parts.joined(separator: ", ")
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

    /// Columns separated by two spaces, each as wide as its widest cell (in display width); the last cell of a row is
    /// not padded, and trailing spaces are trimmed. On a terminal of known width, the `flexible` column (an item's
    /// text) is cut with `…` so lines fit, down to 8 columns; a line still too wide is cut as a whole. Elsewhere the
    /// flexible column is padded to at most `maximumFlexibleWidth`, and longer cells are left whole.
    static func table(
        _ rows: [[Cell]],
        rightAligned: Set<Int> = [],
        flexible: Int? = nil,
        indent: String = "",
        terminal: Terminal
    ) -> [String] {
        let columnCount = rows.map(\.count).max() ?? 0
        var widths = (0..<columnCount).map { column in
            rows.map { column < $0.count ? $0[column].text.displayWidth : 0 }.max() ?? 0
        }
        if let flexible, flexible < columnCount {
            if let columns = terminal.columns {
                let total = indent.count + widths.reduce(0, +) + 2 * max(0, columnCount - 1)
                if total > columns { widths[flexible] = max(8, widths[flexible] - (total - columns)) }
            } else {
                // Nothing is cut for a pipe, but one long text should not push every other row's columns far out.
                widths[flexible] = min(widths[flexible], maximumFlexibleWidth)
            }
        }
        return rows.map { row in
            var plain = indent
            var styled = indent
            for (column, cell) in row.enumerated() {
                let text =
                    column == flexible && terminal.columns != nil
                    ? cell.text.truncated(toWidth: widths[column]) : cell.text
                let padding = String(repeating: " ", count: max(0, widths[column] - text.displayWidth))
                let isLast = column == row.count - 1 && !rightAligned.contains(column)
                let separator = column == 0 ? "" : "  "
                let (before, after) = rightAligned.contains(column) ? (padding, "") : ("", isLast ? "" : padding)
                // A cut cell is shown plain: its parts no longer match what is left of it.
                let styledText =
                    text == cell.text
                    ? cell.parts.map { terminal.styled($0.text, $0.style) }.joined(separator: "  ") : text
                plain += separator + before + text + after
                styled += separator + before + styledText + after
            }
            let trimmedPlain = trimmed(plain)
            if let columns = terminal.columns, trimmedPlain.displayWidth > columns {
                return trimmedPlain.truncated(toWidth: columns)
            }
            return trimmed(styled)
        }
    }

    /// Text from an item or list on one line: control characters escaped, so it can neither break the layout nor
    /// drive the terminal.
    static func oneLine(_ text: String) -> String {
        text.escapingControlCharacters()
    }

    /// `"water the plants"`, with quotes, backslashes and control characters escaped so an event stays on one line.
    static func quoted(_ text: String) -> String {
        "\"" + text.escapingControlCharacters(quoting: true) + "\""
    }

    private static func trimmed(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
