import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// What one connection may take from nudged: how long each part of a request may take, how long a connection may
/// wait between requests, and how many connections are served at once (`nudged --help`, docs/RELIABILITY.md).
struct ConnectionLimits: Sendable {
    /// From the first byte of a request to the end of its head.
    var requestHead: TimeAmount = .seconds(10)
    /// From the end of a request's head to the end of its body.
    var requestBody: TimeAmount = .seconds(30)
    /// Between requests on a kept-alive connection, and before the first.
    var idle: TimeAmount = .seconds(60)
    /// Connections served at once; past it, a new connection is answered 503 and closed.
    var connections = 4096
    /// Connections accepted at once: those served, and an eighth more being answered 503. At this many nudged stops
    /// accepting, and new connections wait in the listen backlog. This keeps `accept` from running out of file
    /// descriptors: on EMFILE, NIO tries again at once, in a loop that takes a whole core until one is freed.
    var accepted: Int { connections + max(1, connections / 8) }
    /// How long a request under way may still take once nudged is stopping.
    var shutdownGrace: TimeAmount = .seconds(1)
    /// How long a connection past the cap may take to send the head it is answered 503 for.
    var refusal: TimeAmount = .seconds(1)

    /// Open files these limits need, with `besides` open for everything else.
    func openFiles(besides: Int) -> Int { accepted + besides }

    /// The most connections that `openFiles` open files can serve, with `besides` open for everything else and the
    /// room `accepted` needs.
    static func connections(fitting openFiles: Int, besides: Int) -> Int {
        max(1, (openFiles - besides) * 8 / 9)
    }
}

/// Hummingbird's HTTP/1.1 child channel, with nudged's rules for each connection in its pipeline (`ConnectionRules`):
/// the deadlines of `ConnectionLimits`, the cap on connections, `Connection: close` and HTTP/1.0, and the
/// document's `Error` body for requests the HTTP parser refuses.
struct RuledHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let census: ConnectionCensus

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = census.admit(channel, limit: limits.connections)
        if !admitted, census.beginsRefusing() {
            let cap = limits.connections
            logger.warning(
                "the connection cap is reached (--max-connections \(cap)): new ones are answered 503 until some close"
            )
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let rules = ConnectionRules(limits: limits, admitted: admitted, logger: logger)
            // The rules read the parser's parts, before Hummingbird turns them into HTTPTypes: only there are the
            // HTTP version and every Connection token still visible.
            try pipeline.addHandler(rules, position: .before(try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)))
            try pipeline.addHandler(RequestBytesArrived(rules: rules), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// How many connections are open, across event loops.
final class ConnectionCensus: Sendable {
    private let open = Atomic<Int>(0)
    private let refusing = Atomic<Bool>(false)

    /// Counts the connection until it closes; whether it is within `limit`.
    func admit(_ channel: any Channel, limit: Int) -> Bool {
        let count = open.add(1, ordering: .relaxed).newValue
        channel.closeFuture.whenComplete { _ in self.open.subtract(1, ordering: .relaxed) }
        if count <= limit { refusing.store(false, ordering: .relaxed) }
        return count <= limit
    }

    /// Whether this refusal is the first since a connection was last admitted: the log says so once per flood.
    func beginsRefusing() -> Bool {
        !refusing.exchange(true, ordering: .relaxed)
    }
}

/// Which deadline a connection is under, from what it has read and answered. Pure: `ConnectionRules` carries out
/// what it returns.
struct ConnectionDeadlines: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// No request under way: waiting for the next (`idle`).
        case waiting
        /// Some bytes of a request came, not yet its whole head (`requestHead`).
        case readingHead
        /// The head came, not yet the end of the body (`requestBody`).
        case readingBody
        /// Every request read is being answered: no deadline (an event stream may last for days).
        case answering
    }

    enum Deadline: Sendable, Equatable {
        case idle, requestHead, requestBody

        func limit(in limits: ConnectionLimits) -> TimeAmount {
            switch self {
            case .idle: limits.idle
            case .requestHead: limits.requestHead
            case .requestBody: limits.requestBody
            }
        }
    }

    enum Action: Sendable, Equatable {
        /// Replace the deadline with this one, counted from now.
        case arm(Deadline)
        case disarm
        case keep
    }

    private(set) var phase = Phase.waiting
    /// Requests whose head came and whose answer has not ended.
    private(set) var unanswered = 0

    mutating func start() -> Action { .arm(.idle) }

    mutating func bytesArrived() -> Action {
        guard phase == .waiting else { return .keep }
        phase = .readingHead
        return .arm(.requestHead)
    }

    mutating func headRead() -> Action {
        unanswered += 1
        phase = .readingBody
        // Behind an answer under way the body cannot come (NIO reads no further until that answer ends): its
        // deadline starts when that answer ends.
        return unanswered == 1 ? .arm(.requestBody) : .disarm
    }

    mutating func endRead() -> Action {
        // An answer may end before its request does (a refusal before the body is read): then nothing is under way.
        if unanswered == 0 {
            phase = .waiting
            return .arm(.idle)
        }
        phase = .answering
        return .disarm
    }

    mutating func answerEnded() -> Action {
        unanswered -= 1
        if unanswered == 0, phase == .answering {
            phase = .waiting
            return .arm(.idle)
        }
        if unanswered == 1, phase == .readingBody { return .arm(.requestBody) }
        return .keep
    }

    /// The deadline of the phase the connection is in, counted afresh: what applies again once an answer the client
    /// was not reading moves on.
    func current() -> Action {
        switch phase {
        case .waiting: .arm(.idle)
        case .readingHead: .arm(.requestHead)
        case .readingBody: unanswered <= 1 ? .arm(.requestBody) : .disarm
        case .answering: .disarm
        }
    }

    /// Answers being written, or owed for requests read whole; a request still being read is not counted.
    var answersUnderWay: Int { unanswered - (phase == .readingBody && unanswered > 0 ? 1 : 0) }
}

