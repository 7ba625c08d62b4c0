import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge undone ID...`: DELETE /v1/items/ID/done for each ID.
struct UndoneCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "undone",
        abstract: "Uncheck items; each one's reminder is scheduled again if it is still due in the future."
    )

    @OptionGroup var items: EachItem
    var global: GlobalOptions { items.global }

    func run() async throws {
        try await items.changeShowingItems { client, id throws(CLIError) in
            try await client.call { try await $0.uncheckItem(path: .init(id: id)).ok.body.json }
        }
    }
}
