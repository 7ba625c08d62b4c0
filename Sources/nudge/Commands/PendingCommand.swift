import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge pending`: GET /v1/pending.
struct PendingCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "List the reminders waiting to fire, soonest first, then those that fired and await acknowledgement.",
        discussion: """
            An item has a pending reminder when it reminds, is unchecked, and is due in the future. A reminder that \
            fired awaits acknowledgement until you check the item off, snooze it, edit it or 'nudge ack' it; those \
            follow, under "fired, not acknowledged". With --json, the pending reminders alone ('nudge ls \
            --unacknowledged --json' gives the others).
            """
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            var json = Output.JSONArray()
            var printed = 0
            var cursor: (after: Int, afterDue: Instant?) = (0, nil)
            let look = global.json ? Look() : global.look(now: try await client.now())
            repeat {
                let query = Operations.ListPending.Input.Query(after: cursor.after, afterDue: cursor.afterDue)
                let page = try await client.call { try await $0.listPending(query: query).ok.body.json }
                if global.json {
                    json.append(page.reminders)
                } else {
                    Output.lines(Render.reminders(page.reminders, look: look))
                }
                printed += page.reminders.count
                cursor = (page.next ?? 0, page.nextDue)
            } while cursor.after != 0
            if global.json { return json.finish() }
            if printed == 0 { Output.line("no reminders pending") }
            try await showUnacknowledged(client, look: look)
        }
    }

    /// The items whose reminder fired and awaits acknowledgement, a page at a time, under a heading of their own.
    private func showUnacknowledged(_ client: DaemonClient, look: Look) async throws(CLIError) {
        var after = 0
        var heading = false
        repeat {
            let query = Operations.ListItems.Input.Query(unacknowledged: true, after: after)
            let page = try await client.call { try await $0.listItems(query: query).ok.body.json }
            if !heading, !page.items.isEmpty {
                Output.line("")
                Output.line(look.terminal.styled("fired, not acknowledged (nudge ack ID)", .bold))
                heading = true
            }
            Output.lines(Render.itemTable(page.items, look: look, withListName: true))
            after = page.next ?? 0
        } while after != 0
    }
}
