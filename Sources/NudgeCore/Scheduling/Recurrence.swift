import Foundation
import NudgeRecurrence
import Synchronization

/// An RFC 5545 recurrence as an item's repeat: an RRULE counted from its DTSTART, EXDATEs taken out and RDATEs
/// added, written as the iCalendar lines that say it, on one line:
/// `DTSTART;TZID=America/Chicago:20270105T090000 RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU`.
///
/// libical evaluates the rule (`RecurrenceRule`); each wall time it gives is placed in the start's zone as RFC 5545
/// says (`LocalTime.calendarInstant`): UTC, a named zone, or, for a floating start, the zone the caller passes
/// (nudged's), as a calendar expression without a zone is. Exceptions and additions are wall times in the same zone.
public struct Recurrence: Sendable, Hashable {
    public let rule: RecurrenceRule
    public let start: WallTime
    public let zone: RecurrenceRuleMapping.Zone
    /// EXDATE: occurrences taken out, sorted.
    public let exceptions: [WallTime]
    /// RDATE: occurrences added, sorted.
    public let additions: [WallTime]
    /// The lines that say it, on one line: DTSTART, RRULE, then EXDATE and RDATE if any.
    public let text: String

    /// The most occurrences a day a repeat may have: it is evaluated from its start (libical loses an INTERVAL's step
    /// when started elsewhere), or from where it was last found standing (`resumePoints`), so one of minutes or
    /// seconds would reach `RecurrenceRule.maximumSteps` within days or years and stop; at 24 a day that takes over a
    /// century. A calendar expression (`*:0/5`) repeats
    /// more often, without counting from a start.
    public static let maximumPerDay = 24

    /// How many times a day `rule` can come at most: its hours (24 for an hourly rule), minutes and seconds.
    static func perDay(_ rule: RecurrenceRule) -> Int {
        func count(_ name: String) -> Int? { rule.part(name).map { $0.split(separator: ",").count } }
        switch rule.frequency {
        case "SECONDLY": return 86_400
        case "MINUTELY": return 1_440 * (count("BYSECOND") ?? 1)
        case "HOURLY": return 24 * (count("BYMINUTE") ?? 1) * (count("BYSECOND") ?? 1)
        default: return (count("BYHOUR") ?? 1) * (count("BYMINUTE") ?? 1) * (count("BYSECOND") ?? 1)
        }
    }

    public init(
        rule: RecurrenceRule,
        start: WallTime,
        zone: RecurrenceRuleMapping.Zone,
        exceptions: [WallTime] = [],
        additions: [WallTime] = []
    ) {
        self.rule = rule
        self.start = start
        self.zone = zone
        self.exceptions = Array(Set(exceptions)).sorted()
        self.additions = Array(Set(additions)).sorted()
        text = Self.text(
            rule: rule,
            start: start,
            zone: zone,
            exceptions: self.exceptions,
            additions: self.additions
        )
    }

    /// Whether `text` is a recurrence rather than a calendar expression: its first line is an RRULE or a DTSTART.
    public static func isRecurrence(_ text: String) -> Bool {
        let head = text.drop { $0.isWhitespace }.prefix(8).uppercased()
        return head.hasPrefix("RRULE:") || head.hasPrefix("DTSTART")
    }

