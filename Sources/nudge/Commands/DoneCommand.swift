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
            let answer = try await client.send(.POST, APIPath.itemDone(id))
            try ItemAnswer.print(answer, from: client, json: global.json, otherwise: "checked off \(id)")
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
            let answer = try await client.send(.DELETE, APIPath.itemDone(id))
            try ItemAnswer.print(answer, from: client, json: global.json, otherwise: "unchecked \(id)")
        }
    }
}

/// Prints the daemon's answer to a change of one item: the item on one line, or `otherwise` when the answer has
/// no body.
enum ItemAnswer {
    static func print(_ answer: Data, from client: DaemonClient, json: Bool, otherwise: String) throws(CLIError) {
        if json { return Output.json(answer) }
        guard !answer.isEmpty else { return Output.line(otherwise) }
        Output.line(Render.itemSummary(try client.decode(ItemResource.self, from: answer), time: LocalTimeFormat()))
    }
}
