import CLinux
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import NudgeAPI
import NudgeSystem
import OpenAPIHummingbird
import ServiceLifecycle

/// Runs around every route and around the router's "no such route": checks what the generated code would let pass
/// (IDs in paths, the body's media type), reads the whole body first, so one size limit holds for every operation
/// (chunked bodies included), and answers whatever is thrown with the document's `Error`.
struct ErrorDocumentMiddleware: RouterMiddleware {
    /// What the router's routes take, for 405.
    let routes: RouteMethods

    func handle(
        _ request: Request,
        context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        var body = ByteBuffer()
        do {
            try Self.checkID(in: request.uri.path)
            let request = try await Self.collectingBody(request, into: &body)
            if body.readableBytes > 0, request.uri.path != "/v1/import" {
                let isItemPatch = request.method == .patch && request.uri.path.hasPrefix("/v1/items/")
                try JSONBodyCheck.refuseNulls(in: body, isItemPatch: isItemPatch)
            }
            return try await next(request, context)
        } catch {
            var failure = APIFailure.from(error)
            if failure.code == .invalidBody, failure.message == APICoding.unreadableBody {
                failure = .badRequest(.invalidBody, JSONBodyCheck.whyUnreadable(body))
            }
            if failure.code == .notFound, let allowed = routes.methods(for: request.uri.path) {
                failure = .methodNotAllowed(request.method.rawValue, allowed: allowed)
            }
            return failure.response()
        }
    }

    /// `/v1/items/{id}...` and `/v1/lists/{id}...` take strict decimal IDs: the generated code reads `+1` and `01`
    /// as 1, and `0` as an ID.
    static func checkID(in path: String) throws {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[1] == "v1", parts[2] == "items" || parts[2] == "lists" else { return }
        let id = parts[3]
        guard id.first != "0", !id.isEmpty, id.allSatisfy({ ("0"..."9").contains($0) }), Int(id) != nil else {
            throw APIFailure.invalidID(id)
        }
    }

    /// Reads the whole body into `body`, and hands on the request with it.
    private static func collectingBody(_ request: Request, into body: inout ByteBuffer) async throws -> Request {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > APILimits.maximumBodySize {
            throw APIFailure.bodyTooLarge
        }
        var request = request
        do {
            body = try await request.collectBody(upTo: APILimits.maximumBodySize)
        } catch {
            throw APIFailure.bodyTooLarge
        }
        if body.readableBytes > 0 {
            // Every body is JSON but an import's, which is a calendar.
            let expected = request.uri.path == "/v1/import" ? "text/calendar" : "application/json"
            let mediaType = request.headers[.contentType]?.split(separator: ";").first
            guard mediaType?.trimmingCharacters(in: .whitespaces).lowercased() == expected else {
                throw APIFailure.unsupportedMediaType(request.headers[.contentType], expected: expected)
            }
        }
        return request
    }
}
