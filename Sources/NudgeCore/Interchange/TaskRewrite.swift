import Foundation
import NudgeCalendar

/// A change of nudge's to the task of a file another program keeps (a linked folder's, `ListLink`): the properties
/// nudge owns set or removed, every other byte of the file as it was. Lines other programs wrote (X- properties,
/// parameters, alarms, other components, their order and folding, the line ends) stay byte for byte, and so do the
/// task's own lines nudge does not own; a property nudge sets takes the place of its first line in the task, or
/// comes before the task's first inner component (an alarm) if the task had none. Every rewrite marks the task
/// changed as RFC 5545 asks: `DTSTAMP` and `LAST-MODIFIED` now, `SEQUENCE` one more.
public struct TaskRewrite: Sendable, Equatable {
    /// Content lines, unfolded (`STATUS:COMPLETED`), each in place of the task's lines of its property's name.
    public var setting: [String] = []
    /// Names of properties (upper case) whose lines the task loses.
    public var removing: Set<String> = []
    /// Content lines of alarms (`BEGIN:VALARM` … `END:VALARM`) in place of all the task's alarms; nil keeps them.
    public var replacingAlarms: [String]?
    /// The task's DUE moved to an instant, said as its DUE line says instants (`movedDue(_:)`), and its DTSTART by
    /// as much wall time; nil leaves them.
    public var movingDue: MovedDue?

    /// An instant a DUE moves to, and the zone of its wall times where the line names none (floating, or a day).
    public struct MovedDue: Sendable, Equatable {
        public var instant: Date
        public var localZone: TimeZone

        public init(_ instant: Date, localZone: TimeZone) {
            self.instant = instant
            self.localZone = localZone
        }
    }

    public init(
        setting: [String] = [],
        removing: Set<String> = [],
        replacingAlarms: [String]? = nil,
        movingDue: MovedDue? = nil
    ) {
        self.setting = setting
        self.removing = removing
        self.replacingAlarms = replacingAlarms
        self.movingDue = movingDue
    }

    /// The file's other tasks (a recurring task's overrides, RECURRENCE-ID) left out: a copy made a new task has
    /// one UID, as CalDAV asks of a resource.
    public var dropsOtherTasks = false

    /// Nothing to change.
    public var isEmpty: Bool { setting.isEmpty && removing.isEmpty && replacingAlarms == nil && movingDue == nil }

    /// Checked off at `instant`, as todoman and Thunderbird mark a task done.
    public static func completing(at instant: Date) -> TaskRewrite {
        TaskRewrite(
            setting: [
                "STATUS:COMPLETED", "COMPLETED:" + CalendarInterchange.utc(instant), "PERCENT-COMPLETE:100",
            ]
        )
    }

    /// Open again: what a completion set, taken away.
    public static let reopening = TaskRewrite(
        setting: ["STATUS:NEEDS-ACTION"],
        removing: ["COMPLETED", "PERCENT-COMPLETE"]
    )

    /// This rewrite and `other`'s together; `other`'s line of a name wins.
    public func merged(with other: TaskRewrite) -> TaskRewrite {
        let names = Set(other.setting.map(Self.name(of:)))
        var merged = TaskRewrite(
            setting: setting.filter { !names.contains(Self.name(of: $0)) } + other.setting,
            removing: removing.subtracting(names).union(other.removing),
            replacingAlarms: other.replacingAlarms ?? replacingAlarms,
            movingDue: other.movingDue ?? movingDue
        )
        merged.dropsOtherTasks = dropsOtherTasks || other.dropsOtherTasks
        return merged
    }

