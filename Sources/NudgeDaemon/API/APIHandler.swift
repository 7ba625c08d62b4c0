import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore
import NudgeSystem
import OpenAPIRuntime

/// The operations of docs/openapi.yaml, as the generated `APIProtocol` asks for them: each reads the request, reads
/// or changes the book in the service's turn (`ReminderService.read`, `write`), and answers in the document's types
/// (`Wire+FromCore.swift`). Whatever an operation throws becomes the document's `Error` answer (`APIFailure.from`).
/// The operations are grouped by what they serve: `APIHandler+Items`, `+Lists`, `+Events`, `+Calendar`, `+Clock`,
/// `+Batch`.
struct APIHandler: APIProtocol {
    let service: ReminderService
    let socket: String
    /// What follows the linked folders while nudged runs, told when a list is linked or unlinked; none in tests
    /// that serve the API without one.
    var folders: FolderWatcher? = nil

    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        .ok(.init(body: .json(try await health())))
    }

    /// What `GET /v1/health` answers, and systemd's status line says.
    func health() async throws -> Components.Schemas.Health {
        try await service.read { [service, socket] book in
            Components.Schemas.Health(
                status: "ok",
                pid: Int32(SystemCall.processID()),
                store: service.writer.store.path,
                socket: socket,
                items: book.library.itemCount,
                pending: book.scheduler.pendingCount,
                nextDue: book.scheduler.nextDue.map(Instant.init),
                watchers: service.events.subscriberCount,
                commits: service.writer.commitCount,
                syncs: service.writer.writeCount
            )
        }
    }

    func getOpenAPIDocument(
        _ input: Operations.GetOpenAPIDocument.Input
    ) async throws -> Operations.GetOpenAPIDocument.Output {
        .ok(.init(body: .yaml(HTTPBody(openAPIDocument))))
    }

    /// A page's size as asked, within 1...maximumPageSize (the generated code does not check ranges).
    static func limit(_ asked: Int?) throws -> Int {
        let limit = asked ?? APILimits.defaultPageSize
        guard (1...APILimits.maximumPageSize).contains(limit) else {
            throw APIFailure.badRequest(
                .invalidRequest,
                "limit \(limit) is out of range: a page holds 1 to \(APILimits.maximumPageSize) entries, "
                    + "e.g. limit=1000"
            )
        }
        return limit
    }

    static func after(_ asked: Int?) throws -> Int {
        let after = asked ?? 0
        guard after >= 0 else {
            throw APIFailure.badRequest(
                .invalidRequest,
                "after \(after) is out of range: it is an item ID (the previous page's next), or 0 for the first page"
            )
        }
        return after
    }
}
