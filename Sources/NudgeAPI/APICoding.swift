import Foundation
import NudgeCore
import OpenAPIRuntime

/// What nudged takes in one request at most (docs/openapi.yaml says the same): nudge checks a file against them
/// before sending it, so a file too large is a usage error naming it rather than a refusal.
public enum APILimits {
    /// A request's body: 1 MiB.
    public static let maximumBodySize = 1 << 20
    /// A batch's operations; a batch of them fits the body limit.
    public static let maximumBatchOperations = 10_000
    /// The most entries a page of items, reminders or events holds: one page of JSON stays well under a few MiB.
    public static let maximumPageSize = 10_000
    /// A page's entries when the request does not say.
    public static let defaultPageSize = 1_000
}

/// How the API writes JSON, for the generated server and client and for what they leave to us (the event
/// stream's `data:` lines, `nudge --json`): keys sorted, instants as `Instant` writes them.
public enum APICoding {
    public static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// What `describe` says of a body Foundation's decoder could not read at all, without naming a field; nudged
    /// says why in its place when it can (`JSONBodyCheck.whyUnreadable`).
    public static let unreadableBody = "the body is not valid JSON"

    /// "field shouldRemind: expected true or false" rather than Foundation's debug dump.
    public static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "field \(fieldPath(context.codingPath)): expected \(type == Bool.self ? "true or false" : "\(type)")"
        case .valueNotFound(let type, let context):
            return "field \(fieldPath(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            let field = fieldPath(context.codingPath + [key])
            // What the generated code throws for a `oneOf` whose discriminator names no schema (a batch's `op`).
            if let quoted = context.debugDescription.split(separator: "'", omittingEmptySubsequences: false)
                .dropFirst().first, context.debugDescription.contains("discriminator value")
            {
                return "field \(field): \"\(quoted.prefix(40))\" is not one of the values it takes; see GET "
                    + "/v1/openapi.yaml"
            }
            return "field \(field) is required"
        case .dataCorrupted(let context):
            let field = fieldPath(context.codingPath)
            if field.isEmpty { return unreadableBody }
            if context.debugDescription.hasPrefix("Additional properties are disabled") {
                return "unknown field \(field); see GET /v1/openapi.yaml for this request's fields"
            }
            return "field \(field): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

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
