import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

@testable import NudgeDaemon

/// The API's operations called in-process, as the generated server calls them, answering the body of the success the
/// document names (a refusal is thrown as the operation threw it, before `APIFailure.from` maps it).
extension APIHandler {
    package func addItem(_ item: Components.Schemas.NewItem) async throws -> Components.Schemas.Item {
        try await createItem(.init(body: .json(item))).created.body.json
    }

    package func editItem(_ itemID: Int, _ patch: ItemPatch) async throws -> Components.Schemas.Item {
        try await updateItem(.init(path: .init(id: itemID), body: .json(patch))).ok.body.json
    }

    package func removeItem(_ itemID: Int) async throws {
        _ = try await deleteItem(.init(path: .init(id: itemID))).noContent
    }

    package func itemPage(all: Bool, after: Int = 0, limit: Int = APILimits.maximumPageSize) async throws
        -> Components.Schemas.ItemPage
    {
        try await listItems(.init(query: .init(all: all, after: after, limit: limit))).ok.body.json
    }

    /// Every pending reminder, soonest first: the first page of `/v1/pending`, as large as a page can be.
    package var pending: [Components.Schemas.Reminder] {
        get async throws {
            try await listPending(.init(query: .init(limit: APILimits.maximumPageSize))).ok.body.json.reminders
        }
    }

    package func moveClock(_ move: Components.Schemas.ClockMove) async throws -> Date {
        try await moveClock(.init(body: .json(move))).ok.body.json.now.date
    }

    package func clockNow() async throws -> Date {
        try await getClock(.init()).ok.body.json.now.date
    }

    package func runBatch(_ operations: [Components.Schemas.BatchOperation]) async throws -> [Components.Schemas
        .BatchResult]
    {
        try await runBatch(.init(body: .json(.init(operations: operations)))).ok.body.json.results
    }
}

extension Components.Schemas.ClockMove {
    package static func advance(_ seconds: Int) -> Self { .init(advance: "PT\(seconds)S") }
    package static func to(_ instant: Date) -> Self { .init(to: Instant(instant)) }
}

extension Components.Schemas.BatchOperation {
    package static func add(_ item: Components.Schemas.NewItem) -> Self { .add(.init(op: .add, item: item)) }
    package static func edit(_ itemID: Int, _ patch: ItemPatch) -> Self {
        .edit(.init(op: .edit, itemID: itemID, patch: patch))
    }
    package static func snooze(_ itemID: Int, forSeconds seconds: Int) -> Self {
        .snooze(.init(op: .snooze, itemID: itemID, snooze: .init(_for: "PT\(seconds)S")))
    }
    package static func remove(_ itemID: Int) -> Self { .remove(.init(op: .remove, itemID: itemID)) }
    package static func advanceClock(_ seconds: Int) -> Self { .clock(.init(op: .clock, move: .advance(seconds))) }
}
