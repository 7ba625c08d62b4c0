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
            UndoneCommand.self, AckCommand.self, SnoozeCommand.self, RmCommand.self, PendingCommand.self,
            TodayCommand.self, WatchCommand.self,
            EventsCommand.self,
            ClockCommand.self, BatchCommand.self, CalendarCommand.self, ListsCommand.self, ListCommand.self,
            ExportCommand.self, ImportCommand.self, UndoCommand.self,
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
            if let unknown = unknownSubcommand(in: Array(CommandLine.arguments.dropFirst())) {
                Output.error(unknown)
            } else {
                Output.standardError(fullMessage(for: error))
            }
            Foundation.exit(usageExitCode.rawValue)
        }
    }

    /// "unknown command" with a "did you mean", when the first word that is not an option, at a level that takes a
    /// subcommand, names none: `nudge lsit` → ls, `nudge list defualt` → default. Nil when every word is known, or
    /// nothing is close enough to suggest (ArgumentParser's own message is clearer then).
    static func unknownSubcommand(in arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = Nudge.self
        var path = ["nudge"]
        for word in arguments where !word.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            let names = subcommands.map { $0.configuration.commandName ?? $0._commandName }
            guard let index = names.firstIndex(of: word) else {
                guard let closest = Spelling.closest(to: word, among: names) else { return nil }
                let usage = (path + [closest]).joined(separator: " ")
                return "unknown command '\(word)' for '\(path.joined(separator: " "))'; did you mean '\(usage)'? "
                    + "(see '\(path.joined(separator: " ")) --help')"
            }
            command = subcommands[index]
            path.append(word)
        }
        return nil
    }

    static let usageExitCode = ExitCode(2)
}
