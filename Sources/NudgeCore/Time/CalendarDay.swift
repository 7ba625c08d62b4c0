import Foundation

/// A day without a time of day: what an item is due on when no time was said (`--due fri`, `DUE;VALUE=DATE`). The
/// same day wherever it is read; which instants it spans depends on a zone. Proleptic Gregorian, years 0000 to 9999
/// (as `InstantFormat`'s instants).
///
/// Coded as its ISO text (`2027-01-15`), in the store and on the wire; any other text is refused, saying the shape.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let days: Int

    public init?(days: Int) {
        guard Self.range.contains(days) else { return nil }
        self.days = days
    }

    /// Nil for a date that does not exist (30 February) or lies outside years 0000 to 9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
            (1...LocalTime.daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        self.days = LocalTime.days(year: year, month: month, day: day)
    }

    /// `2027-01-15`, exactly that shape (ISO 8601's extended calendar date).
    public init?(iso text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `instant` falls on in `zone`.
    public init(containing instant: Date, in zone: TimeZone) {
        days = LocalTime.floorDiv(LocalTime(timeZone: zone).wallClock(at: instant).wall, 86_400)
    }

    /// 0000-01-01 to 9999-12-31, as days since 1970-01-01.
    public static let range = LocalTime.days(year: 0, month: 1, day: 1)...LocalTime.days(year: 9999, month: 12, day: 31)

    public var civil: (year: Int, month: Int, day: Int) { LocalTime.civil(days: days) }

    /// `2027-01-15`.
    public var iso: String {
        let (year, month, day) = civil
        return String(format: "%04d-%02d-%02d", year, month, day)
    }

    public var description: String { iso }

    /// The instant `secondsIntoDay` of wall time after this day's midnight names in `zone`, by `LocalTime`'s DST
    /// rules (a time a change skips is the first instant after the gap; one it repeats, the first of the two).
    public func instant(at secondsIntoDay: Int, in zone: TimeZone) -> Date {
        LocalTime.date(LocalTime(timeZone: zone).instant(forWall: days * 86_400 + secondsIntoDay).seconds, fraction: 0)
    }

    /// The first instant of the day in `zone`.
    public func start(in zone: TimeZone) -> Date { instant(at: 0, in: zone) }

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool { a.days < b.days }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = CalendarDay(iso: text) else {
            let quoted = text.utf8.count <= 40 ? "\"\(text)\"" : "a string of \(text.utf8.count) bytes"
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\(quoted) is not a day: a day is YYYY-MM-DD, a date that exists in years 0000 to "
                    + "9999, like 2027-01-15"
            )
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }
}
