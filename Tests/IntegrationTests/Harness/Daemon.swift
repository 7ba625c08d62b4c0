import Foundation
import Synchronization
import Testing

/// A running `nudged` on a sandbox, its stderr (its log) collected line by line.
final class Daemon: Sendable {
    let process: Process
    let logLines: LineCollector<String>

    /// Starts nudged (through `launcher`, e.g. prlimit, if given) and waits until its socket listens; fails, with
    /// its log, if it exits first. Reminders go to `sinks` (`--sinks`; nil for nudged's default), the log sink unless
    /// told; it runs on a manual clock at `TestClock.epoch` unless told.
    init(
        _ sandbox: Sandbox,
        sinks: String? = "log",
        clock: TestClock = .manual(TestClock.epoch),
        arguments: [String] = [],
        launcher: [String] = [],
        environment: [String: String]? = nil
    ) async throws {
        try Binaries.require(Binaries.nudged)
        logLines = try LineCollector(path: sandbox.path + "/nudged-\(UUID().uuidString.prefix(8)).log")
        process = Process()
        let command =
            launcher + [Binaries.nudged, "--store", sandbox.store, "--socket", sandbox.socket]
            + (sinks.map { ["--sinks", $0] } ?? []) + clock.arguments + arguments
        if let environment { process.environment = environment }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardError = try logLines.writer()
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        do {
            try await IntegrationTests.eventually(
                "nudged to listen on \(sandbox.socket)",
                seen: { "its log:\n\(logLines.tail())" }
            ) {
                if let status = process.exitStatus {
                    throw Failure(
                        "nudged exited with \(status) before it listened; its log:\n"
                            + logLines.text
                    )
                }
                return isListening(sandbox.socket)
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Everything nudged has logged so far.
    var log: String { logLines.text }

    /// Waits until nudged has logged `times` lines containing `text`; returns the last of them. Each line is looked
    /// at once, however long the wait. Each new such line restarts the wait: a long run of them is progress, however
    /// slowly it comes, and only `limit` without one is a hang.
    @discardableResult
    func awaitLog(
        _ text: String,
        times: Int = 1,
        within limit: Duration = patience,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var looked = 0
        var found: [String] = []
        while true {
            let foundBefore = found.count
            let last: String? = try await IntegrationTests.eventually(
                "nudged to log \"\(text)\"" + (times == 1 ? "" : " \(times) times"),
                within: limit,
                seen: { "\(found.count) such lines; nudged's log ends:\n\(logLines.tail())" },
                sourceLocation: sourceLocation
            ) { () -> String?? in
                let lines = logLines.lines(from: looked)
                looked += lines.count
                found += lines.filter { $0.contains(text) }
                if found.count >= times { return .some(found.last) }
                return found.count > foundBefore ? .some(nil) : nil
            }
            if let last { return last }
        }
    }

    /// `eventually`, saying on failure what nudged logged last.
    func eventually(
        _ awaited: @autoclosure () -> String,
        within limit: Duration = patience,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        try await IntegrationTests.eventually(
            awaited(),
            within: limit,
            seen: { "nudged's log ends:\n\(logLines.tail())" },
            sourceLocation: sourceLocation,
            condition
        )
    }

    /// SIGTERM, then waits for nudged to exit; returns the exit status. nudged stops within about a second: one still
    /// running `patience` after SIGTERM is a fault, recorded with its log and its threads' states, then killed, so a
    /// hang is reported where it happened instead of as some test's time limit.
    @discardableResult
    func stop() -> Int32 {
        if let status = process.exitStatus { return status }
        process.terminate()
        if let status = process.awaitExit() { return status }
        let pid = process.processIdentifier
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let threads = tasks.sorted().map { task in
            let file = { (name: String) in
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/\(name)", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            }
            return "\(task) \(file("comm")) waits in \(file("wchan"))"
        }
        let said = "nudged (pid \(pid)) did not stop within \(patience) of SIGTERM; its threads: "
        Issue.record("\(said)\(threads.joined(separator: "; "))\nits log ends:\n\(logLines.tail())")
        kill(pid, SIGKILL)
        return process.awaitExit() ?? SIGKILL
    }
}
