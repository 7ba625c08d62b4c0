import Foundation
import NudgeSystem
import Subprocess
import SystemPackage

/// A program to run: by argument vector, never through a shell. Arguments and environment values are C strings,
/// which cannot hold NUL, so a NUL in them is shown as U+2400 (␀) instead of silently cutting the text short.
public struct ProcessCommand: Sendable, Equatable {
    /// A path, or a name looked up in PATH.
    public var executable: String
    public var arguments: [String]
    /// Added to (or replacing in) nudged's own environment.
    public var environment: [String: String]
    /// Past this the program is stopped: SIGTERM, then SIGKILL a second later.
    public var timeout: Duration
    /// Capture stdout and stderr (up to 64 KiB each) for the caller; otherwise they go to nudged's stderr.
    public var capturesOutput: Bool

    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Duration,
        capturesOutput: Bool
    ) {
        self.executable = executable
        self.arguments = arguments.map(Self.withoutNUL)
        self.environment = environment.mapValues(Self.withoutNUL)
        self.timeout = timeout
        self.capturesOutput = capturesOutput
    }

    static func withoutNUL(_ text: String) -> String {
        text.contains("\0") ? text.replacingOccurrences(of: "\0", with: "\u{2400}") : text
    }
}

/// How a program ended, and what it printed if its output was captured.
public struct ProcessOutcome: Sendable, Equatable {
    public enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
        /// Still running at the timeout, and stopped.
        case timedOut
        /// Never ran: not found, not executable, or the spawn failed.
        case notStarted(String)
    }

    public var ending: Ending
    public var standardOutput = ""
    public var standardError = ""

    public init(_ ending: Ending, standardOutput: String = "", standardError: String = "") {
        self.ending = ending
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    public var succeeded: Bool { ending == .exited(0) }

    /// For a log line: `exited with status 2`, `was stopped after 5 s`, …
    public func describe(timeout: Duration) -> String {
        switch ending {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "was killed by signal \(signal)"
        case .timedOut: "was stopped after \(timeout.components.seconds) s without finishing"
        case .notStarted(let reason): "could not start: \(reason)"
        }
    }
}

/// Runs programs for the sinks: the seam where unit tests put a fake.
public protocol ProcessRunner: Sendable {
    func run(_ command: ProcessCommand) async -> ProcessOutcome
}

/// Runs programs with swift-subprocess, under the command's timeout.
public struct SubprocessRunner: ProcessRunner {
    static let outputLimit = 64 * 1024

    public init() {}

    public func run(_ command: ProcessCommand) async -> ProcessOutcome {
        await withTaskGroup(of: ProcessOutcome?.self) { group in
            group.addTask { await launch(command) }
            group.addTask {
                try? await EventLoopClock().sleep(for: command.timeout)
                return nil
            }
            let first = await group.next() ?? nil
            // Cancelling the launch makes swift-subprocess stop the program (teardown sequence) and reap it.
            group.cancelAll()
            if let first { return first }
            await group.waitForAll()
            return ProcessOutcome(.timedOut)
        }
    }

    private func launch(_ command: ProcessCommand) async -> ProcessOutcome {
        let executable: Executable =
            command.executable.contains("/") ? .path(FilePath(command.executable)) : .name(command.executable)
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(1))]
        var additions: [Environment.Key: String?] = [:]
        for (name, value) in command.environment {
            guard let key = Environment.Key(rawValue: name) else { continue }
            additions[key] = value
        }
        let environment = Environment.inherit.updating(additions)
        do {
            if command.capturesOutput {
                let result = try await Subprocess.run(
                    executable,
                    arguments: Arguments(command.arguments),
                    environment: environment,
                    platformOptions: options,
                    output: .string(limit: Self.outputLimit),
                    error: .string(limit: Self.outputLimit)
                )
                return ProcessOutcome(
                    Self.ending(result.terminationStatus),
                    standardOutput: result.standardOutput,
                    standardError: result.standardError
                )
            }
            let result = try await Subprocess.run(
                executable,
                arguments: Arguments(command.arguments),
                environment: environment,
                platformOptions: options,
                output: .currentStandardError,
                error: .currentStandardError
            )
            return ProcessOutcome(Self.ending(result.terminationStatus))
        } catch {
            return ProcessOutcome(.notStarted("\(error)"))
        }
    }

    private static func ending(_ status: TerminationStatus) -> ProcessOutcome.Ending {
        switch status {
        case .exited(let code): .exited(code)
        case .signaled(let signal): .signalled(signal)
        }
    }
}
