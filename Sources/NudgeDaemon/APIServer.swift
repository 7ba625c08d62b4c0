import CLinux
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import NudgeAPI
import NudgeCore
import ServiceLifecycle

/// The HTTP/1.1 + JSON API on the Unix socket (DESIGN §5).
///
/// Built on HummingbirdCore's server with Hummingbird's router rather than `Application`: `Application` also runs a
/// date-header cache that wakes the process every second, and nudged must sleep until a reminder is due.
enum APIServer {
    static let maximumBodySize = 1 << 20

    static func make(
        service: ReminderService,
        socket: String,
        logger: Logger,
        onServerRunning: @escaping @Sendable () async -> Void = {}
    ) throws -> any Service {
        let responder = router(service: service, socket: socket).buildResponder()
        let expectedUID = getuid()
        return try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: .unixDomainSocket(path: socket), serverName: nil),
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
                response = try APIFailure.forbidden.response(from: request, context: context)
            } else {
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    response = try APIFailure.from(error).response(from: request, context: context)
                }
            }
            try await responseWriter.write(response: response.head, body: response.body)
        } onServerRunning: { _ in
            await onServerRunning()
        }
    }

    static func router(service: ReminderService, socket: String) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("/v1/health") { _, _ in try json(await service.health(socket: socket)) }

        router.get("/v1/lists") { _, _ in try json(await service.listResources()) }
        router.post("/v1/lists") { request, _ in
            try json(await service.addList(decode(NewListRequest.self, from: request)), status: .created)
        }
        router.patch("/v1/lists/:id") { request, context in
            try json(await service.updateList(id(context), decode(ListPatchRequest.self, from: request)))
        }
        router.delete("/v1/lists/:id") { _, context in
            try await service.removeList(id(context))
            return Response(status: .noContent)
        }

        router.get("/v1/items") { request, _ in
            let query = request.uri.queryParameters
            let includeChecked = query["all"].map { $0 == "true" || $0 == "1" } ?? false
            return try json(
                await service.itemResources(listName: query["list"].map(String.init), includeChecked: includeChecked)
            )
        }
        router.post("/v1/items") { request, _ in
            try json(await service.addItem(decode(NewItemRequest.self, from: request)), status: .created)
        }
        router.get("/v1/items/:id") { _, context in try json(await service.itemResource(id(context))) }
        router.patch("/v1/items/:id") { request, context in
            try json(await service.editItem(id(context), decode(ItemPatchRequest.self, from: request)))
        }
        router.delete("/v1/items/:id") { _, context in
            try await service.removeItem(id(context))
            return Response(status: .noContent)
        }
        router.post("/v1/items/:id/done") { _, context in
            try json(await service.editItem(id(context), ItemPatchRequest(checked: true)))
        }
        router.delete("/v1/items/:id/done") { _, context in
            try json(await service.editItem(id(context), ItemPatchRequest(checked: false)))
        }

        router.get("/v1/pending") { _, _ in try json(await service.pending) }
        router.get("/v1/events") { _, _ in
            let stream = service.events.subscribe()
            let encoder = APICoding.encoder()
            let body = stream.map { event -> ByteBuffer in
                let data = (try? encoder.encode(event)) ?? Data("{}".utf8)
                var buffer = ByteBuffer()
                buffer.writeString("event: \(event.kind.rawValue)\ndata: ")
                buffer.writeBytes(data)
                buffer.writeString("\n\n")
                return buffer
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody(asyncSequence: body)
            )
        }
        return router
    }

    // MARK: Helpers

    private static func id(_ context: BasicRequestContext) throws -> Int {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int(text), id > 0 else {
            throw APIFailure.badRequest("invalid_id", "\"\(text)\" is not an ID; IDs are positive whole numbers")
        }
        return id
    }

    private static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) async throws -> Body {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodySize {
            throw APIFailure.bodyTooLarge
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumBodySize)
        } catch {
            throw APIFailure.bodyTooLarge
        }
        guard buffer.readableBytes > 0 else {
            throw APIFailure.badRequest("invalid_body", "the request needs a JSON body")
        }
        return try APICoding.decoder().decode(Body.self, from: Data(buffer.readableBytesView))
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(try APICoding.encoder().encode(value))
        buffer.writeString("\n")
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: buffer)
        )
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
