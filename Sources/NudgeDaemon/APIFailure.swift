import Foundation
import Hummingbird
import NudgeAPI
import NudgeCore
import NudgeStore

/// An API error: the status, and the JSON body `{"error": {"code", "message"}}` every client can show as it is.
struct APIFailure: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(try APICoding.encoder().encode(APIErrorBody(code: code, message: message)))
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: buffer)
        )
    }

    static func badRequest(_ code: String, _ message: String) -> APIFailure {
        APIFailure(status: .badRequest, code: code, message: message)
    }

    static let forbidden = APIFailure(
        status: .forbidden,
        code: "forbidden",
        message: "nudged serves only the user it runs as; run nudge as that user"
    )

    static let bodyTooLarge = APIFailure(
        status: .contentTooLarge,
        code: "body_too_large",
        message: "the request body is over the 1 MiB limit"
    )

    /// Maps whatever an operation threw to the status and code a client should see.
    static func from(_ error: any Error) -> APIFailure {
        switch error {
        case let failure as APIFailure:
            return failure
        case let error as ModelError:
            let status: HTTPResponse.Status =
                switch error.code {
                case .unknownItem, .unknownList: .notFound
                case .duplicateListName, .duplicateListID, .lastList: .conflict
                case .emptyText, .unknownIcon: .badRequest
                }
            return APIFailure(status: status, code: error.code.rawValue, message: error.description)
        case let error as StoreError:
            return APIFailure(
                status: .internalServerError,
                code: "store_\(error.code.rawValue)",
                message: "the change was not saved: \(error.description)"
            )
        case let error as DecodingError:
            return .badRequest("invalid_body", describe(error))
        default:
            return APIFailure(status: .internalServerError, code: "internal", message: "\(error)")
        }
    }

    /// "field shouldRemind: expected a boolean" rather than Foundation's debug dump.
    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "field \(fieldPath(context.codingPath)): expected \(type == Bool.self ? "true or false" : "\(type)")"
        case .valueNotFound(let type, let context):
            return "field \(fieldPath(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, _):
            return "field \(key.stringValue) is required"
        case .dataCorrupted(let context):
            let field = fieldPath(context.codingPath)
            if field.isEmpty { return "the body is not valid JSON" }
            return "field \(field): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
