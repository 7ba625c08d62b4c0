import Foundation
import Hummingbird
import NIOHTTP1
import NudgeAPI
import NudgeAPITypes
import NudgeCore
import NudgeStore
import OpenAPIRuntime

/// An API error: the status, and the document's `Error` body `{"error": {"code", "message"}}` every client can
/// show as it is.
struct APIFailure: Error {
    let status: HTTPResponse.Status
    let code: Code
    let message: String
    /// For a batch: the index of the operation refused, and what those before it answered.
    var operation: Int? = nil
    var applied: [Components.Schemas.BatchResult]? = nil
    /// For 405: the methods the path takes, for the `Allow` header.
    var allowed: [String]? = nil

    func response() -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let allowed { headers[.allow] = allowed.joined(separator: ", ") }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body()))
    }

    /// The JSON of the document's `Error`.
    func body() -> ByteBuffer {
        var buffer = ByteBuffer()
        // Two strings and nothing else: encoding them cannot fail.
        buffer.writeBytes((try? APICoding.encoder().encode(Components.Schemas.ErrorBody(self))) ?? Data())
        return buffer
    }

    static func badRequest(_ code: Code, _ message: String) -> APIFailure {
        APIFailure(status: .badRequest, code: code, message: message)
    }

    static let forbidden = APIFailure(
        status: .forbidden,
        code: .forbidden,
        message: "nudged serves only the user it runs as; run nudge as that user"
    )

    static let bodyTooLarge = APIFailure(
        status: .contentTooLarge,
        code: .bodyTooLarge,
        message: "the request body is over the 1 MiB limit"
    )

    /// A body not of the one media type its route takes (`expected`).
    static func unsupportedMediaType(_ contentType: String?, expected: String) -> APIFailure {
        let what = expected == "application/json" ? "JSON" : "the body"
        return APIFailure(
            status: .unsupportedMediaType,
            code: .unsupportedMediaType,
            message:
                "the body is \(contentType.map { "of type \"\($0)\"" } ?? "without a Content-Type"); send \(what) with "
                + "Content-Type: \(expected)"
        )
    }

    static func tooManyConnections(_ limit: Int) -> APIFailure {
        APIFailure(
            status: .serviceUnavailable,
            code: .tooManyConnections,
            message: "nudged already serves \(limit) connections, its most (--max-connections); try again shortly"
        )
    }

    /// What NIO's HTTP/1 parser refused: the connection cannot be read any further.
    static func unparsable(_ error: HTTPParserError) -> APIFailure {
        switch error {
        case .headerOverflow:
            APIFailure(
                status: .requestHeaderFieldsTooLarge,
                code: .headersTooLarge,
                message: "the request's headers are over the 80 KiB limit"
            )
        default:
            .badRequest(.unparsableRequest, "the request is not valid HTTP/1.1 (\(error)); the connection is closed")
        }
    }

    /// What the loop answered instead of applying all of a request.
    private static func from(_ refusal: ReminderService.Refusal) -> APIFailure {
        switch refusal {
        case .stopping:
            APIFailure(
                status: .serviceUnavailable,
                code: .stopping,
                message: "nudged is stopping; send the request again once it runs"
            )
        case .stoppedPartWay:
            APIFailure(
                status: .serviceUnavailable,
                code: .stopping,
                message: "nudged stopped part way through this request: what it applied before is kept unless saving "
                    + "it fails as nudged stops; read it back once nudged runs, and send the rest again"
            )
        case .failedPartWay:
            APIFailure(
                status: .internalServerError,
                code: .outcomeUnknown,
                message: "saving failed part way through this request (the log says why); what of it was saved is "
                    + "kept: read it back"
            )
        }
    }

    /// Maps whatever a request raised to the status and code a client should see.
    static func from(_ error: any Error) -> APIFailure {
        switch error {
        case let failure as APIFailure:
            return failure
        case let error as ServerError:
            return from(error)
        case let refusal as ReminderService.Refusal:
            return from(refusal)
        case let refusal as Batch.Refusal:
            let failure = from(refusal.error)
            let kept =
                switch refusal.applied.count {
                case 0: "none of the batch was applied"
                case 1:
                    "operation 0 before it was applied and saved (its answer is in applied), and none after it was "
                        + "tried"
                case let count:
                    "operations 0 to \(count - 1) before it were applied and saved (their answers are in applied), and "
                        + "none after it was tried"
                }
            return APIFailure(
                status: failure.status,
                code: failure.code,
                message: "operation \(refusal.index) of the batch was refused: \(failure.message); \(kept)",
                operation: refusal.index,
                applied: refusal.applied.isEmpty ? nil : refusal.applied
            )
        case let error as ModelError:
            let status: HTTPResponse.Status =
                switch error.code {
                case .unknownItem, .unknownList: .notFound
                case .duplicateListName, .duplicateListID, .lastList, .itemChecked, .instantOutOfReach,
                    .notUndoable, .linkedList, .listNotEmpty, .changedOnDisk:
                    .conflict
                case .emptyText, .unknownIcon, .timeNotUnderstood, .invalidRepeat, .unknownPriority, .invalidCatchUp,
                    .invalidSnooze, .invalidWarning, .calendarNotUnderstood, .invalidFolder, .invalidNag:
                    .badRequest
                // Each field valid, two together not: a rule of the body JSON Schema could say only with `not`,
                // which swift-openapi-generator cannot generate, so the contract's schema lets it through.
                case .invalidDue, .conflictingRepeat: .unprocessableContent
                }
            return APIFailure(status: status, code: .model(error.code), message: error.description)
        case let error as StoreError where error.code == .outcomeUnknown:
            return APIFailure(
                status: .internalServerError,
                code: .outcomeUnknown,
                message: "the outcome of the change is unknown: \(error.description)"
            )
        case let error as StoreError:
            return APIFailure(
                status: .internalServerError,
                code: .store(error.code),
                message: "the change was not saved: \(error.description)"
            )
        case let error as DecodingError:
            return .badRequest(.invalidBody, APICoding.describe(error))
        case let error as HTTPError where error.status == .notFound:
            return APIFailure(
                status: .notFound,
                code: .notFound,
                message: "nudged has no such route; GET /v1/openapi.yaml lists them"
            )
        default:
            return APIFailure(status: .internalServerError, code: .internal, message: "\(error)")
        }
    }

    /// A path of the document asked with a method it does not take.
    static func methodNotAllowed(_ method: String, allowed: [String]) -> APIFailure {
        APIFailure(
            status: .methodNotAllowed,
            code: .methodNotAllowed,
            message:
                "this route takes \(allowed.joined(separator: ", ")), not \(method.prefix(20)); GET /v1/openapi.yaml "
                + "says what each does",
            allowed: allowed
        )
    }

    /// An ID in a path that is not one: `0`, `01`, `+1`, `abc`, or more than an ID can be.
    static func invalidID(_ id: some StringProtocol) -> APIFailure {
        .badRequest(
            .invalidID,
            "\"\(id.prefix(40))\" is not an ID; IDs are whole numbers from 1 to \(Int.max), written without a sign or "
                + "leading zeros"
        )
    }

    /// What a query parameter's decoder found wrong: the URI decoder names no field, so the value's own words.
    private static func queryProblem(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, _), .valueNotFound(let type, _):
            "expected \(type == Bool.self ? "true or false" : type == Int.self ? "a whole number" : "\(type)")"
        case .dataCorrupted(let context): context.debugDescription
        case .keyNotFound(let key, _): "\(key.stringValue) is required"
        @unknown default: "\(error)"
        }
    }

    /// The generated server wraps what it raised, and what an operation threw. Before the operation ran, it is the
    /// request that is wrong: its ID, its body, or its content type.
    private static func from(_ error: ServerError) -> APIFailure {
        // The generated code's own refusal, before the operation or after it: the route's answer is of no type the
        // request's `Accept` admits.
        if let refusal = error.underlyingError as? any HTTPResponseConvertible, refusal.httpStatus == .notAcceptable {
            return APIFailure(
                status: .notAcceptable,
                code: .notAcceptable,
                message: "\(refusal); send an Accept header that admits it, or none"
            )
        }
        guard error.operationInput == nil else { return from(error.underlyingError) }
        if let id = error.requestMetadata.pathParameters["id"], Int(id) == nil {
            return invalidID(String(id))
        }
        if let decoding = error.underlyingError as? DecodingError {
            // Only the GET routes take typed query parameters (and a header), and none of them takes a body.
            guard error.request.method == .get else {
                return .badRequest(.invalidBody, APICoding.describe(decoding))
            }
            return .badRequest(
                .invalidRequest,
                "a parameter of \(error.request.path.map { "\"\($0.prefix(200))\"" } ?? "the request") does not read: "
                    + "\(queryProblem(decoding)); GET /v1/openapi.yaml lists each route's parameters"
            )
        }
        return .badRequest(
            .invalidRequest,
            "\(error.causeDescription); send JSON with Content-Type: application/json"
        )
    }
}
