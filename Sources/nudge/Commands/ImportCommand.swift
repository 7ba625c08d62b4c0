import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import OpenAPIRuntime

/// `nudge import`: POST /v1/import.
struct ImportCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create or update items from the tasks of an iCalendar file.",
        discussion: """
            Each task (VTODO) updates the item it came from, found by its UID (a file 'nudge export' wrote, or a \
            task imported before) or, for a task without one, by its text; otherwise it becomes a new item. \
            Importing the same file twice changes nothing the second time. Everything is saved in one commit, and a \
            file out of shape changes nothing: the error names its line.

            Events, journals, and tasks without a summary are skipped, and said so; so is what a task holds that \
            nudge cannot keep, such as a repeat of a start with no due date (imported without repeat). \
            Times without a zone are nudged's local time; a task due on a day without a time is due that day.

              nudge import tasks.ics
              calcurse -x ical | nudge import - --list Home
            """
    )

    @Argument(help: ArgumentHelp("The .ics file; - reads standard input.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The list new items go to (default: the default list).", valueName: "name"))
    var list: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let calendar = try SharedArguments.input(file)
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            if let list { _ = try await client.list(named: list) }
            let report = try await client.call {
                try await $0.importCalendar(query: .init(list: list), body: .textCalendar(HTTPBody(calendar))).ok.body
                    .json
            }
            if global.json { return Output.json(report) }
            Output.lines(Self.render(report, from: file == "-" ? "standard input" : file))
        }
    }

    /// A line of counts, then a line per task created, updated or skipped (unchanged ones only count), each with
    /// what was not imported as it was.
    static func render(_ report: Components.Schemas.ImportReport, from source: String) -> [String] {
        var lines = [
            "\(source): \(report.created) created, \(report.updated) updated, \(report.unchanged) unchanged, "
                + "\(report.skipped) skipped"
        ]
        for result in report.results where result.outcome != .unchanged || !result.notes.isEmpty {
            let summary = result.summary.map { " " + Render.quoted($0) } ?? ""
            let what =
                switch result.outcome {
                case .created: "created item \(result.itemID ?? 0)\(summary)"
                case .updated: "updated item \(result.itemID ?? 0)\(summary)"
                case .unchanged: "item \(result.itemID ?? 0)\(summary) unchanged"
                case .skipped: "skipped\(summary)"
                }
            lines.append("  line \(result.line): \(what)" + result.notes.map { "\n    " + Render.oneLine($0) }.joined())
        }
        return lines
    }
}
