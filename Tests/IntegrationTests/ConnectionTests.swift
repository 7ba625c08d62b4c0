import Foundation
import Testing

/// The real nudged's connections under clients that misbehave: half-sent requests, silence, floods of connections,
/// too few file descriptors, and a stop in the middle of all of it (docs/RELIABILITY.md). One at a time: the floods
/// load a two-core machine enough on their own, beside the other suites.
@Suite(.serialized, .timeLimit(hangLimit)) struct ConnectionTests {
    static let health = "GET /v1/health HTTP/1.1\r\nHost: nudged\r\n\r\n"
    static let events = "GET /v1/events HTTP/1.1\r\nHost: nudged\r\n\r\n"
    static let halfBody = "POST /v1/items HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"

    @Test func eachTimeoutClosesItsConnectionAndAnEventStreamOutlivesThemAll() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            arguments: ["--request-head-timeout", "1s", "--request-body-timeout", "2s", "--idle-timeout", "3s"]
        )
        defer { daemon.stop() }
        let stream = try RawConnection(sandbox.socket, sending: Self.events)
        defer { stream.close() }
        let cases = [
            ("half a head", try RawConnection(sandbox.socket, sending: "GET /v1/hea")),
            ("half a body", try RawConnection(sandbox.socket, sending: Self.halfBody)),
            ("nothing", try RawConnection(sandbox.socket)),
            ("one whole request", try RawConnection(sandbox.socket, sending: Self.health)),
        ]
        defer { for (_, connection) in cases { connection.close() } }
        for (sent, connection) in cases {
            try await daemon.eventually("nudged to close the connection that sent \(sent)") {
                try connection.readAvailable()
            }
        }
        #expect(cases[3].1.text.hasPrefix("HTTP/1.1 200 OK"), "\(cases[3].1.text)")
        // The idle timeout has passed for the stream too; it still carries events.
        _ = try await sandbox.addItem("still watched", due: TestClock.epoch + 3600)
        try await daemon.eventually("the event stream to carry the new item's event") {
            try stream.readAvailable()
            return stream.text.contains("event: scheduled")
        }
        #expect(!stream.ended)
    }

    @Test func http10ConnectionCloseAndUnparsableRequestsOverTheSocket() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        for (request, answer) in [
            ("GET /v1/health HTTP/1.0\r\n\r\n", "HTTP/1.0 200 OK"),
            ("GET /v1/health HTTP/1.1\r\nConnection: Close\r\n\r\n", "HTTP/1.1 200 OK"),
            ("GARBAGE\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("GET /v1/health HTTP/1.1\r\nX: \(String(repeating: "a", count: 90_000))\r\n\r\n", "HTTP/1.1 431"),
        ] {
            let connection = try RawConnection(sandbox.socket, sending: request)
            defer { connection.close() }
            try await daemon.eventually("nudged to answer \(request.prefix(40)) and close") {
                try connection.readAvailable()
            }
            #expect(connection.text.hasPrefix(answer), "\(connection.text)")
            let body = connection.text.components(separatedBy: "\r\n\r\n").last ?? ""
            #expect(body.hasPrefix("{"), "not JSON: \(connection.text)")
        }
    }

    /// SIGTERM ends nudged whatever its clients are doing: sending half a request, watching, not reading what they are
    /// sent, or nothing at all. (How long it takes is printed here; `scripts/bench store` measures the clean stop.)
    @Test func aStopEndsWhateverTheClientsAreDoing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        let text = String(repeating: "x", count: 100_000)
        let itemID = try await sandbox.addItem(text, due: TestClock.epoch + 3600)
        let stalled = try RawConnection(sandbox.socket, sending: Self.events, receiveBuffer: 4096)
        let connections = [
            try RawConnection(sandbox.socket, sending: "GET /v1/hea"),
            try RawConnection(sandbox.socket, sending: Self.halfBody),
            try RawConnection(sandbox.socket),
            try RawConnection(sandbox.socket, sending: Self.events),
            stalled,
        ]
        defer { for connection in connections { connection.close() } }
        try await daemon.eventually("both watchers to be subscribed") {
            try await sandbox.health()["watchers"] as? Int == 2
        }
        // Far more than the stalled watcher's socket buffers hold (well under the 1 MiB a watcher may fall behind).
        for _ in 0..<6 {
            let edit = try await sandbox.curl("PATCH", "/v1/items/\(itemID)", body: #"{"shouldRemind": true}"#)
            #expect(edit.status == 200, "\(edit)")
        }
        let stopping = ContinuousClock.now
        kill(daemon.process.processIdentifier, SIGTERM)
        let status = try await IntegrationTests.eventually("nudged to exit") { daemon.process.exitStatus }
        print("nudged stopped \(ContinuousClock.now - stopping) after SIGTERM")
        #expect(status == 0, "\(daemon.log)")
    }

    @Test func pastTheCapNewConnectionsAreAnswered503AndTheOpenOnesKeepWorking() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, arguments: ["--max-connections", "4"])
        defer { daemon.stop() }
        var open: [RawConnection] = []
        defer { for connection in open { connection.close() } }
        for _ in 0..<4 {
            let connection = try RawConnection(sandbox.socket, sending: Self.health)
            open.append(connection)
            try await daemon.eventually("an answer on an open connection") {
                try connection.readAvailable()
                return connection.text.hasSuffix("}")
            }
        }
        let refused = try RawConnection(sandbox.socket, sending: Self.health)
        defer { refused.close() }
        try await daemon.eventually("nudged to refuse the fifth connection") { try refused.readAvailable() }
        #expect(refused.text.hasPrefix("HTTP/1.1 503"), "\(refused.text)")
        #expect(refused.text.contains(#""code":"too_many_connections""#), "\(refused.text)")
        try await daemon.awaitLog("the connection cap is reached (--max-connections 4): new ones are answered 503")

        try open[0].send(Self.health)
        try await daemon.eventually("a second answer on an open connection") {
            try open[0].readAvailable()
            return open[0].text.components(separatedBy: "HTTP/1.1 200 OK").count == 3
        }
        open[1].close()
        open.remove(at: 1)
        try await daemon.eventually("a new connection to be served once one closed") {
            try await sandbox.curl("GET", "/v1/health").status == 200
        }
    }

    /// 2,000 connections that each sent half a request head, held open: health still answers, at once. nudged
    /// starts with the usual soft limit of 1,024 open files, and must raise it to serve them.
    @Test func healthAnswersWithin100MillisecondsWhile2000ConnectionsFlood() async throws {
        try Self.allowOpenFiles(4096)
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, launcher: ["/usr/bin/prlimit", "--nofile=1024:8192", "--"])
        defer { daemon.stop() }
        var flood: [RawConnection] = []
        defer { for connection in flood { connection.close() } }
        for _ in 0..<2000 {
            flood.append(try await Self.connecting { try RawConnection(sandbox.socket, sending: "GET /v1/hea") })
        }
        // Once nudged has caught up with accepting the flood, health is timed from the connect.
        try await daemon.eventually("health to answer beside the flood") {
            try await sandbox.curl("GET", "/v1/health").status == 200
        }
        var latencies: [Duration] = []
        for _ in 0..<20 {
            let asking = ContinuousClock.now
            let connection = try await Self.connecting {
                try RawConnection(sandbox.socket, sending: "GET /v1/health HTTP/1.0\r\n\r\n")
            }
            defer { connection.close() }
            #expect(try connection.awaitEnd(within: patience), "health did not answer within \(patience)")
            latencies.append(ContinuousClock.now - asking)
            #expect(connection.text.hasPrefix("HTTP/1.0 200 OK"), "\(connection.text)")
        }
        latencies.sort()
        // A figure, not a condition: answering at all (above) is what this test holds nudged to.
        print("health beside 2,000 flooding connections: median \(latencies[10]), slowest \(latencies[19])")
        #expect(flood.allSatisfy { !$0.ended }, "a flooding connection was closed before its head deadline")
        let peak = try FloodTests.peakResidentMegabytes(daemon.process.processIdentifier)
        print("2,000 flooding connections: nudged's peak RSS \(peak) MB")
    }

    /// With too few file descriptors for a flood, nudged serves fewer connections, and the rest wait in the listen
    /// backlog: `accept` never fails with EMFILE (on which NIO would try again in a loop taking a whole core), and
    /// the flood drains.
    @Test func aFloodPastTheOpenFileLimitWaitsWithoutSpinning() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            arguments: ["--idle-timeout", "2s"],
            launcher: ["/usr/bin/prlimit", "--nofile=128:128", "--"]
        )
        defer { daemon.stop() }
        try await daemon.awaitLog("the open-file limit (128) leaves room for ")
        let pid = daemon.process.processIdentifier
        var flood: [RawConnection] = []
        defer { for connection in flood { connection.close() } }
        for _ in 0..<200 {
            guard let connection = try? RawConnection(sandbox.socket) else { break }
            flood.append(connection)
        }
        let started = (ContinuousClock.now, try Self.cpuTicks(pid))
        try await daemon.eventually("nudged to close every flooding connection") {
            try flood.allSatisfy { try $0.readAvailable() }
        }
        let wall = ContinuousClock.now - started.0
        let cpu = Double(try Self.cpuTicks(pid) - started.1) / Double(sysconf(Int32(_SC_CLK_TCK)))
        let share = cpu / (Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
        print(
            "a flood of \(flood.count) connections past the open-file limit drained in \(wall); "
                + "nudged used \(cpu) s of CPU"
        )
        #expect(share < 0.1, "nudged used \(Int(share * 100))% of a core while the flood waited")
        #expect(!daemon.log.contains("Too many open files"), "\(daemon.log)")
        #expect(try await sandbox.curl("GET", "/v1/health").status == 200)
    }

    /// The process's utime + stime, in clock ticks.
    static func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw Failure("cannot read CPU times from /proc/\(pid)/stat")
        }
        return user + system
    }

    /// Raises this process's soft open-file limit to `count`, within the hard limit.
    static func allowOpenFiles(_ count: Int) throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max >= count else {
            throw Failure("the test needs \(count) open files; the hard limit is \(limit.rlim_max) (ulimit -Hn)")
        }
        if limit.rlim_cur < count {
            limit.rlim_cur = rlim_t(count)
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Connects, trying again while the listen backlog is full (nudged is accepting as fast as it can).
    static func connecting(_ connect: () throws -> RawConnection) async throws -> RawConnection {
        try await eventually("a place in nudged's listen backlog") {
            do { return try connect() } catch is RawConnection.BacklogFull { return nil }
        }
    }
}
