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
