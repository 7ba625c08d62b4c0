import Foundation
import Synchronization
import Testing

/// The built `nudge` binary without a daemon behind it (DESIGN §7): exit codes, the messages people act on, help,
/// and, against `FakeDaemon`, how it reads answers and the event stream.
@Suite(.timeLimit(hangLimit)) struct CLITests {
    // MARK: No daemon

    @Test func noDaemonAtTheSocketFlagExits3NamingThePathAndHowToStartIt() async throws {
        let socket = Self.missingSocketPath()
        let result = try await Self.nudge(["ls", "--socket", socket])
        #expect(result.status == 3)
        #expect(result.stderr.contains("cannot reach nudged at \(socket) (no socket at that path)"))
        #expect(result.stderr.contains("start it with 'nudged' (or 'systemctl --user start nudged')"))
        #expect(result.stdout.isEmpty)
    }

    @Test func noDaemonAtNudgeSocketExits3NamingThatPath() async throws {
        let socket = Self.missingSocketPath()
        let result = try await Self.nudge(["pending", "--json"], environment: ["NUDGE_SOCKET": socket])
        #expect(result.status == 3)
        #expect(result.stderr.contains("cannot reach nudged at \(socket)"))
        #expect(result.stderr.contains("'nudged'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func aFileThatIsNotASocketExits3SayingSo() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/nudged.sock"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("stale".utf8)))
        let result = try await Self.nudge(["lists", "--socket", path])
        #expect(result.status == 3)
        #expect(
            result.stderr.contains("cannot reach nudged at \(path) (connection refused: that path is not a socket)")
        )
    }

    // MARK: Usage errors exit 2, before any connection

    @Test func aDueDateNotUnderstoodIsAUsageErrorNamingTheWord() async throws {
        let result = try await Self.nudge(["add", "x", "--due", "tomorow 9am"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\"tomorow\" is not understood"))
        #expect(!result.stderr.contains("cannot reach"))
    }

    @Test func anEditWithNoChangesIsAUsageError() async throws {
        let result = try await Self.nudge(["edit", "3"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("nothing to change"))
        #expect(!result.stderr.contains("cannot reach"))
    }

    @Test func anEditWithBothDueAndNoDueIsAUsageError() async throws {
        let result = try await Self.nudge(["edit", "3", "--due", "in 1h", "--no-due"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--due and --no-due"))
    }

    @Test func anUnknownIconIsAUsageErrorListingTheValidOnes() async throws {
        let result = try await Self.nudge(["list", "add", "Garden", "--icon", "flowers"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("valid icons are: No Icon, Appointments"))
    }

    @Test(arguments: [["frobnicate"], ["add"], ["show", "seven"], ["ls", "--bogus"], ["list", "rename", "Only"]])
    func badArgumentsExit2(_ arguments: [String]) async throws {
        let result = try await Self.nudge(arguments)
        #expect(result.status == 2, "nudge \(arguments.joined(separator: " ")): \(result.stderr)")
        #expect(result.stderr.contains("Usage: nudge"))
    }

    @Test(arguments: [
        (["lsit"], "unknown command 'lsit' for 'nudge'; did you mean 'nudge list'?"),
        (["pendign"], "unknown command 'pendign' for 'nudge'; did you mean 'nudge pending'?"),
        (["list", "defualt", "x"], "unknown command 'defualt' for 'nudge list'; did you mean 'nudge list default'?"),
    ])
    func aMistypedCommandGetsADidYouMean(_ arguments: [String], _ message: String) async throws {
        let result = try await Self.nudge(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("nudge: \(message)"), "\(result.stderr)")
    }

    // MARK: Help and completions

    @Test func helpExits0AndListsTheCommandsAndExitCodes() async throws {
        let result = try await Self.nudge(["--help"])
        #expect(result.status == 0)
        for command in [
            "add", "ls", "show", "edit", "done", "undone", "rm", "pending", "watch", "events", "clock", "batch",
            "lists",
            "list",
        ] {
            #expect(result.stdout.contains("\n  \(command) "), "--help does not list \(command)")
        }
        #expect(result.stdout.contains("3 cannot reach the daemon"))
    }

    @Test func bothBinariesPrintTheSameVersion() async throws {
        let nudge = try await Self.nudge(["--version"])
        let nudged = try await run(Binaries.nudged, ["--version"])
        #expect(nudge.status == 0 && nudged.status == 0, "\(nudge) \(nudged)")
        #expect(nudge.stdout.firstMatch(of: #/^[0-9]+\.[0-9]+\.[0-9]+(-[a-z0-9.]+)?\n$/#) != nil, "\(nudge)")
        #expect(nudge.stdout == nudged.stdout)
    }

    @Test func addHelpExits0AndTeachesItsOptions() async throws {
        let result = try await Self.nudge(["add", "--help"])
        #expect(result.status == 0)
        for option in ["--list <name>", "--due <when>", "--remind/--no-remind", "--socket <path>", "--json"] {
            #expect(result.stdout.contains(option), "add --help does not mention \(option)")
        }
        #expect(result.stdout.contains("implies --remind"))
        #expect(result.stdout.contains("tomorrow 9am"))
    }

    @Test(arguments: [
        ["ls"], ["show"], ["edit"], ["done"], ["undone"], ["rm"], ["pending"], ["watch"], ["events"], ["clock"],
        ["clock", "advance"], ["clock", "set"], ["batch"], ["lists"], ["list"],
        ["list", "add"], ["list", "rename"], ["list", "rm"], ["list", "icon"],
    ])
    func everyCommandHasHelpWithAnOverview(_ command: [String]) async throws {
        let result = try await Self.nudge(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        if command != ["list"] && command != ["clock"] {
            #expect(result.stdout.contains("--socket <path>"))
        }
    }

    @Test func listHelpNamesTheValidIcons() async throws {
        let result = try await Self.nudge(["list", "icon", "--help"])
        #expect(result.stdout.contains("Appointments, Birthdays, Chores"))
    }

    @Test func bashCompletionScriptIsGenerated() async throws {
        let result = try await Self.nudge(["--generate-completion-script", "bash"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("nudge"))
        #expect(result.stdout.contains("complete "))
    }

    // MARK: Against a fake daemon

    @Test func aRefusalExits1WithTheDaemonsMessageAndItsJSONUnderJSON() async throws {
        let error = #"{"error":{"code":"unknown_item","message":"there is no item with ID 99"}}"#
        let daemon = try FakeDaemon(answers: [
            FakeDaemon.answer(status: "404 Not Found", json: error),
            FakeDaemon.answer(status: "404 Not Found", json: error),
        ])
        defer { daemon.stop() }

        let human = try await Self.nudge(["show", "99", "--socket", daemon.socketPath])
        #expect(human.status == 1)
        #expect(human.stderr == "nudge: there is no item with ID 99\n")
        #expect(human.stdout.isEmpty)

        let json = try await Self.nudge(["show", "99", "--json", "--socket", daemon.socketPath])
        #expect(json.status == 1)
        #expect(json.stdout == error + "\n")
        #expect(daemon.requests.allSatisfy { $0.hasPrefix("GET /v1/items/99 HTTP/1.1\r\n") })
    }

    /// nudge reads "in 1h" against nudged's clock, which it asks first.
    @Test func addQuietPrintsTheNewIDAloneAndADueDateImpliesRemind() async throws {
        let daemon = try FakeDaemon(answers: [
            Self.clock, FakeDaemon.answer(status: "201 Created", json: Self.item(id: 42)),
        ])
        defer { daemon.stop() }
        let result = try await Self.nudge([
            "add", "water", "the", "plants", "--due", "in 1h", "--socket", daemon.socketPath, "--quiet",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "42\n")
        #expect(daemon.requests.first?.hasPrefix("GET /v1/clock HTTP/1.1\r\n") == true)
        let request = try #require(daemon.requests.dropFirst().first)
        #expect(request.hasPrefix("POST /v1/items HTTP/1.1\r\n"))
        #expect(request.lowercased().contains("content-type: application/json"))
        #expect(request.contains(#""shouldRemind":true"#))
        #expect(request.contains(#""text":"water the plants""#))
        #expect(request.contains(#""dueDate":"2026-11-20T11:00:00.000Z""#), "an hour after nudged's now: \(request)")
    }

    @Test func editWithNoDueSendsANullDueDate() async throws {
        let daemon = try FakeDaemon(answers: [Self.clock, FakeDaemon.answer(status: "200 OK", json: Self.item(id: 3))])
        defer { daemon.stop() }
        let result = try await Self.nudge(["edit", "3", "--no-due", "--socket", daemon.socketPath])
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(daemon.requests.dropFirst().first)
        #expect(request.hasPrefix("PATCH /v1/items/3 HTTP/1.1\r\n"))
        #expect(request.hasSuffix(#"{"dueDate":null}"#))
    }

    /// `GET /v1/clock` as a manual clock answers it.
    static let clock = FakeDaemon.answer(status: "200 OK", json: #"{"now":"2026-11-20T10:00:00.000Z","mode":"manual"}"#)

    @Test func watchPrintsEachEventAsALineAndExits3WhenTheDaemonCloses() async throws {
        let fired =
            #"{"at":"2026-11-21T17:00:03.2Z","due":"2026-11-21T17:00:00Z","id":41,"itemID":7,"kind":"fired","#
            + #""lateBy":3.2,"listName":"Home","text":"water the plants"}"#
        let scheduled =
            #"{"at":"2026-11-21T10:00:00Z","due":"2026-11-22T09:00:00Z","id":42,"itemID":8,"kind":"scheduled","#
            + #""listName":"Home","text":"call \"mum\""}"#
        // Comments, CRLF line ends and a write that splits a line: the parser must take them all.
        let stream = [
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n: keep-alive\n\n",
            "event: fired\r\ndata: \(fired)\r\n\r\nevent: sched", "uled\ndata: \(scheduled)\n\n",
        ]
        let daemon = try FakeDaemon(answers: [stream, stream])
        defer { daemon.stop() }

        let human = try await Self.nudge(["watch", "--socket", daemon.socketPath])
        #expect(human.status == 3)
        #expect(
            human.stdout == """
                2026-11-21 17:00:03  fired      #7 "water the plants" (due 17:00:00, 3s late)  event 41
                2026-11-21 10:00:00  scheduled  #8 "call \\"mum\\"" (due 2026-11-22 09:00:00)  event 42

                """
        )
        #expect(human.stderr.contains("nudged at \(daemon.socketPath) went away"))

        let json = try await Self.nudge(["watch", "--json", "--socket", daemon.socketPath])
        #expect(json.status == 3)
        #expect(json.stdout == fired + "\n" + scheduled + "\n")
        #expect(daemon.requests.first?.hasPrefix("GET /v1/events HTTP/1.1\r\n") == true)
    }

    // MARK: Helpers

    static let binary = Binaries.nudge

    /// Runs the built `nudge` in UTC (so times print predictably) with NUDGE_SOCKET pointing nowhere, so no test
    /// ever talks to a daemon the developer is running.
    static func nudge(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
        try Binaries.require(binary)
        var base = ProcessInfo.processInfo.environment
        base["NUDGE_SOCKET"] = missingSocketPath()
        base["TZ"] = "UTC"
        return try await run(binary, arguments, environment: base.merging(environment) { _, new in new })
    }

    static func temporaryDirectory() throws -> String {
        try IntegrationTests.temporaryDirectory("cli")
    }

    /// A socket path in a directory that does not exist.
    static func missingSocketPath() -> String {
        "/tmp/nudge-cli-missing-\(UUID().uuidString)/nudged.sock"
    }

    static func item(id: Int) -> String {
        #"{"itemID":\#(id),"listID":1,"listName":"Inbox","text":"water the plants","checked":false,"#
            + #""dueDate":"2026-11-21T17:00:00Z","shouldRemind":true,"priority":"normal","#
            + #""createdAt":"2026-11-20T10:00:00Z","#
            + #""updatedAt":"2026-11-20T10:00:00Z","pendingDue":"2026-11-21T17:00:00Z"}"#
    }
}

/// A stand-in for nudged on a Unix socket: answers each connection, in order, with the next canned answer (written
/// in the pieces given, a moment apart), then closes it, and records each request it read.
final class FakeDaemon: Sendable {
    let socketPath: String
    private let directory: String
    private let listener: Int32
    private let received = Mutex<[String]>([])

    /// The requests read so far, head and body.
    var requests: [String] { received.withLock { $0 } }

    static func answer(status: String, json: String) -> [String] {
        [
            "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(json)"
        ]
    }

    init(answers: [[String]]) throws {
        directory = try CLITests.temporaryDirectory()
        socketPath = directory + "/nudged.sock"
        listener = try boundUnixSocket(at: socketPath, type: SOCK_STREAM)
        guard listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        let thread = Thread { [self] in serve(answers) }
        thread.start()
    }

    private func serve(_ answers: [[String]]) {
        for pieces in answers {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            received.withLock { $0.append(Self.readRequest(connection)) }
            for (index, piece) in pieces.enumerated() {
                if index > 0 { Self.awaitRead(connection) }
                let bytes = Array(piece.utf8)
                var offset = 0
                while offset < bytes.count {
                    let written = bytes.withUnsafeBytes {
                        write(connection, $0.baseAddress! + offset, $0.count - offset)
                    }
                    guard written > 0 else { break }
                    offset += written
                }
            }
            close(connection)
        }
    }

    /// Returns once the client has read everything written to `connection` so far (the bytes it has not read are
    /// still charged to this end: SIOCOUTQ), so the next piece reaches it in a read of its own; gives up after `patience`.
    private static func awaitRead(_ connection: Int32) {
        let deadline = ContinuousClock.now + patience
        var unread: Int32 = 0
        while ioctl(connection, UInt(TIOCOUTQ), &unread) == 0, unread > 0, ContinuousClock.now < deadline {
            usleep(1_000)  // polls; the deadline bounds it
        }
    }

    /// The request head and, by its Content-Length, its body. Each byte is searched once for the head's end.
    private static func readRequest(_ connection: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var searched = 0
        var end: Int?
        func headEnd() -> Int? {
            if end == nil, bytes.count >= 4 {
                end = (max(0, searched - 3)...(bytes.count - 4)).first {
                    bytes[$0..<($0 + 4)].elementsEqual("\r\n\r\n".utf8)
                }
                searched = bytes.count
            }
            return end
        }
        while true {
            if let end = headEnd() {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count >= end + 4 + length { break }
            }
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
