import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge watch`: GET /v1/events, a server-sent event stream, printed as it arrives.
struct WatchCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the daemon's reminder decisions as they happen.",
        discussion: """
            One line per event: scheduled, replaced, cancelled, fired, missed, and your changes (changed, undone), \
            each with its event ID. Runs until \
            interrupted (Ctrl-C); if the daemon stops, or drops this watcher for falling over 1 MiB of events \
            behind, exits with status 3. With --since N, first prints every event after event N that the \
            daemon's history holds, then goes on live with nothing missed in between: after an interruption, \
            pass the last event ID printed. With --json, prints each event as one JSON object per line.

              2026-11-21 17:00:00  fired      #7 "water the plants" (due 17:00:00, 3s late)  event 41

              nudge watch --since 41
              nudge watch --json | grep --line-buffered '"kind":"fired"'
            """
    )

    @Option(help: ArgumentHelp("First the events after this event ID (0: the whole history).", valueName: "id"))
    var since: Int?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let since, since < 0 { throw ValidationError("--since \(since) is not an event ID; use 0 or more") }
    }

    func run() async throws {
        let json = global.json
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let decoder = JSONDecoder()
            try await client.streamEvents(since: since) { event in
                // JSON never needs a raw newline, so joining a multi-line `data:` keeps one object per line.
                let data = (event.data ?? "").split(separator: "\n").joined(separator: " ")
                if event.event == "dropped" {
                    let dropped = try? decoder.decode(Components.Schemas.Dropped.self, from: Data(data.utf8))
                    throw CLIError.watcherDropped(dropped?.message ?? data)
                }
                if event.event == "gap", !json {
                    let gap = try? decoder.decode(Components.Schemas.Gap.self, from: Data(data.utf8))
                    Output.line("(\(gap?.message ?? data))")
                    return
                }
                if json {
                    Output.line(data)
                } else if let decoded = try? decoder.decode(Components.Schemas.Event.self, from: Data(data.utf8)) {
                    Output.line(Render.event(decoded, look: global.look()))
                } else {
                    // An event this version does not know: show it rather than drop it.
                    Output.line("\(LocalTimeFormat().stamp(Date()))  \(event.event ?? "message")  \(data)")
                }
            }
        }
    }
}
