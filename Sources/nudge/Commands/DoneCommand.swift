import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge done ID... [--stop]`: POST /v1/items/ID/done, or with --stop PATCH /v1/items/ID, for each ID.
struct DoneCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Check items off; this cancels their pending reminders.",
        discussion: """
            Several IDs are checked off in turn, each reported on a line of its own; one nudged refuses is \
            reported on stderr and the others still go ahead (the command then exits 1). On a recurring item, \
            'done' completes the current occurrence (the one that fired last, if not done yet, else the next one) \
            and the item stays open for the occurrence after it; on one that repeats after completion \
            (--repeat-after), 'done' leaves it open and due again that long after. 'done --stop' checks it off for \
            good and ends the repeating.
            """
    )

    @Flag(help: "On a repeating item: end the repeating and check the item off.")
    var stop = false

    @OptionGroup var items: EachItem
    var global: GlobalOptions { items.global }

    func run() async throws {
        let stop = stop
        try await items.changeShowingItems { client, id throws(CLIError) in
            if stop {
                try await client.call {
                    let patch = ItemPatch(ItemEdit(checked: true, clearsRepeat: true))
                    return try await $0.updateItem(path: .init(id: id), body: .json(patch)).ok.body.json
                }
            } else {
                try await client.call { try await $0.checkItem(path: .init(id: id)).ok.body.json }
            }
        }
    }
}
