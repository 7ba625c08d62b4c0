import Foundation
import NudgeCore
import OpenAPIRuntime

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
