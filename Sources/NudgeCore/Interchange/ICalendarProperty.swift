import Foundation

/// A property of an iCalendar component (RFC 5545 §3.1): `DUE;TZID=Europe/Berlin:20261201T090000`.
public struct ICalendarProperty: Sendable, Equatable {
    /// Upper-cased: names are case-insensitive.
    public var name: String
    /// Parameter names upper-cased; a value's quotes removed. A parameter given twice keeps its first value.
    public var parameters: [String: String]
    /// As written, escapes and all: what it means depends on the property's value type.
    public var value: String
    /// The line it starts on, counting from 1, for error messages.
    public var line: Int
    /// What of its line RFC 5545's grammar forbids and the reader read past, for the import report: a name with an
    /// underscore (then no property nudge reads), a parameter without "=" (left out).
    public var readPast: [String]

    public init(
        name: String,
        parameters: [String: String] = [:],
        value: String,
        line: Int = 0,
        readPast: [String] = []
    ) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.line = line
        self.readPast = readPast
    }

    /// The value read as TEXT: `\n`, `\,`, `\;` and `\\` unescaped.
    public var text: String { ICalendarText.unescaped(value) }
}
