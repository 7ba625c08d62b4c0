import CLinux
import Foundation
import NudgeSystem
import SystemPackage

/// A program to run: by argument vector, never through a shell. Arguments and environment values are C strings,
/// which cannot hold NUL, so a NUL in them is shown as U+2400 (␀) instead of silently cutting the text short.
public struct ProcessCommand: Sendable, Equatable {
    /// A path, or a name looked up in PATH.
    public var executable: String
    public var arguments: [String]
    /// Added to (or replacing in) nudged's own environment.
    public var environment: [String: String]
    /// Past this the program is stopped: SIGTERM to its process group, then SIGKILL a second later.
    public var timeout: Duration

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration) {
        self.executable = executable
        self.arguments = arguments.map(\.showingNUL)
        self.environment = environment.mapValues(\.showingNUL)
        self.timeout = timeout
    }
}
