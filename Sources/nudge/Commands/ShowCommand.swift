import ArgumentParser
import Foundation
import NudgeAPI

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
            let answer = try await client.send(.GET, APIPath.item(id))
            if global.json { return Output.json(answer) }
            Output.lines(
                Render.itemDetails(try client.decode(ItemResource.self, from: answer), time: LocalTimeFormat())
            )
        }
    }
}
