import Foundation
import Synchronization
import Testing

/// The built binaries: `swift build` (scripts/test does it) puts them in .build/debug of this package.
enum Binaries {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let nudged = packageRoot + "/.build/debug/nudged"
    static let nudge = packageRoot + "/.build/debug/nudge"

    static func require(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Issue.record("\(path) is not built; run `swift build` (scripts/test does) before the integration tests")
            throw CancellationError()
        }
    }
}

/// What a finished command printed and returned.
struct CommandResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program to completion with captured output.
@discardableResult
func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read before waiting, so a chatty child never blocks on a full pipe.
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus,
        stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self)
    )
}

/// Calls `body` with the socket address of `path`; nil if the path does not fit one.
func withUnixAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// A Unix socket of `type` bound at `path`; the caller closes it.
func boundUnixSocket(at path: String, type: __socket_type) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    guard withUnixAddress(path, { bind(descriptor, $0, $1) }) == 0 else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENAMETOOLONG)
        close(descriptor)
        throw error
    }
    return descriptor
}

/// A temporary directory holding one daemon's store and socket; removed by `remove()`.
struct Sandbox: Sendable {
    let path: String
    var store: String { path + "/data/Checklists.plist" }
    var socket: String { path + "/run/nudged.sock" }

    init() throws {
        var template = Array("/tmp/nudge-it-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: made)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// One HTTP request to this sandbox's daemon through `curl --unix-socket`: the status and the body.
    func curl(_ method: String, _ path: String, body: String? = nil) throws -> (status: Int, body: String) {
        var arguments = ["-s", "--unix-socket", socket, "-X", method, "-w", "\n%{http_code}"]
        if let body {
            let bodyFile = self.path + "/body-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: bodyFile, contents: Data(body.utf8))
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@" + bodyFile]
        }
        let result = try run("/usr/bin/curl", arguments + ["http://nudged" + path])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Runs `nudge` against this sandbox's daemon.
    @discardableResult
    func nudge(_ arguments: String...) throws -> CommandResult {
        try run(Binaries.nudge, arguments + ["--socket", socket])
    }
}

/// A running `nudged` on a sandbox, its stderr captured to a file.
final class Daemon: Sendable {
    let process: Process
    let logPath: String

    /// Starts nudged (through `launcher`, e.g. prlimit, if given) and waits until its socket answers; fails if it
    /// exits first. Reminders go to `sinks` (`--sinks`; nil for nudged's default), the log sink unless told.
    init(
        _ sandbox: Sandbox,
        sinks: String? = "log",
        arguments: [String] = [],
        launcher: [String] = [],
        environment: [String: String]? = nil
    ) throws {
        try Binaries.require(Binaries.nudged)
        logPath = sandbox.path + "/nudged-\(UUID().uuidString.prefix(8)).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        let command =
            launcher + [Binaries.nudged, "--store", sandbox.store, "--socket", sandbox.socket]
            + (sinks.map { ["--sinks", $0] } ?? []) + arguments
        if let environment { process.environment = environment }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date() + 20
        while Date() < deadline {
            if !process.isRunning {
                Issue.record("nudged exited with \(process.terminationStatus) before serving:\n\(log)")
                throw CancellationError()
            }
            if (try? run(Binaries.nudge, ["lists", "--socket", sandbox.socket]))?.status == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("nudged did not answer on \(sandbox.socket) within 20 s:\n\(log)")
        process.terminate()
        throw CancellationError()
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then waits; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// `nudge watch --json` in the background, collecting one event per line.
final class Watcher: Sendable {
    private let process: Process
    private let lines = LineLog()

    private final class LineLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    init(_ sandbox: Sandbox) throws {
        try Binaries.require(Binaries.nudge)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nudge)
        process.arguments = ["watch", "--json", "--socket", sandbox.socket]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let buffer = Mutex(Data())
        out.fileHandleForReading.readabilityHandler = { [lines] handle in
            let chunk = handle.availableData
            let complete: [String] = buffer.withLock { data in
                data.append(chunk)
                var found: [String] = []
                while let newline = data.firstIndex(of: 0x0A) {
                    found.append(String(decoding: data[data.startIndex..<newline], as: UTF8.self))
                    data.removeSubrange(data.startIndex...newline)
                }
                return found
            }
            if !complete.isEmpty { lines.lines.withLock { $0 += complete } }
            if chunk.isEmpty { handle.readabilityHandler = nil }
        }
        try process.run()
        // The stream is open once the server has answered; a short pause covers the connection setup.
        Thread.sleep(forTimeInterval: 0.5)
    }

    /// Every event so far, as JSON objects.
    var events: [[String: Any]] {
        lines.lines.withLock { $0 }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    func events(kind: String, item: Int) -> [[String: Any]] {
        events.filter { $0["kind"] as? String == kind && $0["itemID"] as? Int == item }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// An instant as the CLI's --due takes it.
func iso(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

func date(_ text: Any?) -> Date? {
    (text as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) }
}

/// The next whole second at least `seconds` ahead, so due instants survive the CLI's whole-second ISO form.
func wholeSecond(after seconds: TimeInterval) -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
}

/// Polls `condition` every 50 ms until it holds or `seconds` pass; whether it held.
func eventually(within seconds: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date() + seconds
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}

extension Sandbox {
    /// Adds an item through `nudge add`, due at `due` if given; its ID. The text comes after `--`, so it may start
    /// with a dash.
    func addItem(_ text: String, due: Date? = nil) throws -> Int {
        let result = try run(
            Binaries.nudge,
            ["add"] + (due.map { ["--due", iso($0)] } ?? []) + ["--socket", socket, "--", text]
        )
        #expect(result.status == 0, "nudge add failed: \(result.stderr)")
        return try #require(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.stdout)")
    }
}

/// An --on-fire program that records each run, for item N, in fired-N.time (when, seconds since 1970),
/// fired-N.args (its arguments) and fired-N.env (its environment), NUL-separated so any text survives.
struct FireRecorder {
    let directory: String
    var program: String { directory + "/record-fire" }

    init(in sandbox: Sandbox) throws {
        directory = sandbox.path + "/fired"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            dir=$(dirname "$0")
            printf '%s\\0' "$@" > "$dir/fired-$NUDGE_ITEM_ID.args"
            env -0 > "$dir/fired-$NUDGE_ITEM_ID.env"
            date +%s.%N > "$dir/fired-$NUDGE_ITEM_ID.time"
            """
        _ = FileManager.default.createFile(
            atPath: program,
            contents: Data(script.utf8),
            attributes: [.posixPermissions: 0o755]
        )
    }

    /// When the program ran for `itemID`, once it has.
    func firedAt(_ itemID: Int) -> Date? {
        (try? String(contentsOfFile: "\(directory)/fired-\(itemID).time", encoding: .utf8))
            .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            .map(Date.init(timeIntervalSince1970:))
    }

    func arguments(_ itemID: Int) -> [String] { fields("\(directory)/fired-\(itemID).args") }

    func environment(_ itemID: Int) -> [String: String] {
        var environment: [String: String] = [:]
        for entry in fields("\(directory)/fired-\(itemID).env") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            environment[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return environment
    }

    private func fields(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}
