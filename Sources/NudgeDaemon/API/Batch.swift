import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `POST /v1/batch`: operations applied in order with no other change between them.
enum Batch {
    /// One operation of a batch, read and checked as far as it can be before its turn.
    enum Step: Sendable {
        case add(Components.Schemas.NewItem)
        case edit(itemID: Int, ItemPatch)
        case snooze(itemID: Int, until: @Sendable (Date) -> Date)
        case remove(itemID: Int)
        case moveClock(to: @Sendable (Date) -> Date)
    }

    typealias Answer = Result<[Components.Schemas.BatchResult], Refusal>

    /// How far a batch has gone: the operation at `index` is next (a clock move under way, to `goal`, if set), and
    /// those before it answered `results`.
    struct Position: Sendable {
        var index = 0
        var results: [Components.Schemas.BatchResult] = []
        var goal: Date?
        /// What the operations applied so far did to items: the batch is one change, to take back as a whole.
        var undo: UndoStep?
    }

    /// The operation of a batch that was refused, at `index`; `applied`: what those before it answered, once durable
    /// (none, when the batch was refused as it was read).
    struct Refusal: Error {
        let index: Int
        let error: any Error
        var applied: [Components.Schemas.BatchResult] = []
    }
}
