import CLinux
import Foundation
import NudgeSystem
import SystemPackage

extension String {
    /// C strings (a program's arguments and environment, D-Bus strings) hold no NUL: one shows as U+2400 (␀) instead
    /// of cutting the text short.
    var showingNUL: String {
        contains("\0") ? replacingOccurrences(of: "\0", with: "\u{2400}") : self
    }
}

/// Runs programs for the sinks: the seam where unit tests put a fake.
public protocol ProcessRunner: Sendable {
    func run(_ command: ProcessCommand) async -> ProcessOutcome
}
