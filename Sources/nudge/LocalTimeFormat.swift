import Foundation

/// Formats instants in a time zone for people: `Sat 21 Nov 17:00`. English names, a 24-hour clock and the Gregorian
/// calendar whatever the locale, so output reads the same on every machine and greps predictably.
struct LocalTimeFormat: Sendable {
    let timeZone: TimeZone
    /// Decides whether the year is worth showing.
    let now: Date
    private let calendar: Calendar

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    init(timeZone: TimeZone = .current, now: Date = Date()) {
        self.timeZone = timeZone
        self.now = now
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    private struct Parts {
        var year, month, day, weekday, hour, minute, second: Int
    }

    private func parts(_ date: Date) -> Parts {
        let c = calendar.dateComponents([.year, .month, .day, .weekday, .hour, .minute, .second], from: date)
        return Parts(
            year: c.year ?? 0,
            month: c.month ?? 1,
            day: c.day ?? 1,
            weekday: c.weekday ?? 1,
            hour: c.hour ?? 0,
            minute: c.minute ?? 0,
            second: c.second ?? 0
        )
    }

    private static func two(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }

    /// `Sat 21 Nov 17:00`; with the year when it is not this year: `Mon 4 Jan 2027 09:00`.
    func short(_ date: Date) -> String {
        let p = parts(date)
        let year = p.year == parts(now).year ? "" : " \(p.year)"
        return "\(Self.weekdays[p.weekday - 1]) \(p.day) \(Self.months[p.month - 1])\(year) "
            + "\(Self.two(p.hour)):\(Self.two(p.minute))"
    }

    /// `Sat 21 Nov 2026 17:00:00 CET`.
    func full(_ date: Date) -> String {
        let p = parts(date)
        let zone = timeZone.abbreviation(for: date) ?? timeZone.identifier
        return "\(Self.weekdays[p.weekday - 1]) \(p.day) \(Self.months[p.month - 1]) \(p.year) "
            + "\(clock(date)) \(zone)"
    }

    /// `2026-11-21 17:00:00`.
    func stamp(_ date: Date) -> String {
        let p = parts(date)
        return "\(p.year)-\(Self.two(p.month))-\(Self.two(p.day)) \(clock(date))"
    }

    /// `17:00:00`.
    func clock(_ date: Date) -> String {
        let p = parts(date)
        return "\(Self.two(p.hour)):\(Self.two(p.minute)):\(Self.two(p.second))"
    }

    /// `17:00:00` when `date` falls on the same local day as `reference`, else `2026-11-22 17:00:00`.
    func clock(_ date: Date, relativeTo reference: Date) -> String {
        calendar.isDate(date, inSameDayAs: reference) ? clock(date) : stamp(date)
    }
}
