/// Why a calendar expression was rejected: the expression, the part of it that is wrong (as written), and why.
public struct CalendarSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole expression as given.
    public let expression: String
    /// The part of the expression that is wrong, as the user wrote it.
    public let part: String
    /// Why, in words a person can act on (e.g. "hour 25 is out of range 0–23").
    public let reason: String

    public init(expression: String, part: String, reason: String) {
        self.expression = expression
        self.part = part
        self.reason = reason
    }

    /// One sentence: what, where, why, and an expression of the same shape that works.
    public var description: String {
        let location = part == expression || part.isEmpty ? "" : " at \"\(part)\""
        return "invalid calendar expression \"\(expression)\"\(location): \(reason) "
            + "(valid examples: \"Mon..Fri 09:30\", \"*-*-01 12:00\", \"hourly\")"
    }
}
