import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge show ID`: GET /v1/items/ID.
struct ShowCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show every field of an item, dates in local time."
    )

    @Argument(help: "The item's ID, as 'nudge ls' shows it.")
    var id: Int

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let item = try await client.call { try await $0.getItem(path: .init(id: id)).ok.body.json }
            if global.json { return Output.json(item) }
            Output.lines(Render.itemDetails(item, look: global.look(now: try await client.now())))
        }
    }
}
