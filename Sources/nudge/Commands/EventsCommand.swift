import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge events`: GET /v1/events?follow=false, page after page.
struct EventsCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Show the daemon's history of reminder decisions, oldest first.",
        discussion: """
            Every decision the daemon made (scheduled, replaced, cancelled, fired, missed) and every change you \
            made (changed, undone: see 'nudge undo'), with its event ID, as \
            far back as the history goes (by default the latest 100,000 events of the last 30 days; see nudged \
            --history-events). "What happened to item 7?" is 'nudge events --item 7'. To follow new events as \
            they come, use 'nudge watch --since ID' with the last ID shown.

              nudge events --item 7
              nudge events --kind fired --since 1200 --json
            """
    )

    @Option(help: ArgumentHelp("Only the events of this item.", valueName: "id"))
    var item: Int?

    @Option(help: ArgumentHelp("Only events of this kind: \(Self.kinds).", valueName: "kind"))
    var kind: String?

    @Option(help: ArgumentHelp("Only the events after this event ID.", valueName: "id"))
    var since: Int = 0

    @OptionGroup var global: GlobalOptions

    private static let kinds = Components.Schemas.EventKind.allCases.map(\.rawValue).joined(separator: ", ")

    func validate() throws {
        if let item, item < 1 { throw ValidationError("--item \(item) is not an item ID; IDs start at 1") }
        if since < 0 { throw ValidationError("--since \(since) is not an event ID; use 0 or more") }
        if let kind, Components.Schemas.EventKind(rawValue: kind) == nil {
            throw ValidationError("--kind \"\(kind)\" is not a kind of event; use one of \(Self.kinds)")
        }
    }

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            var json = Output.JSONArray()
            var printed = 0
            var cursor: Int? = since
            let look = global.json ? Look() : global.look(now: try await client.now())
            while let after = cursor {
                let query = Operations.StreamEvents.Input.Query(
                    follow: false,
                    since: after,
                    item: item,
                    kind: kind.flatMap(Components.Schemas.EventKind.init(rawValue:))
                )
                let page = try await client.call { try await $0.streamEvents(query: query).ok.body.json }
                if after == since, let dropped = page.dropped {
                    let note = "(\(dropped) events after \(since) are no longer in the history)"
                    if global.json { Output.standardError(note + "\n") } else { Output.line(note) }
                }
                if global.json {
                    json.append(page.events)
                } else {
                    for event in page.events { Output.line(Render.event(event, look: look, relative: true)) }
                }
                printed += page.events.count
                cursor = page.next
            }
            if global.json { return json.finish() }
            if printed == 0 { Output.line("no events") }
        }
    }
}
