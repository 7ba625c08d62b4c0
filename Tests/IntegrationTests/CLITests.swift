import Foundation
import Synchronization
import Testing

/// The built `nudge` binary without a daemon behind it (DESIGN §7): exit codes, the messages people act on, help,
/// and, against `FakeDaemon`, how it reads answers and the event stream.
@Suite struct CLITests {
    // MARK: No daemon

    @Test func noDaemonAtTheSocketFlagExits3NamingThePathAndHowToStartIt() throws {
        let socket = Self.missingSocketPath()
        let result = try Self.nudge(["ls", "--socket", socket])
        #expect(result.status == 3)
        #expect(result.stderr.contains("cannot reach nudged at \(socket) (no socket at that path)"))
        #expect(result.stderr.contains("start it with 'nudged' (or 'systemctl --user start nudged')"))
        #expect(result.stdout.isEmpty)
    }

    @Test func noDaemonAtNudgeSocketExits3NamingThatPath() throws {
        let socket = Self.missingSocketPath()
        let result = try Self.nudge(["pending", "--json"], environment: ["NUDGE_SOCKET": socket])
        #expect(result.status == 3)
        #expect(result.stderr.contains("cannot reach nudged at \(socket)"))
        #expect(result.stderr.contains("'nudged'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func aFileThatIsNotASocketExits3SayingSo() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/nudged.sock"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("stale".utf8)))
        let result = try Self.nudge(["lists", "--socket", path])
        #expect(result.status == 3)
        #expect(
            result.stderr.contains("cannot reach nudged at \(path) (connection refused: that path is not a socket)")
        )
    }

    // MARK: Usage errors exit 2, before any connection

    @Test func aDueDateNotUnderstoodIsAUsageErrorNamingTheWord() throws {
        let result = try Self.nudge(["add", "x", "--due", "tomorow 9am"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\"tomorow\" is not understood"))
        #expect(!result.stderr.contains("cannot reach"))
    }

    @Test func anEditWithNoChangesIsAUsageError() throws {
        let result = try Self.nudge(["edit", "3"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("nothing to change"))
        #expect(!result.stderr.contains("cannot reach"))
    }

    @Test func anEditWithBothDueAndNoDueIsAUsageError() throws {
        let result = try Self.nudge(["edit", "3", "--due", "in 1h", "--no-due"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--due and --no-due"))
    }

    @Test func anUnknownIconIsAUsageErrorListingTheValidOnes() throws {
        let result = try Self.nudge(["list", "add", "Garden", "--icon", "flowers"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("valid icons are: No Icon, Appointments"))
    }

    @Test(arguments: [["frobnicate"], ["add"], ["show", "seven"], ["ls", "--bogus"], ["list", "rename", "Only"]])
    func badArgumentsExit2(_ arguments: [String]) throws {
        let result = try Self.nudge(arguments)
        #expect(result.status == 2, "nudge \(arguments.joined(separator: " ")): \(result.stderr)")
        #expect(result.stderr.contains("Usage: nudge"))
    }

    // MARK: Help and completions

    @Test func helpExits0AndListsTheCommandsAndExitCodes() throws {
        let result = try Self.nudge(["--help"])
        #expect(result.status == 0)
        for command in ["add", "ls", "show", "edit", "done", "undone", "rm", "pending", "watch", "lists", "list"] {
            #expect(result.stdout.contains("\n  \(command) "), "--help does not list \(command)")
        }
        #expect(result.stdout.contains("3 cannot reach the daemon"))
    }

    @Test func addHelpExits0AndTeachesItsOptions() throws {
        let result = try Self.nudge(["add", "--help"])
        #expect(result.status == 0)
        for option in ["--list <name>", "--due <when>", "--remind/--no-remind", "--socket <path>", "--json"] {
            #expect(result.stdout.contains(option), "add --help does not mention \(option)")
        }
        #expect(result.stdout.contains("implies --remind"))
        #expect(result.stdout.contains("tomorrow 9am"))
    }

    @Test(arguments: [
        ["ls"], ["show"], ["edit"], ["done"], ["undone"], ["rm"], ["pending"], ["watch"], ["lists"], ["list"],
        ["list", "add"], ["list", "rename"], ["list", "rm"], ["list", "icon"],
    ])
    func everyCommandHasHelpWithAnOverview(_ command: [String]) throws {
        let result = try Self.nudge(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        if command != ["list"] {
            #expect(result.stdout.contains("--socket <path>"))
        }
    }

    @Test func listHelpNamesTheValidIcons() throws {
        let result = try Self.nudge(["list", "icon", "--help"])
        #expect(result.stdout.contains("Appointments, Birthdays, Chores"))
    }

    @Test func bashCompletionScriptIsGenerated() throws {
        let result = try Self.nudge(["--generate-completion-script", "bash"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("nudge"))
        #expect(result.stdout.contains("complete "))
    }

    // MARK: Against a fake daemon

    @Test func aRefusalExits1WithTheDaemonsMessageAndItsJSONUnderJSON() throws {
        let error = #"{"error":{"code":"unknown_item","message":"there is no item with ID 99"}}"#
        let daemon = try FakeDaemon(answers: [
            FakeDaemon.answer(status: "404 Not Found", json: error),
            FakeDaemon.answer(status: "404 Not Found", json: error),
        ])
        defer { daemon.stop() }

        let human = try Self.nudge(["show", "99", "--socket", daemon.socketPath])
        #expect(human.status == 1)
        #expect(human.stderr == "nudge: there is no item with ID 99\n")
        #expect(human.stdout.isEmpty)

        let json = try Self.nudge(["show", "99", "--json", "--socket", daemon.socketPath])
        #expect(json.status == 1)
        #expect(json.stdout == error + "\n")
        #expect(daemon.requests.allSatisfy { $0.hasPrefix("GET /v1/items/99 HTTP/1.1\r\n") })
    }

    @Test func addPrintsTheNewIDAloneAndADueDateImpliesRemind() throws {
        let daemon = try FakeDaemon(answers: [FakeDaemon.answer(status: "201 Created", json: Self.item(id: 42))])
        defer { daemon.stop() }
        let result = try Self.nudge(["add", "water", "the", "plants", "--due", "in 1h", "--socket", daemon.socketPath])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "42\n")
        let request = try #require(daemon.requests.first)
        #expect(request.hasPrefix("POST /v1/items HTTP/1.1\r\n"))
        #expect(request.lowercased().contains("content-type: application/json"))
        #expect(request.contains(#""shouldRemind":true"#))
        #expect(request.contains(#""text":"water the plants""#))
    }

    @Test func editWithNoDueSendsANullDueDate() throws {
        let daemon = try FakeDaemon(answers: [FakeDaemon.answer(status: "200 OK", json: Self.item(id: 3))])
        defer { daemon.stop() }
        let result = try Self.nudge(["edit", "3", "--no-due", "--socket", daemon.socketPath])
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(daemon.requests.first)
        #expect(request.hasPrefix("PATCH /v1/items/3 HTTP/1.1\r\n"))
        #expect(request.hasSuffix(#"{"dueDate":null}"#))
    }

    @Test func watchPrintsEachEventAsALineAndExits3WhenTheDaemonCloses() throws {
        let fired =
            #"{"at":"2026-11-21T17:00:03.2Z","due":"2026-11-21T17:00:00Z","itemID":7,"kind":"fired","#
            + #""lateBy":3.2,"listName":"Home","text":"water the plants"}"#
        let scheduled =
            #"{"at":"2026-11-21T10:00:00Z","due":"2026-11-22T09:00:00Z","itemID":8,"kind":"scheduled","#
            + #""listName":"Home","text":"call \"mum\""}"#
        // Comments, CRLF line ends and a write that splits a line: the parser must take them all.
        let stream = [
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n: keep-alive\n\n",
            "event: fired\r\ndata: \(fired)\r\n\r\nevent: sched", "uled\ndata: \(scheduled)\n\n",
        ]
        let daemon = try FakeDaemon(answers: [stream, stream])
        defer { daemon.stop() }

        let human = try Self.nudge(["watch", "--socket", daemon.socketPath])
        #expect(human.status == 3)
        #expect(
            human.stdout == """
                2026-11-21 17:00:03  fired      #7 "water the plants" (due 17:00:00, 3s late)
                2026-11-21 10:00:00  scheduled  #8 "call \\"mum\\"" (due 2026-11-22 09:00:00)

                """
        )
        #expect(human.stderr.contains("nudged at \(daemon.socketPath) went away"))

        let json = try Self.nudge(["watch", "--json", "--socket", daemon.socketPath])
        #expect(json.status == 3)
        #expect(json.stdout == fired + "\n" + scheduled + "\n")
        #expect(daemon.requests.first?.hasPrefix("GET /v1/events HTTP/1.1\r\n") == true)
    }

    // MARK: Helpers

    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let binary = packageRoot + "/.build/debug/nudge"

    /// Runs the built `nudge` in UTC (so times print predictably) with NUDGE_SOCKET pointing nowhere, so no test
    /// ever talks to a daemon the developer is running.
    static func nudge(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            Issue.record("\(binary) is not built; run `swift build` before the tests")
            throw POSIXError(.ENOENT)
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Files, not pipes: a long completion script never blocks on a full pipe while we wait.
        let outPath = directory + "/stdout"
        let errPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var base = ProcessInfo.processInfo.environment
        base["NUDGE_SOCKET"] = directory + "/no-daemon/nudged.sock"
        base["TZ"] = "UTC"
        process.environment = base.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Outcome(
            status: process.terminationStatus,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8)
        )
    }

    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/nudge-cli-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }

    /// A socket path in a directory that does not exist.
    static func missingSocketPath() -> String {
        "/tmp/nudge-cli-missing-\(UUID().uuidString)/nudged.sock"
    }

    static func item(id: Int) -> String {
        #"{"itemID":\#(id),"listID":1,"listName":"List","text":"water the plants","checked":false,"#
            + #""dueDate":"2026-11-21T17:00:00Z","shouldRemind":true,"createdAt":"2026-11-20T10:00:00Z","#
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
                if index > 0 { usleep(100_000) }
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

    /// The request head and, by its Content-Length, its body.
    private static func readRequest(_ connection: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func headEnd() -> Int? {
            guard bytes.count >= 4 else { return nil }
            return (0...(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("\r\n\r\n".utf8) }
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
