import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NudgeCalendar
import NudgeCore
import NudgeStore
import ServiceLifecycle

/// nudged's routes in-process, without a socket: a service on a store of its own, on the manual clock, behind the
/// router the server uses (`APIServer.router`, its middleware included). For the request fuzz target
/// (Tests/Fuzz/Request), which reaches it from outside the module, so that the generated types stay internal.
///
/// The service runs as it does once nudged begins to stop (`beginStopping`, `EventHub.finish`): every request has
/// at most one turn of the loop, so a clock move or batch that decides more than `decisionsPerTurn` events is
/// answered 503 after its first turn, and an event stream sends the history it asks for and ends. That bounds the
/// work of every request, as a fuzzer needs, and leaves what it is there to find: a crash, a turn that does not end,
/// or an answer outside the contract.
package struct InProcessAPI: Sendable {
    private let responder: any HTTPResponder<BasicRequestContext>
    private let channel: any Channel
    /// What nudged would log goes nowhere: a fuzzer runs millions of requests.
    private static let quiet = Logger(label: "nudge.in-process") { _ in SwiftLogNoOpLogHandler() }

    /// An answer as a client reads it.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]
    }

    /// Opens (or creates) the store at `store`, runs a service on it on a manual clock that reads `start`, calls `body`
    /// with the routes, then stops the service and closes the store. `channel` stands for the connection a request
    /// came on (the fuzz target's is a testing channel); nothing is written to it.
    package static func withService<Value: Sendable>(
        store path: String,
        clock start: Date,
        channel: any Channel,
        _ body: (InProcessAPI) async throws -> Value
    ) async throws -> Value {
        let store = try ChecklistStore.open(path: path)
        defer { store.close() }
        let (clock, timer) = ClockChoice.manual(start: start).make()
        let service = ReminderService(
            store: store,
            clock: clock,
            zones: ZoneRulesStore(),
            catchUpWindow: ReminderScheduler.defaultCatchUpWindow,
            sinks: [],
            events: EventHub(render: APIHandler.frames),
            logger: Self.quiet,
            timer: timer
        )
        let api = InProcessAPI(
            responder: try APIServer.router(service: service, socket: path + ".sock").buildResponder(),
            channel: channel
        )
        let group = ServiceGroup(services: [service], logger: Self.quiet)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            do {
                // Answered once the service has caught up at start and takes requests.
                try await service.read { _ in }
                service.events.finish()
                service.beginStopping()
                let value = try await body(api)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// Answers one request as the server would once its head and body had come: `Content-Length` is the body's (the
    /// HTTP parser would not hand on a request whose body did not match it), and a method or header name that is not
    /// an HTTP token is nil (the parser refuses those before any route sees them). Throws what the router threw,
    /// which the middleware should never let through.
    package func respond(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8])
        async throws -> Answer?
    {
        guard let method = HTTPRequest.Method(method) else { return nil }
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { return nil }
            guard name != .contentLength, name != .transferEncoding else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        if !body.isEmpty { fields[.contentLength] = "\(body.count)" }
        let request = Request(
            head: HTTPRequest(method: method, scheme: nil, authority: "localhost", path: target, headerFields: fields),
            body: RequestBody(buffer: ByteBuffer(bytes: body))
        )
        let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: Self.quiet))
        let response = try await responder.respond(to: request, context: context)
        let collector = Collector()
        try await response.body.write(collector)
        return Answer(
            status: response.status.code,
            headers: response.headers.map { ($0.name.rawName, $0.value) },
            body: collector.bytes
        )
    }

    /// Keeps what a response body writes.
    private final class Collector: ResponseBodyWriter {
        var bytes: [UInt8] = []

        func write(_ buffer: ByteBuffer) async throws {
            bytes += buffer.readableBytesView
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
