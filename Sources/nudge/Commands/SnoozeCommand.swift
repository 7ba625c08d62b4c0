import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge snooze ID [DURATION | until WHEN]`: POST /v1/items/ID/snooze.
struct SnoozeCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Remind again later: the item's reminder fires at the snoozed time instead.",
        discussion: """
            Snoozes for a length of time from now (by nudged's clock), 10 minutes unless told, or until a time. \
            The due date stays as it is; a pending reminder is replaced, and one that already fired is scheduled \
            again; reminding is switched on. Changing the due date, checking the item off or --no-remind ends the \
            snooze. On a recurring item it moves the occurrence at hand: occurrences before the snoozed time are \
            folded into it, and the series goes on after it. Both go by nudged's clock.

              nudge snooze 7              # 10 minutes
              nudge snooze 7 1h30m
              nudge snooze 7 until 14:00
              nudge snooze 7 until "tomorrow 9am"

            \(SharedArguments.whenDiscussion)
            """
    )

    @Argument(help: "The item's ID, as 'nudge ls' shows it.")
    var id: Int

    @Argument(help: ArgumentHelp("How long (10m, 1h30m, PT2H), or 'until' and a time.", valueName: "when"))
    var when: [String] = []

    @OptionGroup var global: GlobalOptions

    /// Whether it snoozes until a time, rather than for a length of time.
    private var untilATime: Bool { when.first?.lowercased() == "until" }

    /// What to ask nudged for: a length of time, or an instant read against nudged's clock (`now`).
    private func request(now: Date) throws -> Components.Schemas.Snooze {
        if untilATime {
            let time = when.dropFirst().joined(separator: " ")
            guard !time.isEmpty else {
                throw ValidationError("'until' needs a time: nudge snooze \(id) until 14:00")
            }
            return .init(until: Instant(try SharedArguments.parseWhen(time).date(now: now)))
        }
        let length = when.isEmpty ? "10m" : when.joined()
        guard let seconds = DurationText.seconds(length), seconds > 0 else {
            throw ValidationError(
                "\"\(when.joined(separator: " "))\" is not a length of time; give one like 10m, 1h30m or PT2H, "
                    + "or 'until' and a time"
            )
        }
        return .init(_for: DurationText.iso8601(seconds))
    }

    mutating func validate() throws {
        _ = try request(now: Date())
    }

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            // 'until tomorrow 9am' means nudged's tomorrow, which on a manual clock is not the machine's.
            let body = try request(now: untilATime ? try await client.now() : Date())
            let item = try await client.call {
                try await $0.snoozeItem(path: .init(id: id), body: .json(body)).ok.body.json
            }
            if global.json { return Output.json(item) }
            let time = LocalTimeFormat()
            Output.line(
                "#\(item.itemID) snoozed until \(item.snoozedUntil.map { time.full($0.date) } ?? "?")"
                    + (item.dueDay.map { " (due \(time.short($0)))" } ?? item.dueDate.map {
                        " (due \(time.full($0.date)))"
                    }
                        ?? "")
            )
        }
    }
}
