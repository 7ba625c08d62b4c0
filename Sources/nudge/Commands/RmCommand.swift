import ArgumentParser
import Foundation
import NudgeAPI

/// `nudge rm ID`: DELETE /v1/items/ID.
struct RmCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete an item and its pending reminder. Its ID is never reused."
    )

    @Argument(help: "The item's ID, as 'nudge ls --all' shows it.")
    var id: Int

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            _ = try await client.call { try await $0.deleteItem(path: .init(id: id)).noContent }
            if global.json { return }
            Output.line("removed \(id)")
        }
    }
}
