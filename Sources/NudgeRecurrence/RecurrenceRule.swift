import CICal
import NudgeCalendar

/// A wall-clock time without a zone, as an iCalendar DTSTART or a recurrence's occurrence gives it: the caller
/// places it in the zone that goes with it.
public struct WallTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year, month, day, hour, minute, second: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (
            year, month, day, hour, minute, second
        )
    }

    public static func < (a: WallTime, b: WallTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    /// `20270105T090000`, as iCalendar writes a floating DATE-TIME.
    public var description: String {
        func digits(_ value: Int, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        return digits(year, 4) + digits(month, 2) + digits(day, 2) + "T" + digits(hour, 2) + digits(minute, 2)
            + digits(second, 2)
    }

    /// Reads `20270105T090000`, as `description` writes it; nil for any other shape, or a date or time the
    /// calendar does not have (30 February, 24:00).
    public init?(_ text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 15, utf8[8] == UInt8(ascii: "T"),
            utf8.enumerated().allSatisfy({ $0.offset == 8 || (48...57).contains($0.element) })
        else { return nil }
        let digits = utf8.filter { $0 != UInt8(ascii: "T") }.map { Int($0) - 48 }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        self.init(
            year: number(0..<4),
            month: number(4..<6),
            day: number(6..<8),
            hour: number(8..<10),
            minute: number(10..<12),
            second: number(12..<14)
        )
        let days = CivilCalendar.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day))
        let civil = CivilCalendar.date(daysSinceEpoch: days)
        guard (1...12).contains(month), civil.year == Int64(year), civil.month == Int64(month), civil.day == Int64(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
    }

    /// Seconds since the epoch of this wall time counted as if it were UTC.
    public var secondsAsUTC: Int64 {
        CivilCalendar.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    fileprivate var icalTime: icaltimetype {
        var time = icaltime_null_time()
        (time.year, time.month, time.day) = (Int32(year), Int32(month), Int32(day))
        (time.hour, time.minute, time.second) = (Int32(hour), Int32(minute), Int32(second))
        return time
    }

    fileprivate init(_ time: icaltimetype) {
        self.init(
            year: Int(time.year),
            month: Int(time.month),
            day: Int(time.day),
            hour: Int(time.hour),
            minute: Int(time.minute),
            second: Int(time.second)
        )
    }
}

/// An RFC 5545 recurrence rule (an RRULE value: `FREQ=WEEKLY;INTERVAL=2;BYDAY=TU`), evaluated by libical, the
/// reference implementation, rather than by a hand-written one. It gives wall times; where they fall in time is the
/// zone's business (RFC 5545: a time a DST change skips is read with the offset before it, one it repeats is the
/// first).
public struct RecurrenceRule: Sendable, Hashable {
    /// The rule as given.
    public let text: String
    /// The rule libical iterates: `text` without an UNTIL in UTC, which bounds instants, not wall times.
    private let iterated: String
    /// The last instant (seconds since the epoch) an UNTIL in UTC allows.
    private let until: Int64?

    /// How many candidate times libical may step through for one question before the answer is "no more": a rule
    /// whose occurrences are that far apart, or that matches nothing (`FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`), ends
    /// there, and no question takes long.
    public static let maximumSteps = 1_000_000

    /// Reads `text`; an error names what libical could not read.
    public init(_ text: String) throws(RecurrenceRuleError) {
        try self.init(text, refusingMisreads: true)
    }

    /// `refusingMisreads: false` gives libical even what it evaluates wrongly: only for the oracle test, which
    /// checks that what `misreadParts` refuses is indeed misread.
    init(_ text: String, refusingMisreads: Bool) throws(RecurrenceRuleError) {
        guard !text.isEmpty, text.utf8.count <= 1000, !text.utf8.contains(0) else {
            throw RecurrenceRuleError(rule: text, reason: "it is empty, over 1,000 bytes, or holds a NUL")
        }
        icalerror_clear_errno()
        let rule = icalrecurrencetype_from_string(text)
        guard rule.freq != ICAL_NO_RECURRENCE, icalerrno_return().pointee == ICAL_NO_ERROR else {
            throw RecurrenceRuleError(
                rule: text,
                reason:
                    "libical cannot read \(Self.unreadPart(of: text).map { "\"\($0)\" in it" } ?? "it") as an RRULE "
                    + "value (RFC 5545 §3.3.10)"
            )
        }
        self.text = text
        var parts = text.split(separator: ";")
        if refusingMisreads, let misread = Self.misreadParts(text) {
            throw RecurrenceRuleError(
                rule: text,
                reason: "nudge's engine (libical 3.0) cannot repeat by \(misread.part) exactly; \(misread.instead)"
            )
        }
        // A value named twice in a BY part (BYDAY=FR,FR) means it once, but libical 3.0 then stops after a few
        // periods: it is given each once.
        parts = parts.map { part in
            guard part.uppercased().hasPrefix("BY"), let equals = part.firstIndex(of: "=") else { return part }
            var seen = Set<String>()
            let values = part[part.index(after: equals)...].split(separator: ",").filter {
                seen.insert($0.uppercased()).inserted
            }
            return part[...equals] + values.joined(separator: ",")
        }
        let names = Set(parts.map { $0.split(separator: "=").first.map { $0.uppercased() } ?? "" })
        // libical 3.0 keeps a yearly rule's days of the month to DTSTART's month, where RFC 5545 (and dateutil) take
        // every month's: said the way libical reads right, every month named.
        if rule.freq == ICAL_YEARLY_RECURRENCE, names.contains("BYMONTHDAY"), !names.contains("BYMONTH") {
            parts.append("BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12")
        }
        if let index = parts.firstIndex(where: { $0.uppercased().hasPrefix("UNTIL=") && $0.uppercased().hasSuffix("Z") }
        ) {
            let until = rule.until
            let days = CivilCalendar.daysSinceEpoch(
                year: Int64(until.year),
                month: Int64(until.month),
                day: Int64(until.day)
            )
            self.until = days * 86_400 + Int64(until.hour) * 3600 + Int64(until.minute) * 60 + Int64(until.second)
            parts.remove(at: index)
        } else {
            until = nil
        }
        iterated = parts.joined(separator: ";")
    }

    /// The first part of `text` libical cannot read on its own (with a FREQ before it), or nil.
    private static func unreadPart(of text: String) -> Substring? {
        text.split(separator: ";").first { part in
            icalerror_clear_errno()
            let read = icalrecurrencetype_from_string(
                part.uppercased().hasPrefix("FREQ=") ? String(part) : "FREQ=DAILY;\(part)"
            )
            return read.freq == ICAL_NO_RECURRENCE || icalerrno_return().pointee != ICAL_NO_ERROR
        }
    }

    /// What of `rule` libical 3.0 evaluates otherwise than RFC 5545 and python-dateutil (found by
    /// RecurrenceOracleTests and by review), in words, with what to write instead; or nil. Week numbers (BYWEEKNO);
    /// days of the year with days or months (BYYEARDAY with BYMONTHDAY or BYMONTH), of which it finds none; a week
    /// start other than Monday (WKST) where it matters, a weekly rule skipping weeks on several weekdays, which it
    /// ignores; hours on an hourly rule (BYHOUR with FREQ=HOURLY), where it loses INTERVAL and may give the start
    /// twice; days counted from a month's end on a daily or hourly rule (a negative BYMONTHDAY), which it drops;
    /// days of the month on a weekly rule, which RFC 5545 forbids and on which its iterator gives nothing; and
    /// BYSETPOS where it picks otherwise: on a weekly rule (ignored), on a daily or finer one beyond 1 and -1
    /// (ignored), among several times of a day (it picks days, then gives each all the times), and among days of the
    /// month or year a positive and a negative value can both name (counted twice, or the period skipped); and
    /// ordinal weekdays with days of the month on a yearly rule without months, which counts them in each month.
    public static func misreadParts(_ rule: String) -> (part: String, instead: String)? {
        var parts: [String: String] = [:]
        for part in rule.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            parts[String(pair[0])] = pair.count == 2 ? String(pair[1]) : ""
        }
        let frequency = parts["FREQ"] ?? ""
        if parts["BYWEEKNO"] != nil { return ("week number (BYWEEKNO)", "write the rule without it") }
        if parts["BYYEARDAY"] != nil, parts["BYMONTHDAY"] != nil || parts["BYMONTH"] != nil {
            return (
                "day of the year with months or days of the month (BYYEARDAY with BYMONTH or BYMONTHDAY)",
                "give the days one way"
            )
        }
        if frequency == "WEEKLY", let interval = parts["INTERVAL"].flatMap({ Int($0) }), interval > 1,
            let week = parts["WKST"], week != "MO", (parts["BYDAY"]?.split(separator: ",").count ?? 0) > 1
        {
            return (
                "a week starting on another day than Monday (WKST=\(week)) with INTERVAL and several BYDAY days",
                "write the rule without WKST"
            )
        }
        if let positions = parts["BYSETPOS"] {
            if frequency == "WEEKLY" {
                return ("positions in a week (BYSETPOS on an FREQ=WEEKLY rule)", "list in BYDAY only the days meant")
            }
            // Such a period has one occurrence, which 1 and -1 pick and nothing else does; libical gives it anyway.
            if ["DAILY", "HOURLY", "MINUTELY", "SECONDLY"].contains(frequency),
                positions.split(separator: ",").contains(where: { $0 != "1" && $0 != "-1" })
            {
                return (
                    "positions other than 1 and -1 (BYSETPOS=\(positions)) on an FREQ=\(frequency) rule",
                    "drop BYSETPOS: each period has one occurrence"
                )
            }
            let times = ["BYHOUR", "BYMINUTE", "BYSECOND"].reduce(1) { product, name in
                product * (parts[name].map { Set($0.split(separator: ",")).count } ?? 1)
            }
            if times > 1 {
                return (
                    "positions among several times of a day (BYSETPOS with \(times) from BYHOUR, BYMINUTE, BYSECOND)",
                    "give one time of day, or a rule per time"
                )
            }
            // Day d and day -n are one day in a month of d + n - 1 days, or a year of as many.
            for (name, lengths, unit) in [("BYMONTHDAY", 28...31, "month"), ("BYYEARDAY", 365...366, "year")] {
                let days = (parts[name] ?? "").split(separator: ",").compactMap { Int($0) }
                if days.contains(where: { day in day > 0 && days.contains { $0 < 0 && lengths ~= day - $0 - 1 } }) {
                    return (
                        "positions among days two values can both name (BYSETPOS with \(name)=\(parts[name] ?? ""))",
                        "count all the days from the \(unit)'s start, or all from its end"
                    )
                }
            }
        }
        // Days of the month on a yearly rule are given to libical with every month named (init), where an ordinal
        // weekday then counts within the month instead of the year.
        if frequency == "YEARLY", parts["BYMONTHDAY"] != nil, parts["BYMONTH"] == nil,
            parts["BYDAY"]?.contains(where: \.isNumber) == true
        {
            return (
                "weekdays counted in the year (BYDAY=\(parts["BYDAY"] ?? "")) with days of the month (BYMONTHDAY)",
                "name the months (BYMONTH), or give the weekdays without a number"
            )
        }
        if ["HOURLY", "MINUTELY", "SECONDLY"].contains(frequency), parts["BYHOUR"] != nil {
            return ("hours (BYHOUR) on an FREQ=\(frequency) rule", "say it as FREQ=DAILY with BYHOUR")
        }
        if ["DAILY", "HOURLY", "MINUTELY", "SECONDLY"].contains(frequency),
            parts["BYMONTHDAY"]?.contains("-") == true
        {
            let days = parts["BYMONTHDAY"] ?? ""
            return (
                "days counted from the month's end (BYMONTHDAY=\(days)) on an FREQ=\(frequency) rule",
                "say it as FREQ=MONTHLY with BYMONTHDAY"
            )
        }
        if frequency == "WEEKLY", parts["BYMONTHDAY"] != nil {
            return ("days of the month (BYMONTHDAY) on a weekly rule", "RFC 5545 forbids it: give FREQ=MONTHLY")
        }
        return nil
    }

    /// An occurrence: the wall time libical gives, the instant (seconds since the epoch) the caller placed it at,
    /// and how many wall times libical gave before it (what COUNT counts).
    public struct Occurrence: Sendable, Hashable {
        public let wall: WallTime
        public let instant: Int64
        public let step: Int
    }

    /// A wall time libical gave and how many it gave before it: the rule counted from there (COUNT lessened by
    /// `step`) gives the same wall times from there on. libical cannot resume an iterator elsewhere
    /// (icalrecur_iterator_set_start loses an INTERVAL's step), so a caller keeps one of these instead.
    public struct Step: Sendable, Hashable {
        public let wall: WallTime
        public let step: Int

        public init(wall: WallTime, step: Int) {
            (self.wall, self.step) = (wall, step)
        }
    }

    /// A wall time is placed within 26 hours of itself (the widest offsets from UTC).
    public static let placingSlack: Int64 = 26 * 3600

    /// The first `limit` occurrences after `after` and at or before `through` of the rule from `start` (its
    /// DTSTART, which the rule should match: RFC 5545 leaves a start it does not match undefined), each wall time
    /// placed in time by `place`, in order and each instant once; and the last wall time passed over as too early to
    /// matter, from which a later question may be asked (`Step`).
    public func occurrences(
        start: WallTime,
        after: Int64,
        through: Int64 = .max,
        limit: Int,
        placing place: (WallTime) -> Int64
    ) -> (found: [Occurrence], passed: Step?) {
        guard limit > 0 else { return ([], nil) }
        // From the start every time: libical's icalrecur_iterator_set_start loses an INTERVAL's step.
        guard let iterator = icalrecur_iterator_new(icalrecurrencetype_from_string(iterated), start.icalTime)
        else { return ([], nil) }
        defer { icalrecur_iterator_free(iterator) }
        // A wall time that far before `after` is passed over unplaced, and once one is that far past the bound, none
        // after it can come within it.
        let slack = Self.placingSlack
        var passed: Step?
        var bound = Swift.min(through, until ?? .max)
        var found: [Occurrence] = []
        var seen = Set<Int64>()
        var steps = 0
        for step in 0..<Self.maximumSteps {
            steps = step + 1
            let next = icalrecur_iterator_next(iterator)
            guard icaltime_is_null_time(next) == 0 else { break }
            let wall = WallTime(next)
            if bound < .max - slack, wall.secondsAsUTC - slack > bound { break }
            if wall.secondsAsUTC + slack <= after {
                passed = Step(wall: wall, step: step)
                continue
            }
            // A DST gap can place a later wall time before an earlier one (02:45 at 03:45, 03:00 at 03:00): kept
            // in order of instants, each once.
            let instant = place(wall)
            guard instant > after, instant <= bound, seen.insert(instant).inserted else { continue }
            found.append(Occurrence(wall: wall, instant: instant, step: step))
            if found.count >= limit {
                found.sort { $0.instant < $1.instant }
                found.removeLast(found.count - limit)
                bound = found[found.count - 1].instant
            }
        }
        // A walk cut short by the step bound answers "no more"; resumed from its end, a later one would not.
        return (found.sorted { $0.instant < $1.instant }, steps < Self.maximumSteps ? passed : nil)
    }
}

extension RecurrenceRule {
    /// The rule's value with its COUNT replaced by `count` (and its parts otherwise as given).
    public func withCount(_ count: Int) -> String {
        text.split(separator: ";").map { $0.uppercased().hasPrefix("COUNT=") ? "COUNT=\(count)" : String($0) }
            .joined(separator: ";")
    }

    /// The value of its part `name` (upper-case: `COUNT`), as written, or nil.
    public func part(_ name: String) -> Substring? {
        text.split(separator: ";").first { $0.uppercased().hasPrefix(name + "=") }.map { $0.dropFirst(name.count + 1) }
    }

    /// The rule's COUNT, if it has one.
    public var count: Int? { part("COUNT").flatMap { Int($0) } }

    /// Its frequency, upper-cased: `WEEKLY`.
    public var frequency: String { part("FREQ")?.uppercased() ?? "" }
}

/// Why an RRULE was not taken.
public struct RecurrenceRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: String
    public let reason: String

    public var description: String { "RRULE \"\(rule)\": \(reason)" }
}
