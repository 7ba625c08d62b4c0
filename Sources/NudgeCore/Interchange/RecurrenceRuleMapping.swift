import Foundation
import NudgeCalendar
import NudgeRecurrence

/// Between systemd calendar expressions (nudge's repeat rules) and iCalendar recurrence rules (RRULE, RFC 5545
/// §3.3.10), both ways, where one says exactly what the other does.
///
/// An expression says which wall times match: sets of weekdays, months, days, hours, minutes and seconds, every
/// combination of them. An RRULE whose BY-parts are all given says the same thing, so every expression without
/// years, `~` (days from the month's end), fractions of a second or a zone other than UTC has an exact RRULE. The
/// other way, an RRULE that repeats every period (INTERVAL 1), without end (no COUNT or UNTIL) and without
/// ordinals (`1MO`), negative days or BYSETPOS, BYYEARDAY, BYWEEKNO, has an exact expression.
public enum RecurrenceRuleMapping {
    /// The RRULE value for `spec`, and where its wall times are: UTC, the zone the expression names (a DTSTART with
    /// that TZID), or the local zone (a floating DTSTART). Nil when no RRULE says exactly the same.
    public static func recurrenceRule(for spec: CalendarSpec) -> (rule: String, zone: Zone)? {
        let pattern = spec.pattern
        guard pattern.years == nil, !pattern.daysFromMonthEnd, pattern.dstFlag < 0 else { return nil }
        let unit = CalendarPattern.microsecondsPerSecond
        guard let seconds = values(pattern.seconds, in: 0...(60 * unit - 1)), seconds.allSatisfy({ $0 % unit == 0 })
        else { return nil }
        let months = values(pattern.months, in: 1...12)
        let days = values(pattern.days, in: 1...31)
        let weekdays =
            pattern.weekdayBits > 0 && pattern.weekdayBits < CalendarPattern.allWeekdays
            ? (0..<7).filter { pattern.weekdayBits & (1 << $0) != 0 } : nil
        let frequency: String
        switch (months != nil, days != nil, weekdays != nil) {
        case (false, false, true): frequency = "WEEKLY"
        case (false, true, false): frequency = "MONTHLY"
        case (true, true, false): frequency = "YEARLY"
        default: frequency = "DAILY"
        }
        var parts = ["FREQ=" + frequency]
        func add(_ name: String, _ list: [Int]?) {
            if let list { parts.append(name + "=" + list.map(String.init).joined(separator: ",")) }
        }
        add("BYMONTH", months)
        add("BYMONTHDAY", days)
        if let weekdays { parts.append("BYDAY=" + weekdays.map { weekdayCodes[$0] }.joined(separator: ",")) }
        add("BYHOUR", values(pattern.hours, in: 0...23) ?? Array(0...23))
        add("BYMINUTE", values(pattern.minutes, in: 0...59) ?? Array(0...59))
        add("BYSECOND", seconds.map { $0 / unit })
        let zone: Zone = pattern.isUTC ? .utc : pattern.zoneName.map(Zone.named) ?? .floating
        return (parts.joined(separator: ";"), zone)
    }

    /// Where the wall times of an RRULE's DTSTART are: UTC, a named zone, or floating (the local zone).
    public enum Zone: Sendable, Hashable {
        case utc
        case named(String)
        case floating
    }

