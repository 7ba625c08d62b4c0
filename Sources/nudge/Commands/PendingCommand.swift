import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge pending`: GET /v1/pending.
struct PendingCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "List the reminders waiting to fire, soonest first.",
        discussion: "An item has a pending reminder when it reminds, is unchecked, and is due in the future."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let reminders = try await client.call { try await $0.listPending().ok.body.json }
            if global.json { return Output.json(reminders) }
            if reminders.isEmpty {
                Output.line("no reminders pending")
            } else {
                Output.lines(Render.reminders(reminders, time: LocalTimeFormat()))
            }
        }
    }
}