    /// `file` (the bytes of a task file, one VTODO) with this rewrite made at `now` to its task: the first VTODO
    /// of the calendar that is not a recurrence's override (no RECURRENCE-ID). Throws if the file holds no task, or
    /// if the task would be due on a day and start at a time, or the other way round (RFC 5545 §3.8.2.3).
    public func applied(to file: [UInt8], now: Date) throws(ModelError) -> [UInt8] {
        let lines = LogicalLine.split(file)
        guard let task = Self.task(in: lines) else {
            throw ModelError(
                code: .calendarNotUnderstood,
                description: "the file holds no task (BEGIN:VTODO) to change"
            )
        }
        let own = lines[task].filter { $0.depth == 1 }
        if let due = setting.first(where: { Self.name(of: $0) == "DUE" }),
            let start = own.first(where: { $0.name == "DTSTART" }), Self.isDate(due) != Self.isDate(start.text)
        {
            throw ModelError(
                code: .linkedList,
                description: "the task starts (DTSTART) " + (Self.isDate(start.text) ? "on a day" : "at a time")
                    + ", so it is due " + (Self.isDate(start.text) ? "on a day" : "at a time")
                    + " too (RFC 5545): give its due date so, or change its start with todoman"
            )
        }
        // A rule the task keeps (one nudge read as no repeat, or a date list) would make a DUE set another series,
        // or a completion the whole series done, in every other program. (A series' next copy moves its DUE.)
        let keepsRule = own.contains { ["RRULE", "RDATE"].contains($0.name) && !removing.contains($0.name) }
        if keepsRule, setting.contains(where: { Self.name(of: $0) == "DUE" || $0 == "STATUS:COMPLETED" }) {
            throw ModelError(
                code: .linkedList,
                description: "the task recurs by a rule (RRULE or RDATE) nudge does not take as its repeat: move or "
                    + "complete it with todoman, which keeps the series"
            )
        }
        let sequence = own.first { $0.name == "SEQUENCE" }.flatMap {
            Int($0.value.trimmingCharacters(in: .whitespaces))
        }
        // A count at its end stays there rather than overflow.
        let next = sequence.map { $0 == Int.max ? $0 : max($0, 0) + 1 } ?? 1
        let stamp = CalendarInterchange.utc(now)
        let stamped = merged(
            with: TaskRewrite(
                setting: ["DTSTAMP:" + stamp, "LAST-MODIFIED:" + stamp, "SEQUENCE:\(next)"]
                    + (movingDue.map { Self.moved(own, to: $0) } ?? [])
            )
        )
        let lineEnd = lines.first.map(\.lineEnd).flatMap { $0.isEmpty ? nil : $0 } ?? "\r\n"
        var pending = stamped.setting.map { (name: Self.name(of: $0), line: $0) }
        let owned = Set(pending.map(\.name)).union(stamped.removing)
        var output: [UInt8] = []
        output.reserveCapacity(file.count + 256)
        func put(_ line: String) { output += Array(ICalendarText.folded(line, lineEnd: lineEnd).utf8) }
        var seenInner = false
        var inOtherTask = false
        for index in lines.indices {
            let line = lines[index]
            if dropsOtherTasks, !task.contains(index), line.beginsTask || inOtherTask {
                // Through its END:VTODO, at the depth of its BEGIN.
                inOtherTask = !(line.depth == 0 && line.name == "END" && !line.beginsTask)
                continue
            }
            if task.contains(index) {
                // The task's own lines (depth 1), not its alarms'.
                if line.depth == 1, !line.isInner, owned.contains(line.name) {
                    // In place of the first line of its name; any further line of it goes.
                    if let at = pending.firstIndex(where: { $0.name == line.name }) { put(pending.remove(at: at).line) }
                    continue
                }
                // What the task had no line of comes before its first alarm, or its END.
                if !seenInner, (line.depth == 1 && line.name == "BEGIN") || index == task.upperBound - 1 {
                    seenInner = true
                    for new in pending { put(new.line) }
                    pending = []
                }
                if line.inAlarm, stamped.replacingAlarms != nil { continue }
                if index == task.upperBound - 1 { for alarm in stamped.replacingAlarms ?? [] { put(alarm) } }
            }
            output += file[line.bytes]
        }
        return output
    }

