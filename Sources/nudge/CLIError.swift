import ArgumentParser
import Foundation
import NudgeCore

/// Why a `nudge` command failed, with the exit code DESIGN §7 gives it: 1 the daemon refused, 2 usage, 3 the daemon
/// cannot be reached. The message is one sentence a person can act on; `nudge: ` is prefixed when it is printed.
struct CLIError: Error, CustomStringConvertible {
    private enum Code {
        case refused
        case usage
        case unreachable
    }

    private let code: Code
    let message: String
    /// What `--json` prints on stdout: the daemon's own error document, when there is one.
    let json: Data?

    private init(_ code: Code, _ message: String, json: Data? = nil) {
        self.code = code
        self.message = message
        self.json = json
    }

    var description: String { message }

    var exitCode: ExitCode {
        switch code {
        case .refused: ExitCode(1)
        case .usage: ExitCode(2)
        case .unreachable: ExitCode(3)
        }
    }

    /// The daemon answered with an error; its message is the whole story.
    static func refused(_ message: String, json: Data?) -> CLIError {
        CLIError(.refused, message, json: json)
    }

    /// The daemon answered, but with something this client cannot read.
    static func unreadableAnswer(from socketPath: String, _ problem: String) -> CLIError {
        CLIError(
            .refused,
            "nudged at \(socketPath) answered with something this nudge cannot read (\(problem)); "
                + "are nudge and nudged from the same version?"
        )
    }

    static func usage(_ message: String) -> CLIError {
        CLIError(.usage, message)
    }

    static func unreachable(_ socketPath: String, reason: String) -> CLIError {
        CLIError(
            .unreachable,
            "cannot reach nudged at \(socketPath) (\(reason)); start it with 'nudged' "
                + "(or 'systemctl --user start nudged'), or point --socket / NUDGE_SOCKET at its socket"
        )
    }

    /// nudged ended `nudge watch`'s stream because it fell too far behind; `message` is nudged's.
    static func watcherDropped(_ message: String) -> CLIError {
        CLIError(.unreachable, "nudged dropped this watch: \(message)")
    }

    /// `nudge watch` lost its stream: the daemon stopped or restarted.
    static func daemonWentAway(_ socketPath: String, reason: String) -> CLIError {
        CLIError(
            .unreachable,
            "nudged at \(socketPath) went away (\(reason)); start it again with 'nudged' "
                + "(or 'systemctl --user start nudged') and run 'nudge watch' again"
        )
    }

    /// A list named on the command line that does not exist: did you mean one that does?
    static func unknownList(_ name: String, known: [String]) -> CLIError {
        let lists = known.isEmpty ? "there are none" : "lists: " + known.joined(separator: ", ")
        let suggestion = Spelling.closest(to: name, among: known).map { "did you mean \"\($0)\"? " } ?? ""
        return CLIError(.refused, "there is no list named \"\(name)\"; \(suggestion)\(lists)")
    }

}
