import Foundation

/// How nudge writes an instant for programs (the API, journal fields, a command's environment):
/// `2026-12-01T09:00:00.250Z`, ISO 8601 in UTC with fractional seconds.
public enum InstantFormat {
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Reads an ISO 8601 instant, with or without fractional seconds. An offset is required: an instant a program
    /// hands over must be unambiguous (people's local times are parsed by `TimeInput`).
    public static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
