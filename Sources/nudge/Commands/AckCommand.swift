import ArgumentParser
import Foundation
import NudgeAPI

/// `nudge ack ID...`: POST /v1/items/ID/ack for each ID.
struct AckCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "ack",
        abstract: "Acknowledge reminders that fired: seen, nothing more to do about them now.",
        discussion: """
            A reminder that fired awaits acknowledgement (🔔 in 'nudge ls', listed by 'nudge pending' and \
            'nudge ls --unacknowledged') until you acknowledge it: with this command, or by checking the item off, \
            snoozing it or editing it. Acknowledging closes its desktop notification and leaves the item as it is: \
            still open, its next reminder (if it recurs) still pending. An item with nothing to acknowledge is \
            shown as it is.

              nudge ack 7
              nudge ack 7 12 13
            """
    )

    @OptionGroup var items: EachItem
    var global: GlobalOptions { items.global }

    func run() async throws {
        try await items.changeShowingItems { client, id throws(CLIError) in
            try await client.call { try await $0.acknowledgeItem(path: .init(id: id)).ok.body.json }
        }
    }
}
