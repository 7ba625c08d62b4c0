import Foundation
import NudgeCalendar

/// Wall-clock arithmetic in one time zone, by the DST rules of DESIGN.md §3: a local time that does not exist
/// (spring-forward gap) resolves to the first valid instant after the gap (New York 2026-03-08 02:30 is 03:00 EDT),
/// and a local time that occurs twice (fall-back overlap) resolves to its first occurrence. Dates are proleptic
/// Gregorian, validated exactly: nothing is normalized behind the caller's back.
///
/// A *wall* time is local wall-clock seconds since 1970-01-01T00:00, counted as if that wall clock were UTC; whole
/// days of it are days since 1970-01-01 in the zone. Foundation's `Calendar.date(from:)` is not used: on Linux it
/// moves a gap time forward by the gap's length (02:30 becomes 03:30, not 03:00) and rolls invalid dates over
/// (Feb 30 becomes Mar 2).
public struct LocalTime: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The zone's offset from UTC at an instant, in seconds.
    public func offset(at seconds: Int) -> Int {
        timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// `instant` as wall time, and the fraction of a second it carries.
    public func wallClock(at instant: Date) -> (wall: Int, fraction: Double) {
        let whole = Int(instant.timeIntervalSince1970.rounded(.down))
        return (whole + offset(at: whole), instant.timeIntervalSince1970 - TimeInterval(whole))
    }

    /// The instant (whole seconds since the epoch) a wall time names, and whether that wall time existed (false in
    /// a gap, where the result is the first instant after it).
    public func instant(forWall wall: Int) -> (seconds: Int, existed: Bool) {
        // Offsets in force within a day either side cover every instant this wall time could name.
        let offsets = Set([wall - 86_400, wall, wall + 86_400].map(offset(at:)))
        let matches = offsets.map { wall - $0 }.filter { $0 + offset(at: $0) == wall }
        if let first = matches.min() { return (first, true) }

        // A gap: find the first instant whose wall time is past `wall`. Wall time rises with the instant near
        // a single transition, so bisect between the instant the latest offset gives (before the gap, its wall
        // time is short of `wall`) and the one the earliest offset gives (after it, beyond `wall`).
        var before = wall - (offsets.max() ?? 0)
        var after = wall - (offsets.min() ?? 0)
        while after - before > 1 {
            let middle = before + (after - before) / 2
            if middle + offset(at: middle) > wall { after = middle } else { before = middle }
        }
        return (after, false)
    }

    /// The instant RFC 5545 §3.3.5 gives a wall time: the first of two where a DST change repeats it, and where a
    /// change skips it, the one the offset before the gap gives (02:30 in a gap from 02:00 to 03:00 is 03:30).
    public func calendarInstant(forWall wall: Int) -> Int {
        let (instant, existed) = self.instant(forWall: wall)
        return existed ? instant : wall - offset(at: instant - 1)
    }

    /// The same wall time `days` calendar days later (earlier if negative), by the DST rules; nil past year 9999.
    /// The fraction of a second is kept unless the wall time fell in a gap.
    public func adding(days: Int, to instant: Date) -> Date? {
        let clock = wallClock(at: instant)
        let shifted = clock.wall + days * 86_400
        guard Self.civil(days: Self.floorDiv(shifted, 86_400)).year <= 9999 else { return nil }
        let local = self.instant(forWall: shifted)
        return Self.date(local.seconds, fraction: local.existed ? clock.fraction : 0)
    }

    public static func date(_ seconds: Int, fraction: Double) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    // Proleptic Gregorian arithmetic on days since 1970-01-01, by the calendar engine's `CivilCalendar`.

    public static func days(year: Int, month: Int, day: Int) -> Int {
        Int(CivilCalendar.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day)))
    }

    public static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let date = CivilCalendar.date(daysSinceEpoch: Int64(days))
        return (Int(date.year), Int(date.month), Int(date.day))
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return CivilCalendar.isLeapYear(Int64(year)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// 0 is Sunday.
    public static func weekday(ofDays days: Int) -> Int {
        CivilCalendar.weekday(daysSinceEpoch: Int64(days))
    }

    /// Division rounding toward negative infinity: the day a negative wall time falls on.
    public static func floorDiv(_ a: Int, _ b: Int) -> Int {
        Int(CivilCalendar.floorDivide(Int64(a), Int64(b)).quotient)
    }
}
