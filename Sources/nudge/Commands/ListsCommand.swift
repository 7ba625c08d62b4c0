import ArgumentParser
import Foundation
import NudgeAPI

/// `nudge lists`: GET /v1/lists.
struct ListsCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Show the checklists: ID, name, icon, and how many items remain.",
        discussion: """
            The default list, where 'nudge add' puts items when no --list is given, is marked "(default)". \
            Change them with 'nudge list add|rename|rm|icon|default'.
            """
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let lists = try await client.call { try await $0.listLists().ok.body.json }
            if global.json { return Output.json(lists) }
            Output.lines(Render.lists(lists, look: global.look()))
        }
    }
}
