import Foundation

/// systemd's timestamp texts: "Mon 2026-03-30 09:00:00 CEST".
enum TimestampText: Sendable {
    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// In the local zone, with its tzdata abbreviation. systemd prints "-" for the unset timestamp 0.
    static func local(_ microseconds: Int64, rules: ZoneRules) -> String {
        guard microseconds != 0 else { return "-" }
        let seconds = CivilCalendar.floorDivide(microseconds, 1_000_000).quotient
        let interval = rules.interval(at: seconds)
        let time = BrokenDownTime(
            wallSeconds: seconds + Int64(interval.utcOffset),
            dstFlag: interval.isDST ? 1 : 0,
            utcOffset: interval.utcOffset
        )
        let abbreviation = rules.abbreviations[interval.abbreviationIndex]
        return text(time) + (abbreviation.isEmpty ? "" : " " + abbreviation)
    }

    static func utc(_ microseconds: Int64) -> String {
        guard microseconds != 0 else { return "-" }
        let seconds = CivilCalendar.floorDivide(microseconds, 1_000_000).quotient
        return text(BrokenDownTime(wallSeconds: seconds, dstFlag: 0, utcOffset: 0)) + " UTC"
    }

    private static func text(_ time: BrokenDownTime) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(weekdayNames[time.weekday]) \(time.year)-\(two(time.month0 + 1))-\(two(time.day)) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second))"
    }

    // systemd's units: a month is 30.44 days, a year 365.25 days.
    private static let second: Int64 = 1_000_000
    private static let minute = 60 * second
    private static let hour = 60 * minute
    private static let day = 24 * hour
    private static let week = 7 * day
    private static let month = 2_629_800 * second
    private static let year = 31_557_600 * second

    static func relative(_ microseconds: Int64, now: Int64) -> String {
        guard microseconds != 0 else { return "-" }
        let distance = abs(now - microseconds)
        let direction = now > microseconds ? "ago" : "left"
        func plural(_ count: Int64, _ singular: String, _ pluralForm: String) -> String {
            "\(count) \(count == 1 ? singular : pluralForm)"
        }
        switch distance {
        case year...:
            return
                "\(plural(distance / year, "year", "years")) \(plural(distance % year / month, "month", "months")) \(direction)"
        case month...:
            return
                "\(plural(distance / month, "month", "months")) \(plural(distance % month / day, "day", "days")) \(direction)"
        case week...:
            return
                "\(plural(distance / week, "week", "weeks")) \(plural(distance % week / day, "day", "days")) \(direction)"
        case (2 * day)...:
            return "\(distance / day) days \(direction)"
        case (25 * hour)...:
            return "1 day \((distance - day) / hour)h \(direction)"
        case (6 * hour)...:
            return "\(distance / hour)h \(direction)"
        case hour...:
            return "\(distance / hour)h \(distance % hour / minute)min \(direction)"
        case (5 * minute)...:
            return "\(distance / minute)min \(direction)"
        case minute...:
            return "\(distance / minute)min \(distance % minute / second)s \(direction)"
        case second...:
            return "\(distance / second)s \(direction)"
        case 1000...:
            return "\(distance / 1000)ms \(direction)"
        case 1...:
            return "\(distance)us \(direction)"
        default:
            return "now"
        }
    }
}
