import ArgumentParser
import Foundation
import NudgeAPI

/// `nudge rm ID...`: DELETE /v1/items/ID for each ID.
struct RmCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete items and their pending reminders. Their IDs are never reused.",
        discussion: """
            Several IDs are deleted in turn, each reported on a line of its own; one nudged refuses is reported \
            on stderr and the others still go ahead (the command then exits 1). With --json, each removed item \
            prints as {"itemID": ID, "removed": true}.
            """
    )

    @OptionGroup var items: EachItem
    var global: GlobalOptions { items.global }

    func run() async throws {
        try await items.change(
            line: { (removed: Removed, _) in "removed \(removed.itemID)" },
            showsTime: false
        ) {
            client,
            id throws(CLIError) in
            _ = try await client.call { try await $0.deleteItem(path: .init(id: id)).noContent }
            return Removed(itemID: id)
        }
    }
}
