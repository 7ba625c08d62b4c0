import CLinux
import Foundation
import NudgeSystem
import SystemPackage

/// How a program ended.
public enum ProcessOutcome: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
    /// Still running at the timeout, and stopped.
    case timedOut
    /// Never ran: not found, not executable, or the spawn failed.
    case notStarted(String)

    public var succeeded: Bool { self == .exited(0) }

    /// For a log line: `exited with status 2`, `was stopped after 5 s`, …
    public func describe(timeout: Duration) -> String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "was killed by signal \(signal)"
        case .timedOut: "was stopped after \(timeout.components.seconds) s without finishing"
        case .notStarted(let reason): "could not start: \(reason)"
        }
    }
}
