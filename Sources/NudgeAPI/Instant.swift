import Foundation
import NudgeCore
import OpenAPIRuntime

/// `Instant` in the document: the generated types use this for every date-time, so an instant is written and read
/// one way, and a bad one is refused naming its field (`field dueDate: "next tuesday" is not ...`), which the
/// runtime's date transcoder cannot do.
public struct Instant: Codable, Hashable, Sendable, Comparable {
    public var date: Date

    public init(_ date: Date) { self.date = date }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = InstantFormat.parse(text) else {
            // An error quotes what it refuses, but not a megabyte of it.
            let quoted =
                text.utf8.count <= InstantFormat.maximumLength
                ? "\"\(text)\"" : "a string of \(text.utf8.count) bytes (at most \(InstantFormat.maximumLength))"
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "\(quoted) is not an RFC 3339 date-time (with an offset, in years 0000 to 9999), like "
                    + "2026-12-01T09:00:00Z"
            )
        }
        self.date = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(InstantFormat.format(date))
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.date < rhs.date }
}

/// `Day` in the document: the core's `CalendarDay`, so a day is written and read one way (`YYYY-MM-DD`), and a bad
/// one is refused naming its field.
public typealias Day = CalendarDay
