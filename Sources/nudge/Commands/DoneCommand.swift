import ArgumentParser
import Foundation
import NudgeAPI

/// `nudge done ID`: POST /v1/items/ID/done.
struct DoneCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Check an item off; this cancels its pending reminder."
    )

    @Argument(help: "The item's ID, as 'nudge ls' shows it.")
    var id: Int

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let item = try await client.call { try await $0.checkItem(path: .init(id: id)).ok.body.json }
            Render.print(item, json: global.json)
        }
    }
}

/// `nudge undone ID`: DELETE /v1/items/ID/done.
struct UndoneCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "undone",
        abstract: "Uncheck an item; its reminder is scheduled again if it is still due in the future."
    )

    @Argument(help: "The item's ID, as 'nudge ls --all' shows it.")
    var id: Int

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let item = try await client.call { try await $0.uncheckItem(path: .init(id: id)).ok.body.json }
            Render.print(item, json: global.json)
        }
    }
}
