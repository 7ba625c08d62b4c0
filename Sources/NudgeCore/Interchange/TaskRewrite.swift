import Foundation

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

    public init(setting: [String] = [], removing: Set<String> = []) {
        self.setting = setting
        self.removing = removing
    }

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
        return TaskRewrite(
            setting: setting.filter { !names.contains(Self.name(of: $0)) } + other.setting,
            removing: removing.subtracting(names).union(other.removing)
        )
    }

    /// `file` (the bytes of a task file, one VTODO) with this rewrite made at `now` to its task: the first VTODO
    /// that is not a recurrence's override (no RECURRENCE-ID). Throws if the file holds no task.
    public func applied(to file: [UInt8], now: Date) throws(ModelError) -> [UInt8] {
        let lines = LogicalLine.split(file)
        guard let task = Self.task(in: lines) else {
            throw ModelError(
                code: .calendarNotUnderstood,
                description: "the file holds no task (BEGIN:VTODO) to change"
            )
        }
        let sequence =
            lines[task].first { $0.depth == 1 && $0.name == "SEQUENCE" }
            .flatMap { Int($0.value.trimmingCharacters(in: .whitespaces)) } ?? 0
        let stamp = CalendarInterchange.utc(now)
        let stamped = merged(
            with: TaskRewrite(setting: ["DTSTAMP:" + stamp, "LAST-MODIFIED:" + stamp, "SEQUENCE:\(sequence + 1)"])
        )
        let lineEnd = lines.first.map(\.lineEnd).flatMap { $0.isEmpty ? nil : $0 } ?? "\r\n"
        var pending = stamped.setting.map { (name: Self.name(of: $0), line: $0) }
        let owned = Set(pending.map(\.name)).union(stamped.removing)
        var output: [UInt8] = []
        output.reserveCapacity(file.count + 256)
        func put(_ line: String) { output += Array(ICalendarText.folded(line, lineEnd: lineEnd).utf8) }
        var seenInner = false
        for index in lines.indices {
            let line = lines[index]
            if task.contains(index) {
                // The task's own lines (depth 1), not its alarms'.
                if line.depth == 1, owned.contains(line.name) {
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
            }
            output += file[line.bytes]
        }
        return output
    }

    /// The name of a content line's property, upper-cased.
    static func name(of line: some StringProtocol) -> String {
        String(line.prefix { $0 != ":" && $0 != ";" }).uppercased()
    }

    /// The range of lines from the task's BEGIN:VTODO to its END:VTODO.
    private static func task(in lines: [LogicalLine]) -> Range<Int>? {
        var index = 0
        while index < lines.count {
            guard lines[index].name == "BEGIN", lines[index].value.uppercased() == "VTODO" else {
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
    var lineEnd: String
    var depth: Int

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
            var depth = 0
            switch name {
            case "BEGIN":
                if let current = taskDepth {
                    depth = current + 1
                    taskDepth = current + 1
                } else if value.uppercased() == "VTODO" {
                    taskDepth = 0
                }
            case "END":
                if let current = taskDepth {
                    depth = current
                    taskDepth = current == 0 ? nil : current - 1
                }
            default:
                depth = taskDepth.map { $0 + 1 } ?? 0
            }
            lines.append(LogicalLine(bytes: range, name: name, value: value, lineEnd: ending, depth: depth))
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
