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
        guard !text.isEmpty, text.utf8.count <= 1000, !text.utf8.contains(0) else {
            throw RecurrenceRuleError(rule: text, reason: "it is empty, over 1,000 bytes, or holds a NUL")
        }
        icalerror_clear_errno()
        let rule = icalrecurrencetype_from_string(text)
        guard rule.freq != ICAL_NO_RECURRENCE, icalerrno_return().pointee == ICAL_NO_ERROR else {
            throw RecurrenceRuleError(rule: text, reason: "libical cannot read it as an RRULE value (RFC 5545 §3.3.10)")
        }
        self.text = text
        var parts = text.split(separator: ";")
        if let misread = Self.misreadParts(text) {
            throw RecurrenceRuleError(
                rule: text,
                reason: "nudge's engine (libical 3.0) cannot repeat by \(misread) exactly; write the rule without it"
            )
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

    /// What of `rule` libical 3.0 evaluates otherwise than RFC 5545 and python-dateutil (found by
    /// RecurrenceOracleTests), in words, or nil: week numbers (BYWEEKNO); days of the year with days or months
    /// (BYYEARDAY with BYMONTHDAY or BYMONTH), of which it finds none; and a week start other than Monday (WKST)
    /// where it matters, a weekly rule skipping weeks on several weekdays, which it ignores.
    public static func misreadParts(_ rule: String) -> String? {
        var parts: [String: String] = [:]
        for part in rule.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            parts[String(pair[0])] = pair.count == 2 ? String(pair[1]) : ""
        }
        if parts["BYWEEKNO"] != nil { return "week number (BYWEEKNO)" }
        if parts["BYYEARDAY"] != nil, parts["BYMONTHDAY"] != nil || parts["BYMONTH"] != nil {
            return "day of the year with months or days of the month (BYYEARDAY with BYMONTH or BYMONTHDAY)"
        }
        if parts["FREQ"] == "WEEKLY", let interval = parts["INTERVAL"].flatMap({ Int($0) }), interval > 1,
            let week = parts["WKST"], week != "MO", (parts["BYDAY"]?.split(separator: ",").count ?? 0) > 1
        {
            return "a week starting on another day than Monday (WKST=\(week)) with INTERVAL and several BYDAY days"
        }
        return nil
    }

    /// The first `limit` instants (seconds since the epoch) after `after` of the rule's occurrences from `start`
    /// (its DTSTART, which the rule should match: RFC 5545 leaves a start it does not match undefined), each wall
    /// time placed in time by `place`, in order and each once.
    public func occurrences(start: WallTime, after: Int64, limit: Int, placing place: (WallTime) -> Int64) -> [Int64] {
        // From the start every time: libical's icalrecur_iterator_set_start loses an INTERVAL's step.
        guard limit > 0, let iterator = icalrecur_iterator_new(icalrecurrencetype_from_string(iterated), start.icalTime)
        else { return [] }
        defer { icalrecur_iterator_free(iterator) }
        var found: [Int64] = []
        for _ in 0..<Self.maximumSteps {
            let next = icalrecur_iterator_next(iterator)
            guard icaltime_is_null_time(next) == 0 else { break }
            let instant = place(WallTime(next))
            if let until, instant > until { break }
            // A wall time a DST change skips lands where the next one does: each instant once.
            guard instant > after, instant != found.last else { continue }
            found.append(instant)
            if found.count == limit { break }
        }
        return found
    }
}

/// Why an RRULE was not taken.
public struct RecurrenceRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: String
    public let reason: String

    public var description: String { "RRULE \"\(rule)\": \(reason)" }
}