/// Sees raw bytes come in, before the HTTP parser, so the head's deadline starts with a request's first byte.
final class RequestBytesArrived: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let rules: ConnectionRules

    init(rules: ConnectionRules) {
        self.rules = rules
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        rules.bytesArrived()
        context.fireChannelRead(data)
    }
}

/// nudged's rules for one connection, between NIO's HTTP/1 parser and Hummingbird:
/// - the deadlines of `ConnectionDeadlines`: past one, the connection is closed;
/// - a connection past the cap is answered 503 (`too_many_connections`) and closed;
/// - each answer goes out in its request's HTTP version; one whose request does not keep the connection alive
///   (HTTP/1.0 without `keep-alive`, `Connection: close` in any case), or that HTTP/1.0 can only end by closing (no
///   `Content-Length`: an event stream), says `Connection: close`, and the connection is closed after it; requests
///   sent behind such a request are not read;
/// - a request head the parser refuses, with nothing under way, gets the document's `Error` body, then the
///   connection is closed; any other parse error goes on to Hummingbird, so a body cut short fails its request
///   instead of ending it;
/// - an answer the client does not read (the channel stays unwritable) for `idle` closes the connection;
/// - when nudged stops (Hummingbird's quiesce event), a connection with no answer under way closes at once, and one
///   with answers under way after them, or after `shutdownGrace` at the latest; no further request is read.
final class ConnectionRules: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What an answer owes its request, in the order the requests came.
    private struct Owed {
        var version: HTTPVersion
        var closes: Bool
    }

    private let limits: ConnectionLimits
    private let admitted: Bool
    private let logger: Logger
    private var deadlines = ConnectionDeadlines()
    private var context: ChannelHandlerContext?
    private var scheduled: Scheduled<Void>?
    private var owed: [Owed] = []
    /// Once false, a request head that comes is dropped with its body: after a request that closes the connection,
    /// past a refusal, while stopping.
    private var readsRequests = true
    private var droppingRequest = false
    /// Stopping: the grace deadline stands, whatever else happens.
    private var stopping = false

    init(limits: ConnectionLimits, admitted: Bool, logger: Logger) {
        self.limits = limits
        self.admitted = admitted
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if admitted {
            carryOut(deadlines.start())
        } else {
            schedule(after: limits.refusal, "sent no request head within \(limits.refusal) past the connection cap")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        self.context = nil
    }

    func bytesArrived() {
        // Past the cap, the one deadline is the refusal's.
        if admitted { carryOut(deadlines.bytesArrived()) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head = part { droppingRequest = !readsRequests }
        guard !droppingRequest else { return }
        switch part {
        case .head(var head):
            guard admitted else {
                refuse(.tooManyConnections(limits.connections), version: head.version)
                return
            }
            carryOut(deadlines.headRead())
            owed.append(Owed(version: head.version, closes: !head.isKeepAlive))
            if !head.isKeepAlive {
                readsRequests = false
                // Hummingbird ends the connection after the answer only on exactly this value.
                head.headers.replaceOrAdd(name: "connection", value: "close")
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .body:
            context.fireChannelRead(data)
        case .end:
            carryOut(deadlines.endRead())
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if var answer = owed.first {
                head.version = answer.version
                let chunkless = answer.version.major < 1 || (answer.version.major == 1 && answer.version.minor == 0)
                // HTTP/1.0 has no chunks: a body of unknown length ends when the connection does.
                if chunkless, !head.headers.contains(name: "content-length") { answer.closes = true }
                if answer.closes {
                    head.headers.replaceOrAdd(name: "connection", value: "close")
                } else if chunkless {
                    head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
                }
                owed[0] = answer
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            carryOut(deadlines.answerEnded())
            let answer = owed.isEmpty ? nil : owed.removeFirst()
            guard answer?.closes == true || (stopping && deadlines.answersUnderWay == 0) else {
                context.write(data, promise: promise)
                return
            }
            readsRequests = false
            // Closed once the answer is written out, not before: a close drops writes still waiting.
            let written = context.eventLoop.makePromise(of: Void.self)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError, deadlines.unanswered == 0, deadlines.phase != .readingBody else {
            // Hummingbird fails the request being read (and answers 400 if it can), or ends the connection.
            readsRequests = false
            context.fireErrorCaught(error)
            return
        }
        // A head that cannot be read, with nothing under way: Hummingbird would answer an empty 400.
        refuse(.unparsable(error), version: .http1_1)
    }

    /// An answer the client does not read fills the socket, and NIO reports the channel unwritable: the client gets as
    /// long as an idle connection to take some of it. (An event stream's watcher is dropped first, at 1 MiB behind;
    /// this closes its connection too.)
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            carryOut(deadlines.current())
        } else if !stopping {
            schedule(after: limits.idle, "read none of its answer for \(limits.idle)")
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            readsRequests = false
            if deadlines.answersUnderWay == 0 {
                context.close(promise: nil)
            } else {
                schedule(
                    after: limits.shutdownGrace,
                    "was still being answered \(limits.shutdownGrace) after nudged began to stop"
                )
                stopping = true
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func carryOut(_ action: ConnectionDeadlines.Action) {
        guard !stopping else { return }
        switch action {
        case .keep:
            break
        case .disarm:
            scheduled?.cancel()
            scheduled = nil
        case .arm(let deadline):
            let limit = deadline.limit(in: limits)
            let what =
                switch deadline {
                case .idle: "was idle for \(limit)"
                case .requestHead: "sent no whole request head within \(limit)"
                case .requestBody: "sent no whole request body within \(limit)"
                }
            schedule(after: limit, what)
        }
    }

    /// Closes the connection after `limit` unless another deadline replaces this one first.
    private func schedule(after limit: TimeAmount, _ why: String) {
        scheduled?.cancel()
        guard let context else { return }
        let logger = logger
        scheduled = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: limit) {
            logger.debug("closed a connection: it \(why)")
            context.close(promise: nil)
        }
    }

    /// Answers `failure` in place of Hummingbird, and closes the connection once it is written (or when the client
    /// has not taken it within `refusal`).
    private func refuse(_ failure: APIFailure, version: HTTPVersion) {
        guard let context else { return }
        readsRequests = false
        droppingRequest = true
        schedule(after: limits.refusal, "did not take its refusal within \(limits.refusal)")
        let body = failure.body()
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: "\(body.readableBytes)")
        headers.add(name: "connection", value: "close")
        let status = HTTPResponseStatus(statusCode: failure.status.code, reasonPhrase: failure.status.reasonPhrase)
        let head = HTTPResponseHead(version: version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
