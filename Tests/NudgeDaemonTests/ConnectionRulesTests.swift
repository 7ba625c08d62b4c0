import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import NudgeDaemon

/// nudged's rules for one connection, on NIO's embedded channel behind the real HTTP/1 parser, with time driven by
/// the test: each deadline closes the connection when it passes and not a moment before, and the answers nudged
/// gives in place of Hummingbird have the document's `Error` body.
@Suite struct ConnectionRulesTests {
    static let limits = ConnectionLimits()

    /// A connection as nudged's pipeline holds it: bytes in, the parser, the rules; what the rules pass on is read
    /// back as parser parts, and answers are written as parser parts.
    final class Connection {
        let channel = EmbeddedChannel()

        init(admitted: Bool = true, limits: ConnectionLimits = ConnectionRulesTests.limits) throws {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false,
                withErrorHandling: false
            )
            let rules = ConnectionRules(limits: limits, admitted: admitted, logger: Logger(label: "test"))
            try channel.pipeline.syncOperations.addHandler(rules)
            try channel.pipeline.syncOperations.addHandler(RequestBytesArrived(rules: rules), position: .first)
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/nudged.sock")).wait()
        }

        var isOpen: Bool { channel.isActive }

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
        }

        func pass(_ seconds: Int64, milliseconds: Int64 = 0) {
            channel.embeddedEventLoop.advanceTime(by: .seconds(seconds) + .milliseconds(milliseconds))
        }

        /// The parts the rules passed on to Hummingbird.
        func passedOn() throws -> [HTTPServerRequestPart] {
            var parts: [HTTPServerRequestPart] = []
            while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
            return parts
        }

        func answer(status: HTTPResponseStatus = .ok, body: String = "{}") throws {
            var headers = HTTPHeaders()
            headers.add(name: "content-length", value: "\(body.utf8.count)")
            let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
            try channel.writeOutbound(HTTPServerResponsePart.head(head))
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }

        /// Everything written to the client so far.
        func written() throws -> String {
            var text = ""
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }
    }

    static let health = "GET /v1/health HTTP/1.1\r\nHost: nudged\r\n\r\n"

    @Test func aPartialHeadIsClosedAtTheHeadDeadlineCountedFromItsFirstByte() throws {
        let connection = try Connection()
        connection.pass(50)
        try connection.send("GET /v1/hea")
        connection.pass(9, milliseconds: 990)
        #expect(connection.isOpen, "closed before the head's deadline")
        connection.pass(0, milliseconds: 20)
        #expect(!connection.isOpen, "a partial head kept the connection past 10 s")
    }

    @Test func aPartialBodyIsClosedAtTheBodyDeadlineCountedFromTheHead() throws {
        let connection = try Connection()
        try connection.send("POST /v1/items HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        connection.pass(20)
        try connection.send("\"text\"")
        connection.pass(9, milliseconds: 990)
        #expect(connection.isOpen, "closed before the body's deadline")
        connection.pass(0, milliseconds: 20)
        #expect(!connection.isOpen, "a partial body kept the connection past 30 s")
    }

    @Test func aConnectionWithNoRequestUnderWayIsClosedWhenIdleAndOneBeingAnsweredNever() throws {
        let connection = try Connection()
        try connection.send(Self.health)
        #expect(try connection.passedOn().count == 2)
        // Being answered, however long (an event stream), is not idle.
        connection.pass(86_400)
        #expect(connection.isOpen, "a request being answered was timed out")
        try connection.answer()
        connection.pass(59, milliseconds: 990)
        #expect(connection.isOpen, "closed before the idle deadline")
        connection.pass(0, milliseconds: 20)
        #expect(!connection.isOpen, "an idle connection was kept past 60 s")
    }

    @Test func anAnswerTheClientDoesNotReadClosesTheConnectionAfterTheIdleTimeout() throws {
        let stalled = try Connection()
        try stalled.send(Self.health)
        stalled.channel.isWritable = false
        stalled.channel.pipeline.fireChannelWritabilityChanged()
        stalled.pass(59, milliseconds: 990)
        #expect(stalled.isOpen, "closed before the idle timeout")
        stalled.pass(0, milliseconds: 20)
        #expect(!stalled.isOpen, "an answer nobody read held the connection past 60 s")

        // One that reads again is back to no deadline while it is answered.
        let reading = try Connection()
        try reading.send(Self.health)
        reading.channel.isWritable = false
        reading.channel.pipeline.fireChannelWritabilityChanged()
        reading.pass(30)
        reading.channel.isWritable = true
        reading.channel.pipeline.fireChannelWritabilityChanged()
        reading.pass(86_400)
        #expect(reading.isOpen, "a client that read its answer again was timed out")
    }

    @Test func anAnswerBeforeTheBodyEndsLeavesTheConnectionIdleOnceTheBodyHasCome() throws {
        let connection = try Connection()
        try connection.send("POST /v1/items HTTP/1.1\r\nContent-Length: 4\r\n\r\n{")
        try connection.answer(status: .unsupportedMediaType)
        try connection.send("}  ")
        connection.pass(59)
        #expect(connection.isOpen)
        connection.pass(2)
        #expect(!connection.isOpen, "the connection was neither idle nor closed")
    }

    @Test func http10AndConnectionCloseAreAnsweredInKindAndClosedAfterTheAnswer() throws {
        for (request, version) in [
            ("GET /v1/health HTTP/1.0\r\n\r\n", HTTPVersion.http1_0),
            ("GET /v1/health HTTP/1.1\r\nConnection: Close\r\n\r\n", .http1_1),
            ("GET /v1/health HTTP/1.1\r\nConnection: TE, close\r\n\r\n", .http1_1),
        ] {
            let connection = try Connection()
            try connection.send(request)
            guard case .head(let head) = try connection.passedOn().first else {
                Issue.record("no head passed on for \(request)")
                continue
            }
            // Hummingbird ends a connection only on exactly this value.
            #expect(head.headers["connection"] == ["close"], "\(request)")
            try connection.answer()
            let answer = try connection.written()
            #expect(answer.hasPrefix("HTTP/\(version.major).\(version.minor) 200 OK\r\n"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close\r\n"), "\(answer)")
            #expect(!connection.isOpen, "\(request) left the connection open")
        }
        let keptAlive = try Connection()
        try keptAlive.send("GET /v1/health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        try keptAlive.answer()
        #expect(try keptAlive.written().lowercased().contains("connection: keep-alive\r\n"))
        #expect(keptAlive.isOpen, "an HTTP/1.0 keep-alive request closed the connection")
        // An HTTP/1.0 answer of unknown length (an event stream) can only end with the connection.
        try keptAlive.send("GET /v1/events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        try keptAlive.channel.writeOutbound(
            HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders()))
        )
        try keptAlive.channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(try keptAlive.written().lowercased().contains("connection: close\r\n"))
        #expect(!keptAlive.isOpen, "an HTTP/1.0 answer without a length left the connection open")
    }

    @Test func aRequestSentBehindOneThatClosesTheConnectionIsNotRead() throws {
        let connection = try Connection()
        // NIO's parser refuses bytes after a request that closes the connection; the error goes on to Hummingbird.
        #expect(throws: (any Error).self) {
            try connection.send("GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n" + Self.health)
        }
        let passed = try connection.passedOn()
        #expect(passed.count == 2, "\(passed)")
        try connection.answer()
        #expect(!connection.isOpen)
    }

    @Test func aBodyCutShortFailsItsRequestInsteadOfEndingIt() throws {
        let connection = try Connection()
        try connection.send("POST /v1/items HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"text\": \"x\"}")
        #expect(try connection.passedOn().count == 2, "the head and the body so far")
        // The client ends its side: the parser's error must reach Hummingbird, which fails the body's read.
        #expect(throws: HTTPParserError.self) { try connection.channel.finish() }
    }

    @Test func whatTheParserRefusesIsAnsweredWithTheErrorBodyAndClosed() throws {
        for (request, status, code) in [
            ("GARBAGE\r\n\r\n", "400 Bad Request", "unparsable_request"),
            ("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 90_000) + "\r\n\r\n", "431", "headers_too_large"),
        ] {
            let connection = try Connection()
            // Answered here: the parser's error goes no further, so Hummingbird's empty 400 never comes.
            try connection.send(request)
            let answer = try connection.written()
            #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(answer.prefix(200))")
            #expect(answer.contains(#"{"error":{"code":"\#(code)","message":"#), "\(answer.prefix(300))")
            #expect(!connection.isOpen)
        }
    }

    @Test func aConnectionPastTheCapIsAnswered503OrClosedWithinTheRefusalDeadline() throws {
        let refused = try Connection(admitted: false)
        try refused.send(Self.health)
        #expect(try refused.passedOn().isEmpty, "a request past the cap reached the routes")
        let answer = try refused.written()
        #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable"), "\(answer)")
        #expect(answer.contains(#""code":"too_many_connections""#), "\(answer)")
        #expect(!refused.isOpen)

        let silent = try Connection(admitted: false)
        try silent.send("GET /v1/hea")
        silent.pass(1, milliseconds: 10)
        #expect(!silent.isOpen, "a silent connection past the cap was kept past the refusal deadline")
    }

    @Test func stoppingClosesWhatIsNotBeingAnsweredAtOnceAndTheRestAfterTheAnswerOrTheGrace() throws {
        let waiting = try Connection()
        let reading = try Connection()
        try reading.send("POST /v1/items HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        let answered = try Connection()
        try answered.send(Self.health)
        let stalled = try Connection()
        try stalled.send(Self.health)
        for connection in [waiting, reading, answered, stalled] {
            connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        #expect(!waiting.isOpen && !reading.isOpen, "a connection not being answered was kept after the stop began")
        #expect(answered.isOpen && stalled.isOpen)
        try answered.answer()
        #expect(!answered.isOpen, "a connection was kept after its answer while stopping")
        stalled.pass(0, milliseconds: 990)
        #expect(stalled.isOpen)
        stalled.pass(0, milliseconds: 20)
        #expect(!stalled.isOpen, "an answer under way held the stop past the grace")
    }
}