    /// The task's DUE line (of `own`, its own lines) with its instant moved to `due`, said in the same form: UTC, a
    /// named zone's wall time (`TZID`), a floating wall time, or a day (`VALUE=DATE`); and its DTSTART, if it has one,
    /// moved by as much wall time, as todoman moves a recurring task's start with its due date.
    private static func moved(_ own: [LogicalLine], to due: MovedDue) -> [String] {
        guard let line = own.first(where: { $0.name == "DUE" }) else { return [] }
        let (head, value) = split(line.text)
        // As the reader takes a TZID: a leading slash (a "globally unique" one) dropped, else nudged's zone.
        let tzid = parameter("TZID", of: head).map { $0.hasPrefix("/") ? String($0.dropFirst()) : $0 }
        let zone: TimeZone = value.hasSuffix("Z") ? .gmt : tzid.flatMap { TimeZone(identifier: $0) } ?? due.localZone
        let newWall = Int64(LocalTime(timeZone: zone).wallClock(at: due.instant).wall)
        let newValue = wallText(newWall, like: value)
        var lines = [head + ":" + newValue]
        if let start = own.first(where: { $0.name == "DTSTART" }), let oldWall = wallSeconds(value),
            let movedWall = wallSeconds(newValue)
        {
            let (startHead, startValue) = split(start.text)
            if let startWall = wallSeconds(startValue) {
                lines.append(startHead + ":" + wallText(startWall + movedWall - oldWall, like: startValue))
            }
        }
        return lines
    }

    /// A content line's name and parameters, and its value: split at the first colon outside quotes.
    private static func split(_ line: String) -> (head: String, value: String) {
        var quoted = false
        for index in line.indices {
            if line[index] == "\"" { quoted.toggle() }
            if line[index] == ":", !quoted {
                return (String(line[..<index]), String(line[line.index(after: index)...]))
            }
        }
        return (line, "")
    }

    /// The value of parameter `name` of a line's head, its quotes removed.
    private static func parameter(_ name: String, of head: String) -> String? {
        head.split(separator: ";").dropFirst().first { $0.uppercased().hasPrefix(name + "=") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }

    /// `20270120T090000Z`, `20270120T090000` or `20270120` as seconds of wall time since the epoch's wall time.
    private static func wallSeconds(_ value: String) -> Int64? {
        let digits = Array(value.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            range.upperBound <= digits.count ? Int64(String(decoding: digits[range], as: UTF8.self)) : nil
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
        guard digits.count >= 15 else { return days * CivilCalendar.secondsPerDay }
        guard let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15) else { return nil }
        return days * CivilCalendar.secondsPerDay + hour * 3600 + minute * 60 + second
    }

    /// Wall time `wall` in the form of `value`: a day alone, a wall time, or one in UTC.
    private static func wallText(_ wall: Int64, like value: String) -> String {
        let (days, seconds) = CivilCalendar.floorDivide(wall, CivilCalendar.secondsPerDay)
        let date = CivilCalendar.date(daysSinceEpoch: days)
        let day = String(format: "%04lld%02lld%02lld", date.year, date.month, date.day)
        guard value.count >= 15 else { return day }
        let time = String(format: "T%02lld%02lld%02lld", seconds / 3600, seconds / 60 % 60, seconds % 60)
        return day + time + (value.hasSuffix("Z") ? "Z" : "")
    }

    /// Whether a DUE or DTSTART content line gives a date alone (`VALUE=DATE`).
    private static func isDate(_ line: String) -> Bool {
        let head = line.prefix { $0 != ":" }.uppercased()
        return head.contains(";VALUE=DATE;") || head.hasSuffix(";VALUE=DATE")
    }

    /// The name of a content line's property, upper-cased.
    static func name(of line: some StringProtocol) -> String {
        String(line.prefix { $0 != ":" && $0 != ";" }).uppercased()
    }

    /// The range of lines from the task's BEGIN:VTODO to its END:VTODO.
    private static func task(in lines: [LogicalLine]) -> Range<Int>? {
        var index = 0
        while index < lines.count {
            guard lines[index].beginsTask else {
                index += 1
                continue
            }
            let start = index
            var isOverride = false
            index += 1
            while index < lines.count, !(lines[index].depth == 0 && lines[index].name == "END") {
                if lines[index].depth == 1, lines[index].name == "RECURRENCE-ID" { isOverride = true }
                index += 1
            }
            guard index < lines.count else { return nil }
            if !isOverride { return start..<(index + 1) }
            index += 1
        }
        return nil
    }
}

/// One content line of a file as written: its bytes (folded, with its line end), its property's name and value
/// unfolded, and how deep it is in the task it may be in (0 the task's BEGIN and END, 1 the task's own lines and
/// its alarms' BEGIN and END, 2 and more inside its alarms); outside a task, 0.
private struct LogicalLine {
    var bytes: Range<Int>
    var name: String
    var value: String
    /// The whole line, unfolded.
    var text: String
    var lineEnd: String
    var depth: Int
    /// A task's BEGIN:VTODO: one in the calendar, not inside another component.
    var beginsTask = false
    /// A line of a component inside the task (its BEGIN and END too), not the task's own.
    var isInner = false
    /// A line of one of the task's alarms.
    var inAlarm = false