    /// The calendar expression that matches exactly the times `rule` (an RRULE value) gives from `start`, or why
    /// there is none.
    public static func expression(for rule: String, start: WallTime, zone: Zone) throws(Unmapped) -> String {
        var fields: [String: String] = [:]
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw Unmapped("\"\(part)\" is not NAME=VALUE") }
            fields[pair[0].uppercased()] = pair[1].uppercased()
        }
        for name in ["COUNT", "UNTIL"] where fields[name] != nil {
            throw Unmapped("it ends (\(name)), and a repeat rule does not")
        }
        for name in ["BYSETPOS", "BYYEARDAY", "BYWEEKNO"] where fields[name] != nil {
            throw Unmapped("a calendar expression has nothing like \(name)")
        }
        if let interval = fields["INTERVAL"], interval != "1" {
            throw Unmapped("it repeats every \(interval) periods; a calendar expression repeats every one")
        }
        let frequency = fields["FREQ"] ?? ""
        guard ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"].contains(frequency) else {
            throw Unmapped("FREQ=\(frequency) is not one nudge can repeat at")
        }
        func numbers(_ name: String, _ range: ClosedRange<Int>) throws(Unmapped) -> [Int]? {
            guard let text = fields[name] else { return nil }
            return try text.split(separator: ",").map { item throws(Unmapped) in
                guard let value = Int(item), range.contains(value) else {
                    throw Unmapped("\(name)=\(text): \(item) is not in \(range.lowerBound)…\(range.upperBound)")
                }
                return value
            }
        }
        let byDay = try fields["BYDAY"].map { text throws(Unmapped) in
            try text.split(separator: ",").map { code throws(Unmapped) in
                guard let index = weekdayCodes.firstIndex(of: String(code)) else {
                    throw Unmapped("BYDAY=\(text): \(code) counts weekdays within a period (an ordinal)")
                }
                return index
            }
        }
        let byMonth = try numbers("BYMONTH", 1...12)
        let byMonthDay = try numbers("BYMONTHDAY", 1...31)
        let byHour = try numbers("BYHOUR", 0...23)
        let byMinute = try numbers("BYMINUTE", 0...59)
        let bySecond = try numbers("BYSECOND", 0...59)
        if frequency == "WEEKLY", byMonthDay != nil {
            throw Unmapped("BYMONTHDAY does not apply to FREQ=WEEKLY")
        }
        // What RFC 5545 takes from DTSTART when a part is not given.
        var weekdays = byDay
        var months = byMonth
        var days = byMonthDay
        switch frequency {
        case "YEARLY":
            if months == nil, days == nil, byDay == nil { months = [start.month] }
            if days == nil, byDay == nil { days = [start.day] }
        case "MONTHLY":
            if days == nil, byDay == nil { days = [start.day] }
        case "WEEKLY":
            if weekdays == nil {
                // DTSTART's weekday, 0 Monday.
                let days = LocalTime.days(year: start.year, month: start.month, day: start.day)
                weekdays = [(LocalTime.weekday(ofDays: days) + 6) % 7]
            }
        default: break
        }
        let hours = byHour ?? (["HOURLY", "MINUTELY"].contains(frequency) ? nil : [start.hour])
        let minutes = byMinute ?? (frequency == "MINUTELY" ? nil : [start.minute])
        let seconds = bySecond ?? [start.second]
        func list(_ values: [Int]?, width: Int) -> String {
            guard let values else { return "*" }
            return Set(values).sorted().map { String(format: "%0\(width)d", $0) }.joined(separator: ",")
        }
        var expression = ""
        if let weekdays {
            expression += Set(weekdays).sorted().map { weekdayNames[$0] }.joined(separator: ",") + " "
        }
        expression += "*-\(list(months, width: 2))-\(list(days, width: 2)) "
        expression += "\(list(hours, width: 2)):\(list(minutes, width: 2)):\(list(seconds, width: 2))"
        switch zone {
        case .utc: expression += " UTC"
        case .named(let name): expression += " " + name
        case .floating: break
        }
        return expression
    }

    /// Whether two RRULE values say the same, whatever the order of their parts and of the values in a part
    /// (programs rewrite them: `BYDAY=MO,TU;FREQ=WEEKLY` is `FREQ=WEEKLY;BYDAY=TU,MO`).
    public static func sameRule(_ a: String, _ b: String) -> Bool {
        func normalized(_ rule: String) -> [String: Set<Substring>] {
            var values = parts(of: rule).mapValues { Set($0.split(separator: ",")) }
            // INTERVAL=1 is the default.
            if values["INTERVAL"] == ["1"] { values["INTERVAL"] = nil }
            return values
        }
        return normalized(a) == normalized(b)
    }

    /// The parts of an RRULE that place its occurrences by fields of the start (`BYDAY=MO`, `BYHOUR=9`), as written.
    public static func byParts(of rule: String) -> [String] {
        rule.split(separator: ";").filter { $0.uppercased().hasPrefix("BY") }.map(String.init)
    }

    /// An RRULE value's parts by upper-cased name; a part without "=" has an empty value.
    private static func parts(of rule: String) -> [String: Substring] {
        var parts: [String: Substring] = [:]
        for part in rule.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            parts[String(pair[0])] = pair.count == 2 ? pair[1] : ""
        }
        return parts
    }

    /// Why an RRULE or an expression has no exact counterpart.
    public struct Unmapped: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The RRULEs of a season's onset every year, as a VTIMEZONE says it, with the month each starts in:
    /// `FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU` (the last Sunday of March); a shifted one by the weekday it falls on and the
    /// days it can fall on, one rule per month they are in: `FREQ=YEARLY;BYMONTH=9;BYDAY=SU;BYMONTHDAY=2,3,4,5,6,7,8`
    /// (the day after the first Saturday of September). Empty for a shift `ZoneSeasons.Onset.daysByMonth` cannot say.
    static func yearlyRules(_ onset: ZoneSeasons.Onset) -> [(month: Int, rule: String)] {
        let code = weekdayCodes[(onset.shiftedWeekday + 6) % 7]
        guard onset.dayShift != 0 else {
            let week = onset.week >= 5 ? "-1" : String(onset.week)
            return [(onset.month, "FREQ=YEARLY;BYMONTH=\(onset.month);BYDAY=\(week)\(code)")]
        }
        return (onset.daysByMonth ?? []).map { part in
            let days = part.days.map(String.init).joined(separator: ",")
            return (part.month, "FREQ=YEARLY;BYMONTH=\(part.month);BYDAY=\(code);BYMONTHDAY=\(days)")
        }
    }

    // MARK: Private

    private static let weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Every value a field's list matches within `range`, sorted; nil for `*`.
    private static func values(_ list: [CalendarComponent]?, in range: ClosedRange<Int>) -> [Int]? {
        guard let list, !list.isEmpty else { return nil }
        var found = Set<Int>()
        for component in list {
            if component.stop > 0 {
                found.formUnion(stride(from: component.start, through: component.stop, by: max(component.step, 1)))
            } else if component.step > 0 {
                found.formUnion(stride(from: component.start, through: range.upperBound, by: component.step))
            } else {
                found.insert(component.start)
            }
        }
        return found.filter(range.contains).sorted()
    }
}
