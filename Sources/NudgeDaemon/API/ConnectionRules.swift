import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

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
