import Foundation

/// Formats instants in a time zone for people: `Sat 21 Nov 17:00`. English names, a 24-hour clock and the Gregorian
/// calendar whatever the locale, so output reads the same on every machine and greps predictably. Wall times come
/// from `LocalTime`, the arithmetic `TimeInput` reads them back with: what `short` prints, `TimeInput` parses back
/// to the same minute.
public struct LocalTimeFormat: Sendable {
    public let timeZone: TimeZone
    /// Decides whether the year is worth showing, and what "in 2h" counts from.
    public let now: Date
    private let local: LocalTime

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public init(timeZone: TimeZone = .current, now: Date = Date()) {
        self.timeZone = timeZone
        self.now = now
        self.local = LocalTime(timeZone: timeZone)
    }

    private struct Parts {
        var days, year, month, day, weekday, hour, minute, second: Int
        /// Whether the instant is the second occurrence of a wall time the zone repeats (fall back).
        var repeated: Bool
        var offset: Int
    }

    private func parts(_ date: Date) -> Parts {
        let wall = local.wallClock(at: date).wall
        let days = LocalTime.floorDiv(wall, 86_400)
        let civil = LocalTime.civil(days: days)
        let second = wall - days * 86_400
        let instant = Int(date.timeIntervalSince1970.rounded(.down))
        return Parts(
            days: days,
            year: civil.year,
            month: civil.month,
            day: civil.day,
            weekday: LocalTime.weekday(ofDays: days),
            hour: second / 3600,
            minute: second % 3600 / 60,
            second: second % 60,
            repeated: local.instant(forWall: wall).seconds != instant,
            offset: wall - instant
        )
    }

    private static func two(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }

    /// `Sat 21 Nov 17:00`; with the year unless it is this year and not before today: `Mon 4 Jan 2027 09:00`.
    /// The second occurrence of a repeated wall time carries its offset: `Sun 1 Nov 01:30 -05:00`.
    public func short(_ date: Date) -> String {
        let p = parts(date)
        let today = parts(now)
        let year = p.year == today.year && p.days >= today.days ? "" : " \(p.year)"
        let offset = p.repeated ? " " + Self.offset(p.offset) : ""
        return "\(Self.weekdays[p.weekday]) \(p.day) \(Self.months[p.month - 1])\(year) "
            + "\(Self.two(p.hour)):\(Self.two(p.minute))\(offset)"
    }

    /// `Fri 15 Jan`, a day without a time; with the year as `short` shows it.
    public func short(_ day: CalendarDay) -> String {
        let (year, month, dayOfMonth) = day.civil
        let today = parts(now)
        let shownYear = year == today.year && day.days >= today.days ? "" : " \(year)"
        return
            "\(Self.weekdays[LocalTime.weekday(ofDays: day.days)]) \(dayOfMonth) \(Self.months[month - 1])\(shownYear)"
    }

    /// `today`, `tomorrow`, `yesterday`, `in 3d`, `2d ago`: how far a day is from today.
    public func relative(_ day: CalendarDay) -> String { relative(day, from: today) }

    /// How far `day` is from `reference` (`today` when that is the reference day): a digest's days count from the
    /// daemon's today, which need not be this terminal's.
    public func relative(_ day: CalendarDay, from reference: CalendarDay) -> String {
        switch day.days - reference.days {
        case 0: "today"
        case 1: "tomorrow"
        case -1: "yesterday"
        case let ahead where ahead > 0: "in \(ahead)d"
        case let behind: "\(-behind)d ago"
        }
    }

    /// `tomorrow · Fri 15 Jan`.
    public func relativeAndShort(_ day: CalendarDay) -> String {
        "\(relative(day)) · \(short(day))"
    }

    /// The day it is today.
    public var today: CalendarDay { CalendarDay(containing: now, in: timeZone) }

    /// `in 2h 5m · Sat 21 Nov 17:00`, `3d 4h ago · Wed 18 Nov 09:00`: how far, then when.
    public func relativeAndShort(_ date: Date) -> String {
        "\(relative(date)) · \(short(date))"
    }

    /// `in 2h 5m`, `in 40s`, `3d 4h ago`, `now`: minutes and up rounded down to the minute.
    public func relative(_ date: Date) -> String {
        let distance = date.timeIntervalSince(now)
        let size = abs(distance)
        guard size >= 1 else { return "now" }
        let text = DurationText.short(size >= 60 ? (size / 60).rounded(.down) * 60 : size)
        return distance > 0 ? "in \(text)" : "\(text) ago"
    }

    /// `Sat 21 Nov 2026 17:00:00 CET`.
    public func full(_ date: Date) -> String {
        let p = parts(date)
        let zone = timeZone.abbreviation(for: date) ?? timeZone.identifier
        return "\(Self.weekdays[p.weekday]) \(p.day) \(Self.months[p.month - 1]) \(p.year) \(clock(date)) \(zone)"
    }

    /// `2026-11-21 17:00:00`.
    public func stamp(_ date: Date) -> String {
        let p = parts(date)
        return "\(p.year)-\(Self.two(p.month))-\(Self.two(p.day)) \(clock(date))"
    }

    /// `17:00:00`.
    public func clock(_ date: Date) -> String {
        let p = parts(date)
        return "\(Self.two(p.hour)):\(Self.two(p.minute)):\(Self.two(p.second))"
    }

    /// `17:00:00` when `date` falls on the same local day as `reference`, else `2026-11-22 17:00:00`.
    public func clock(_ date: Date, relativeTo reference: Date) -> String {
        parts(date).days == parts(reference).days ? clock(date) : stamp(date)
    }

    /// `+01:00`, `-05:00`, `+05:30`.
    private static func offset(_ seconds: Int) -> String {
        let size = abs(seconds)
        return (seconds < 0 ? "-" : "+") + two(size / 3600) + ":" + two(size % 3600 / 60)
    }
}
