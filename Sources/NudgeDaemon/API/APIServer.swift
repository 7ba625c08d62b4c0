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
        folders: FolderWatcher? = nil,
        onServerRunning: @escaping @Sendable () async -> Void = {}
    ) throws -> any Service {
        let responder = try router(service: service, socket: socket, folders: folders).buildResponder()
        let expectedUID = SystemCall.userID()
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
    static func router(service: ReminderService, socket: String, folders: FolderWatcher? = nil) throws
        -> Router<BasicRequestContext>
    {
        let router = Router(context: BasicRequestContext.self)
        let routes = RouteMethods()
        router.add(middleware: ErrorDocumentMiddleware(routes: routes))
        try APIHandler(service: service, socket: socket, folders: folders).registerHandlers(
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
