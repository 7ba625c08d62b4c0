import Foundation
import NudgeCalendar

/// How nudge writes and reads an instant for programs (the API, journal fields, a command's environment): an RFC 3339
/// date-time, written in UTC to the millisecond, `2026-12-01T09:00:00.250Z`.
///
/// Instants are milliseconds: what is read is rounded to the millisecond, so whatever nudge answers reads back as the
/// same instant, and an instant sent is answered unchanged. They lie in `range`, what a four-digit year can say.
public enum InstantFormat {
    /// 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z: RFC 3339's years have four digits.
    public static let range: ClosedRange<Date> =
        Date(
            timeIntervalSince1970: Double(millisecondRange.lowerBound) / 1000
        )...Date(timeIntervalSince1970: Double(millisecondRange.upperBound) / 1000)

    /// `range` in milliseconds since the epoch.
    private static let millisecondRange: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// `date` to the nearest millisecond. An instant outside `range` (which only a hand-edited store can hold) is
    /// written as the end of the range it is past, rather than as a year RFC 3339 cannot say.
    public static func format(_ date: Date) -> String {
        let exact = (date.timeIntervalSince1970 * 1000).rounded()
        let milliseconds = Int64(
            min(max(exact, Double(millisecondRange.lowerBound)), Double(millisecondRange.upperBound))
        )
        let (seconds, millisecond) = CivilCalendar.floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = CivilCalendar.floorDivide(seconds, CivilCalendar.secondsPerDay)
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: days)
        func digits(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))T\(digits(secondOfDay / 3600, 2)):"
            + "\(digits(secondOfDay / 60 % 60, 2)):\(digits(secondOfDay % 60, 2)).\(digits(millisecond, 3))Z"
    }

    /// The longest text `parse` reads: an instant with every digit of fraction a program might write is far shorter.
    public static let maximumLength = 64

    /// Reads an RFC 3339 date-time (§5.6): `2026-12-01T09:00:00Z`, `2026-12-01t10:00:00.25+01:00`, any number of
    /// fraction digits, a leap second as the instant after `:59`. An offset is required: an instant a program hands
    /// over must be unambiguous (people's local times are parsed by `TimeInput`). Nil for anything else, for more
    /// than `maximumLength` bytes, and for an instant outside `range`.
    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        var reader = Reader(bytes: Array(text.utf8))
        guard let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
            let day = reader.number(2), reader.take("T") || reader.take("t"),
            let hour = reader.number(2), reader.take(":"), let minute = reader.number(2), reader.take(":"),
            let second = reader.number(2)
        else { return nil }
        var millisecondsOfFraction: Int64 = 0
        if reader.take(".") {
            guard let fraction = reader.fraction() else { return nil }
            millisecondsOfFraction = fraction
        }
        let offsetSeconds: Int64
        if reader.take("Z") || reader.take("z") {
            offsetSeconds = 0
        } else {
            let sign: Int64
            if reader.take("+") {
                sign = 1
            } else if reader.take("-") {
                sign = -1
            } else {
                return nil
            }
            guard let hours = reader.number(2), reader.take(":"), let minutes = reader.number(2), hours <= 23,
                minutes <= 59
            else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.atEnd, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * CivilCalendar.secondsPerDay + hour * 3600 + minute * 60 + second - offsetSeconds
        let milliseconds = seconds * 1000 + millisecondsOfFraction
        guard millisecondRange.contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: CivilCalendar.isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Steps through the ASCII of an instant.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` decimal digits.
        mutating func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        /// One or more digits after the point, as milliseconds rounded half up (from 0 to 1000).
        mutating func fraction() -> Int64? {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            let digits = bytes[start..<index].map { Int64($0 - UInt8(ascii: "0")) } + [0, 0, 0, 0]
            let milliseconds = digits[0] * 100 + digits[1] * 10 + digits[2]
            return milliseconds + (digits[3] >= 5 ? 1 : 0)
        }
    }
}
