import ArgumentParser
import Foundation
import NudgeAPI
import OpenAPIRuntime

/// `nudge export`: GET /v1/export.
struct ExportCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the items as iCalendar tasks (RFC 5545), for calendar programs.",
        discussion: """
            Writes a VCALENDAR on stdout: one VTODO per item, checked ones too, with its due date, priority, \
            status, an alarm for its reminder and one per advance warning, and its repeat rule (as RRULE where \
            one says exactly the same, and always as X-NUDGE-ONCALENDAR). Each task's UID stays the same at every \
            export, so importing the file again, here or after editing it elsewhere, updates the same items.

              nudge export > tasks.ics
              nudge export --list Work > work.ics
            """
    )

    @Option(help: ArgumentHelp("Only the items of this list.", valueName: "name"))
    var list: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            if let list { _ = try await client.list(named: list) }
            let body = try await client.call {
                try await $0.exportCalendar(query: .init(list: list)).ok.body.textCalendar
            }
            let calendar = try await client.call { _ in try await Data(collecting: body, upTo: .max) }
            do {
                try FileHandle.standardOutput.write(contentsOf: calendar)
            } catch {
                throw CLIError.refused("cannot write the calendar to standard output: \(error)", json: nil)
            }
        }
    }
}
