import Foundation

/// How nudge writes an instant for programs (the API, journal fields, a command's environment):
/// `2026-12-01T09:00:00.250Z`, ISO 8601 in UTC with fractional seconds.
public enum InstantFormat {
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The longest instant `parse` reads: `2026-12-01T09:00:00.123456789+05:30` is 35 characters.
    public static let maximumLength = 64

    /// Reads an ISO 8601 instant, with or without fractional seconds. An offset is required: an instant a program
    /// hands over must be unambiguous (people's local times are parsed by `TimeInput`). Nothing longer than
    /// `maximumLength` is an instant.
    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
