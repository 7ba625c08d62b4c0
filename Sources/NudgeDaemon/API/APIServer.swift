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

/// The HTTP/1.1 + JSON API on the Unix socket (DESIGN §5).
///
/// Built on HummingbirdCore's server with Hummingbird's router rather than `Application`: `Application` also runs a
/// date-header cache that wakes the process every second, and nudged must sleep until a reminder is due.
enum APIServer {
    static func make(
        service: ReminderService,
        socket: String,
        limits: ConnectionLimits,
        logger: Logger,
        onServerRunning: @escaping @Sendable () async -> Void = {}
    ) throws -> any Service {
        let responder = try router(service: service, socket: socket).buildResponder()
        let expectedUID = getuid()
        let census = ConnectionCensus()
        let builder = HTTPServerBuilder { responder in
            RuledHTTP1Channel(http1: HTTP1Channel(responder: responder), limits: limits, census: census)
        }
        let server = try builder.buildServer(
            configuration: ServerConfiguration(
                address: .unixDomainSocket(path: socket),
                serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.accepted, logger: logger)
            ),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger
        ) { request, responseWriter, channel in
            let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            var response: Response
            let peer = await PeerCredentials.of(channel)
            if peer?.uid != expectedUID {
                logger.warning(
                    "refused a connection from another user",
                    metadata: [
                        "peer.uid": "\(peer.map { "\($0.uid)" } ?? "unknown")",
                        "peer.pid": "\(peer.map { "\($0.pid)" } ?? "unknown")",
                    ]
                )
                response = APIFailure.forbidden.response()
            } else {
                response = try await responder.respond(to: request, context: context)
            }
            if response.headers[.contentType]?.hasPrefix("text/event-stream") == true {
                // A watcher's task is woken for every event: on its channel's loop it writes the event at once. (The
                // group is the singleton, which outlives every connection.)
                let body = response.body
                let loop = EventLoopTaskExecutor(channel.eventLoop)
                response.body = ResponseBody(contentLength: body.contentLength) { writer in
                    try await withTaskExecutorPreference(loop) { try await body.write(writer) }
                }
            }
            try await responseWriter.write(response: response.head, body: response.body)
        } onServerRunning: { _ in
            // Bound with the umask's mode. Its directory is 0700, so nobody else could reach it before this.
            do {
                _ = try SystemCall.valueOrErrno { chmod(socket, 0o600) }
            } catch {
                logger.warning("could not make the socket \(socket) 0600: \(error)")
            }
            await onServerRunning()
        }
        return ServerEndingEventStreams(server: server, service: service)
    }

    /// The routes of docs/openapi.yaml, generated, over the service.
    static func router(service: ReminderService, socket: String) throws -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let routes = RouteMethods()
        router.add(middleware: ErrorDocumentMiddleware(routes: routes))
        try APIHandler(service: service, socket: socket).registerHandlers(
            on: router,
            configuration: APICoding.configuration
        )
        routes.learn(router.routes)
        return router
    }
}

/// The server, ending the event streams as its graceful shutdown begins: it waits for every response to end before
/// it returns, and a watcher's stream would never end by itself. A request the service applies over several turns
/// (a long clock move) would hold it up as long, so the service stops going on with those then too.
private struct ServerEndingEventStreams: Service {
    let server: any Service
    let service: ReminderService

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.run()
        } onGracefulShutdown: {
            service.events.finish()
            service.beginStopping()
        }
    }
}

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
            if failure.code == "invalid_body", failure.message == APICoding.unreadableBody {
                failure = .badRequest("invalid_body", JSONBodyCheck.whyUnreadable(body))
            }
            if failure.code == "not_found", let allowed = routes.methods(for: request.uri.path) {
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

/// Who is at the other end of a Unix-socket connection, from SO_PEERCRED: the kernel's word, not the client's.
struct PeerCredentials: Sendable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    static func of(_ channel: any Channel) async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<nudge_ucred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        guard let credentials = try? await future.get() else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }
}