    static func split(_ file: [UInt8]) -> [LogicalLine] {
        // Physical lines, each with its end.
        var physical: [Range<Int>] = []
        var start = 0
        for index in file.indices where file[index] == UInt8(ascii: "\n") {
            physical.append(start..<(index + 1))
            start = index + 1
        }
        if start < file.count { physical.append(start..<file.count) }
        var lines: [LogicalLine] = []
        var taskDepth: Int?
        // The components open outside any task: a VTODO inside another component (an X- one) is not the task.
        var outer: [String] = []
        // The task's inner component open now, by name (a VALARM).
        var inner: String?
        var index = 0
        while index < physical.count {
            var range = physical[index]
            var content = Self.content(file[physical[index]])
            index += 1
            // A line starting with a blank continues the one before.
            while index < physical.count, let first = file[physical[index]].first,
                first == UInt8(ascii: " ") || first == UInt8(ascii: "\t")
            {
                content += Self.content(file[physical[index]].dropFirst())
                range = range.lowerBound..<physical[index].upperBound
                index += 1
            }
            let text = String(decoding: content, as: UTF8.self).trimmingPrefix("\u{FEFF}")
            let name = TaskRewrite.name(of: text)
            let value = text.firstIndex(of: ":").map { String(text[text.index(after: $0)...]) } ?? ""
            let ends = file[range].suffix(2)
            let ending = ends.last != UInt8(ascii: "\n") ? "" : ends.first == UInt8(ascii: "\r") ? "\r\n" : "\n"
            var line = LogicalLine(
                bytes: range,
                name: name,
                value: value,
                text: String(text),
                lineEnd: ending,
                depth: 0
            )
            switch name {
            case "BEGIN":
                if let current = taskDepth {
                    line.depth = current + 1
                    taskDepth = current + 1
                    if current == 0 { inner = value.uppercased() }
                } else if value.uppercased() == "VTODO", outer.allSatisfy({ $0 == "VCALENDAR" }) {
                    taskDepth = 0
                    line.beginsTask = true
                } else {
                    outer.append(value.uppercased())
                }
            case "END":
                if let current = taskDepth {
                    line.depth = current
                    taskDepth = current == 0 ? nil : current - 1
                } else {
                    _ = outer.popLast()
                }
            default:
                line.depth = taskDepth.map { $0 + 1 } ?? 0
            }
            if inner != nil {
                line.isInner = true
                line.inAlarm = inner == "VALARM"
                // Its END, at the task's own depth, closes it.
                if name == "END", line.depth == 1 { inner = nil }
            }
            lines.append(line)
        }
        return lines
    }

    /// A physical line's bytes without its end.
    private static func content(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes
    }
}
