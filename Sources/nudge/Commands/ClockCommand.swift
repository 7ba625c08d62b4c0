import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge clock`: GET and POST /v1/clock.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show the daemon's clock, or move its manual clock.",
        discussion: """
            nudged started with --clock manual runs on a virtual clock that moves only when told to: every \
            reminder due on the way fires at its own instant, and the command returns once all of it is saved \
            and published. On the wall clock, moving it is refused (exit status 1).

              nudge clock                     the time nudged goes by, and which clock
              nudge clock advance 1h30m       forward by a duration (s, m, h, d, or ISO 8601 like PT90M)
              nudge clock set "tomorrow 9"    to an instant, forward or back (as --due reads it)
            """,
        subcommands: [Show.self, Advance.self, Set.self],
        defaultSubcommand: Show.self
    )

    struct Show: DaemonCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the daemon's clock.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let clock = try await client.call { try await $0.getClock().ok.body.json }
                ClockCommand.print(clock, json: global.json)
            }
        }
    }

    struct Advance: DaemonCommand {
        static let configuration = CommandConfiguration(
            commandName: "advance",
            abstract: "Move the manual clock forward, firing what falls due on the way."
        )

        @Argument(help: ArgumentHelp("How far: 90s, 15m, 1h30m, 2d, or ISO 8601 like PT1H.", valueName: "duration"))
        var duration: String

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard DurationText.seconds(duration) != nil else {
                throw ValidationError(
                    "\"\(duration)\" is not a duration; use a number with s, m, h or d (like 90m or 1h30m), or "
                        + DurationText.expected
                )
            }
        }

        func run() async throws {
            let iso = DurationText.iso8601(DurationText.seconds(duration) ?? 0)
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                let clock = try await client.call {
                    try await $0.moveClock(body: .json(.init(advance: iso))).ok.body.json
                }
                ClockCommand.print(clock, json: global.json)
            }
        }
    }

    struct Set: DaemonCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Move the manual clock to an instant, forward or back."
        )

        @Argument(
            help: ArgumentHelp(
                "When: an instant as --due takes it (\"2027-01-01 09:00\", \"tomorrow 9am\"), read against the daemon's clock.",
                valueName: "when"
            ),
            transform: SharedArguments.parseWhen
        )
        var when: WhenText

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await DaemonClient.withConnection(to: global.socketPath) { client in
                // "tomorrow" means the day after the daemon's today, which on a manual clock is not the machine's.
                let target = try when.date(now: try await client.now())
                let clock = try await client.call {
                    try await $0.moveClock(body: .json(.init(to: Instant(target)))).ok.body.json
                }
                ClockCommand.print(clock, json: global.json)
            }
        }
    }

    static func print(_ clock: Components.Schemas.Clock, json: Bool) {
        if json { return Output.json(clock) }
        Output.line("\(LocalTimeFormat().stamp(clock.now.date)) (\(clock.mode.rawValue) clock)")
    }
}