    /// Reads the lines of `text` (separated by spaces or line breaks): one RRULE, at most one DTSTART (a DATE-TIME,
    /// floating, UTC or with a TZID), and any EXDATE and RDATE in the start's zone. Without a DTSTART, the rule
    /// starts at `defaultStart`, floating.
    public init(parsing text: String, defaultStart: WallTime?) throws(ModelError) {
        var lines: [String: (parameters: [String: String], value: String)] = [:]
        var exceptionLines: [(parameters: [String: String], value: String)] = []
        var additionLines: [(parameters: [String: String], value: String)] = []
        for line in text.split(whereSeparator: \.isWhitespace) {
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidRecurrence(text, "\"\(line)\" is not NAME:VALUE, as DTSTART:20270105T090000 is")
            }
            var parameters: [String: String] = [:]
            let nameAndParameters = line[..<colon].split(separator: ";")
            let name = nameAndParameters.first.map { $0.uppercased() } ?? ""
            for parameter in nameAndParameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { throw .invalidRecurrence(text, "\"\(parameter)\" is not NAME=VALUE") }
                parameters[pair[0].uppercased()] = String(pair[1])
            }
            let entry = (parameters, String(line[line.index(after: colon)...]))
            switch name {
            case "RRULE", "DTSTART":
                guard lines[name] == nil else { throw .invalidRecurrence(text, "it has two \(name) lines; give one") }
                lines[name] = entry
            case "EXDATE": exceptionLines.append(entry)
            case "RDATE": additionLines.append(entry)
            default:
                throw .invalidRecurrence(
                    text,
                    "\"\(name)\" is not a part of a recurrence: give RRULE, DTSTART, EXDATE or RDATE"
                )
            }
        }
        guard let ruleLine = lines["RRULE"] else {
            throw .invalidRecurrence(text, "it has no RRULE line, like RRULE:FREQ=WEEKLY")
        }
        guard ruleLine.parameters.isEmpty else { throw .invalidRecurrence(text, "RRULE takes no parameters") }
        let rule = try Self.rule(ruleLine.value)
        let perDay = Self.perDay(rule)
        guard perDay <= Self.maximumPerDay else {
            throw .invalidRecurrence(
                text,
                "it comes up to \(perDay) times a day, and a repeat by RRULE at most \(Self.maximumPerDay) (hourly); "
                    + "for every few minutes give a calendar expression, like *:0/5"
            )
        }
        let start: WallTime
        var zone = RecurrenceRuleMapping.Zone.floating
        if let startLine = lines["DTSTART"] {
            (start, zone) = try Self.wallTime(startLine.value, parameters: startLine.parameters, in: text)
        } else if let defaultStart {
            start = defaultStart
        } else {
            throw .invalidRecurrence(text, "it has no DTSTART")
        }
        func walls(_ entries: [(parameters: [String: String], value: String)]) throws(ModelError) -> [WallTime] {
            var found: [WallTime] = []
            for entry in entries {
                for value in entry.value.split(separator: ",") {
                    let (wall, itsZone) = try Self.wallTime(String(value), parameters: entry.parameters, in: text)
                    guard itsZone == zone else {
                        throw .invalidRecurrence(text, "EXDATE and RDATE are given in the zone of DTSTART")
                    }
                    found.append(wall)
                }
            }
            return found
        }
        self.init(
            rule: rule,
            start: start,
            zone: zone,
            exceptions: try walls(exceptionLines),
            additions: try walls(additionLines)
        )
    }

    /// An RRULE value, read by libical.
    public static func rule(_ value: String) throws(ModelError) -> RecurrenceRule {
        do {
            return try RecurrenceRule(value)
        } catch {
            throw .invalidRecurrence(
                "RRULE:" + value,
                error.reason + "; an RRULE value is like FREQ=WEEKLY;INTERVAL=2;BYDAY=TU"
            )
        }
    }

    /// The lines, on one line: DTSTART, RRULE, then EXDATE and RDATE if any.
    private static func text(
        rule: RecurrenceRule,
        start: WallTime,
        zone: RecurrenceRuleMapping.Zone,
        exceptions: [WallTime],
        additions: [WallTime]
    ) -> String {
        let parameters: String
        let suffix: String
        switch zone {
        case .utc: (parameters, suffix) = ("", "Z")
        case .floating: (parameters, suffix) = ("", "")
        case .named(let name): (parameters, suffix) = (";TZID=" + name, "")
        }
        func list(_ walls: [WallTime]) -> String { walls.map { $0.description + suffix }.joined(separator: ",") }
        var lines = ["DTSTART\(parameters):\(start)\(suffix)", "RRULE:" + rule.text]
        if !exceptions.isEmpty { lines.append("EXDATE\(parameters):" + list(exceptions)) }
        if !additions.isEmpty { lines.append("RDATE\(parameters):" + list(additions)) }
        return lines.joined(separator: " ")
    }

    /// The zone its wall times are in, the caller's for a floating start; nil for a zone this system does not know.
    public func timeZone(local: TimeZone) -> TimeZone? {
        switch zone {
        case .utc: TimeZone(identifier: "UTC")
        case .floating: local
        case .named(let name): TimeZone(identifier: name)
        }
    }

    /// Places its wall times in time (seconds since the epoch) in its zone; nil for a zone this system does not know.
    private func placing(in local: TimeZone) -> ((WallTime) -> Int64)? {
        timeZone(local: local).map { zone in
            let localTime = LocalTime(timeZone: zone)
            return { Int64(localTime.calendarInstant(forWall: Int($0.secondsAsUTC))) }
        }
    }

    /// The instant its DTSTART names.
    public func startInstant(in local: TimeZone) -> Date? {
        placing(in: local).map { Date(timeIntervalSince1970: TimeInterval($0(start))) }
    }

    /// Its occurrences strictly after `instant` and at or before `through`, soonest first, at most `limit`; with
    /// `resuming` false, counted from its start (for tests of what resuming gives).
    public func occurrences(
        after instant: Date,
        through: Date? = nil,
        limit: Int,
        in local: TimeZone,
        resuming: Bool = true
    ) -> [Date] {
        guard limit > 0, let place = placing(in: local) else { return [] }
        // Whole seconds: an occurrence after `instant` is one after its whole second.
        let after = Int64(instant.timeIntervalSince1970.rounded(.down))
        let last = through.map { Int64($0.timeIntervalSince1970.rounded(.down)) } ?? .max
        let excluded = Set(exceptions.map(place)).filter { $0 > after && $0 <= last }
        // From where a question before found the series standing, if that is before this one's: the same wall
        // times from there, without walking libical from a start years back.
        let key = text + " " + local.identifier
        let resume = Self.resumePoints.withLock { $0[key] }.flatMap {
            resuming && $0.wall.secondsAsUTC + RecurrenceRule.placingSlack <= after ? $0 : nil
        }
        let resumed = resume.flatMap { point in counted(from: point).map { (point, $0) } }
        let series = resumed?.1 ?? self
        // Enough to have `limit` left once the exceptions are out.
        let (fromRule, passed) = series.rule.occurrences(
            start: series.start,
            after: after,
            through: last,
            limit: limit > Int.max - excluded.count ? limit : limit + excluded.count,
            placing: place
        )
        if let passed, passed.step > 0 {
            let point = RecurrenceRule.Step(wall: passed.wall, step: passed.step + (resumed?.0.step ?? 0))
            // Only ever forward: a question about earlier occurrences leaves the point where it was.
            Self.resumePoints.withLock { points in
                guard point.step > points[key]?.step ?? 0 else { return }
                if points.count >= Self.resumePointLimit { points.removeAll(keepingCapacity: true) }
                points[key] = point
            }
        }
        let added = additions.map(place).filter { $0 > after && $0 <= last }
        let instants = Set(fromRule.map(\.instant)).subtracting(excluded).union(added).sorted().prefix(limit)
        return instants.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Where each series was last found standing (a wall time of its rule's and the count before it), by its text
    /// and the zone that places a floating one; later questions start there. Shared by every copy of a rule, as the
    /// store, the scheduler and each change parse their own; cleared when it holds `resumePointLimit`.
    private static let resumePoints = Mutex<[String: RecurrenceRule.Step]>([:])
    private static let resumePointLimit = 10_000

    /// The same recurrence counted from a wall time its rule gives (`RecurrenceRule.Step`): DTSTART moved there and
    /// COUNT lessened by the wall times before it. From there on it gives the same occurrences (RecurrenceRepeatTests).
    private func counted(from point: RecurrenceRule.Step) -> Recurrence? {
        var moved = rule
        if let count = rule.count {
            guard count > point.step, let counted = try? RecurrenceRule(rule.withCount(count - point.step)) else {
                return nil
            }
            moved = counted
        }
        return Recurrence(rule: moved, start: point.wall, zone: zone, exceptions: exceptions, additions: additions)
    }

    /// The same occurrences from `occurrence` on, counted from it: DTSTART moved there (COUNT lessened by the
    /// occurrences before it), and exceptions and additions before it left out. What other programs need to see the
    /// series where it stands, since each takes DTSTART for its first due date. Nil when `occurrence` is not one of
    /// the rule's own (an addition, or no occurrence at all): counted from there, the rule would say other times.
    public func startingAt(_ occurrence: Date, in local: TimeZone) -> Recurrence? {
        guard let place = placing(in: local) else { return nil }
        let instant = Int64(occurrence.timeIntervalSince1970.rounded(.down))
        // The wall time libical gave for it, not the occurrence's own: one a DST gap moved keeps its hour.
        guard
            let found = rule.occurrences(start: start, after: instant - 1, through: instant, limit: 1, placing: place)
                .found.first,
            let counted = counted(from: RecurrenceRule.Step(wall: found.wall, step: found.step))
        else { return nil }
        return Recurrence(
            rule: counted.rule,
            start: counted.start,
            zone: zone,
            exceptions: exceptions.filter { place($0) > instant },
            additions: additions.filter { place($0) > instant }
        )
    }

    /// The wall time of an instant in `zone`, to the second.
    static func wallTime(of instant: Date, in zone: TimeZone) -> WallTime {
        let wall = LocalTime(timeZone: zone).wallClock(at: instant).wall
        let days = LocalTime.floorDiv(wall, 86_400)
        let (year, month, day) = LocalTime.civil(days: days)
        let second = wall - days * 86_400
        return WallTime(
            year: year,
            month: month,
            day: day,
            hour: second / 3600,
            minute: second / 60 % 60,
            second: second % 60
        )
    }

    /// A DATE-TIME value (`20270105T090000`, `…Z`) with its TZID parameter, if any.
    private static func wallTime(_ value: String, parameters: [String: String], in text: String)
        throws(ModelError) -> (WallTime, RecurrenceRuleMapping.Zone)
    {
        if let kind = parameters["VALUE"], kind.uppercased() != "DATE-TIME" {
            throw .invalidRecurrence(text, "a time is a DATE-TIME (20270105T090000), not VALUE=\(kind)")
        }
        let isUTC = value.hasSuffix("Z")
        guard let wall = WallTime(isUTC ? value.dropLast() : value[...]) else {
            throw .invalidRecurrence(
                text,
                "\"\(value)\" is not a date and time of the calendar written 20270105T090000 (or 20270105T090000Z "
                    + "in UTC)"
            )
        }
        let zone: RecurrenceRuleMapping.Zone
        switch (parameters["TZID"], isUTC) {
        case (let name?, false):
            guard TimeZone(identifier: name) != nil else {
                throw .invalidRecurrence(text, "TZID=\(name) is not a time zone this system knows")
            }
            zone = .named(name)
        case (nil, true): zone = .utc
        case (nil, false): zone = .floating
        case (_?, true): throw .invalidRecurrence(text, "\"\(value)\" is UTC and has a TZID too")
        }
        return (wall, zone)
    }
}
