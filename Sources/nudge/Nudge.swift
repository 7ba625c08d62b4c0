import ArgumentParser
import Foundation
import NudgeCore

/// The `nudge` command: the command-line client of nudged. Exit status follows DESIGN §7: 0 ok, 1 the daemon
/// refused, 2 usage, 3 the daemon cannot be reached.
@main
struct Nudge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nudge",
        abstract: "Keep checklists and be reminded when items fall due.",
        discussion: """
            nudge talks to nudged, the reminder daemon, over its Unix socket (see --socket on each command). \
            Start the daemon with 'nudged' or 'systemctl --user start nudged'. Every command takes --json to print \
            the daemon's JSON answer instead of text.

            Examples:
              nudge add water the plants --due "today 17:00"
              nudge ls
              nudge done 7
              nudge watch

            Exit status: 0 success, 1 the daemon refused (its message is printed), 2 usage error, \
            3 cannot reach the daemon.
            """,
        version: NudgeVersion.current,
        subcommands: [
            AddCommand.self, LsCommand.self, ShowCommand.self, EditCommand.self, DoneCommand.self,
            UndoneCommand.self, SnoozeCommand.self, RmCommand.self, PendingCommand.self, WatchCommand.self,
            EventsCommand.self,
            ClockCommand.self, CalendarCommand.self, ListsCommand.self, ListCommand.self,
        ]
    )

    /// ArgumentParser's own `main()`, except that usage errors exit 2 (DESIGN §7) instead of 64, and a `CLIError`
    /// prints `nudge: <message>` and exits with its code.
    static func main() async {
        var command: (any ParsableCommand)?
        do {
            command = try await asyncParseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else if var command {
                try command.run()
            }
        } catch let error as CLIError {
            Output.error(error.message)
            if let json = error.json, (command as? any DaemonCommand)?.global.json == true {
                Output.json(json)
            }
            Foundation.exit(error.exitCode.rawValue)
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            Output.standardError(fullMessage(for: error))
            Foundation.exit(usageExitCode.rawValue)
        }
    }

    static let usageExitCode = ExitCode(2)
}
