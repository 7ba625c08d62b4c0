import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCalendar
import NudgeCore
import OpenAPIRuntime

/// `/v1/export` and `/v1/import`: items as iCalendar tasks.
extension APIHandler {
    /// Every item, or one list's, as a VCALENDAR of tasks, in ID order.
    func exportCalendar(_ input: Operations.ExportCalendar.Input) async throws -> Operations.ExportCalendar.Output {
        let listName = input.query.list
        let document = try await service.read { book in
            book.calendarDocument(listID: try book.listID(id: nil, name: listName))
        }
        return .ok(.init(body: .textCalendar(HTTPBody(document))))
    }

    /// Creates or updates items from the tasks of an iCalendar document, all in one commit; a document out of shape
    /// changes nothing.
    func importCalendar(_ input: Operations.ImportCalendar.Input) async throws -> Operations.ImportCalendar.Output {
        guard case .textCalendar(let body) = input.body else {
            preconditionFailure("iCalendar is the only body the document allows")
        }
        let text = try await String(collecting: body, upTo: APILimits.maximumBodySize)
        let listName = input.query.list
        // Read before the loop's turn, in the zone the book uses (the daemon's): reading a large file must not hold up
        // the requests and reminders behind it.
        let (tasks, skipped) = try CalendarInterchange.tasks(in: text, timeZone: .current, zones: service.zones)
        let report = try await service.write { book in
            try book.recordingChange("import") { book in
                let listID = try book.listID(id: nil, name: listName) ?? book.library.defaultList.listID
                let (results, outcome) = try book.importTasks(tasks, into: listID)
                return (Components.Schemas.ImportReport((results + skipped).sorted { $0.line < $1.line }), outcome)
            }
        }
        return .ok(.init(body: .json(report)))
    }
}
