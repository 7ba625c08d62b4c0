import NudgeCore
import NudgeStore

extension APIFailure {
    /// What went wrong, for programs: the `code` of the contract's `Error`, whose description lists every value
    /// (`APIFailureCodeTests` holds the two to each other). A refusal of the model keeps the model's code, a failure
    /// of the store is `store_` and the store's code.
    enum Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case invalidRequest, invalidBody, invalidID, unparsableRequest, headersTooLarge, bodyTooLarge
        case unsupportedMediaType, notAcceptable, notFound, methodNotAllowed, forbidden, tooManyConnections
        case noPendingReminder, unknownEvent, defaultList, clockNotManual, stopping, outcomeUnknown, `internal`
        case folderUnavailable
        case model(ModelError.Code)
        case store(StoreError.Code)

        static let allCases: [Code] =
            [
                .invalidRequest, .invalidBody, .invalidID, .unparsableRequest, .headersTooLarge, .bodyTooLarge,
                .unsupportedMediaType, .notAcceptable, .notFound, .methodNotAllowed, .forbidden, .tooManyConnections,
                .noPendingReminder, .unknownEvent, .defaultList, .clockNotManual, .stopping, .outcomeUnknown, .internal,
                .folderUnavailable,
            ] + ModelError.Code.allCases.map(Code.model)
            + StoreError.Code.allCases.filter { $0 != .outcomeUnknown }.map(Code.store)

        var description: String {
            switch self {
            case .invalidRequest: "invalid_request"
            case .invalidBody: "invalid_body"
            case .invalidID: "invalid_id"
            case .unparsableRequest: "unparsable_request"
            case .headersTooLarge: "headers_too_large"
            case .bodyTooLarge: "body_too_large"
            case .unsupportedMediaType: "unsupported_media_type"
            case .notAcceptable: "not_acceptable"
            case .notFound: "not_found"
            case .methodNotAllowed: "method_not_allowed"
            case .forbidden: "forbidden"
            case .tooManyConnections: "too_many_connections"
            case .noPendingReminder: "no_pending_reminder"
            case .unknownEvent: "unknown_event"
            case .defaultList: "default_list"
            case .clockNotManual: "clock_not_manual"
            case .folderUnavailable: "folder_unavailable"
            case .stopping: "stopping"
            // Whether a write that failed as it was flushed survives a crash is unknown, from the store or part way
            // through a request alike: one code for both.
            case .outcomeUnknown, .store(.outcomeUnknown): "outcome_unknown"
            case .internal: "internal"
            case .model(let code): code.rawValue
            case .store(let code): "store_\(code.rawValue)"
            }
        }
    }
}
