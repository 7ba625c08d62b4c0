import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge done ID [--stop]`: POST /v1/items/ID/done, or with --stop PATCH /v1/items/ID.
struct DoneCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Check an item off; this cancels its pending reminder.",
        discussion: """
            On a recurring item, 'done' completes the current occurrence (the one that fired last, if not done \
            yet, else the next one) and the item stays open for the occurrence after it. 'done --stop' checks it \
            off for good and ends the series.
            """
    )

    @Argument(help: "The item's ID, as 'nudge ls' shows it.")
    var id: Int

    @Flag(help: "On a recurring item: end the series and check the item off.")
    var stop = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let item =
                if stop {
                    try await client.call {
                        let patch = ItemPatch(ItemEdit(checked: true, clearsRepeat: true))
                        return try await $0.updateItem(path: .init(id: id), body: .json(patch)).ok.body.json
                    }
                } else {
                    try await client.call { try await $0.checkItem(path: .init(id: id)).ok.body.json }
                }
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
