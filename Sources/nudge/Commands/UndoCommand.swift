import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge undo [EVENT]`: POST /v1/undo; `nudge undo --list`: GET /v1/undo.
struct UndoCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back your last change, or the one an event ID names.",
        discussion: """
            Each change you make is one event in the daemon's history: an add, an edit, a done or undone, a \
            snooze, a removal, an import, a batch, a button pressed on a notification ('nudge done 4 5' is two \
            changes, one per item). 'nudge undo' puts the items of the last one back as they were, with their IDs: \
            an item it added is removed, one it removed comes back, and their reminders are scheduled, replaced or \
            cancelled as an edit would. What a reminder did meanwhile stays done: nothing fires twice.

            The undo is a change too: 'nudge undo' again takes it back (a redo). 'nudge undo --list' shows the last \
            20 changes with their event IDs, and 'nudge undo EVENT' takes back an older one, if no later change \
            touched the same items. A change of more than 1,000 items (a large import) is not kept to be undone, \
            and the history keeps the latest 100,000 events of the last 30 days (nudged --history-events).

              nudge undo
              nudge undo --list
              nudge undo 1207
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The event ID of the change to take back (see --list); the last one if none.",
            valueName: "event"
        )
    )
    var event: Int?

    @Flag(help: "Show the last 20 changes, newest first, and whether each can be undone, instead of undoing one.")
    var list = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let event, event < 1 { throw ValidationError("\(event) is not an event ID; IDs start at 1") }
        if list, event != nil { throw ValidationError("--list shows changes and undoes none; give it no event ID") }
    }

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            if list {
                let changes = try await client.call { try await $0.listUndo().ok.body.json }
                if global.json { return Output.json(changes) }
                if changes.changes.isEmpty { return Output.line("No changes of yours in the history.") }
                let look = global.look(now: try await client.now())
                Output.lines(changes.changes.map { Render.undoableChange($0, look: look) })
                return
            }
            let body = Components.Schemas.UndoRequest(event: event)
            let undone = try await client.call { try await $0.undo(body: .json(body)).ok.body.json }
            if global.json { return Output.json(undone) }
            Output.line("\(undone.text.prefix(1).uppercased())\(undone.text.dropFirst()) (event \(undone.id))")
        }
    }
}
