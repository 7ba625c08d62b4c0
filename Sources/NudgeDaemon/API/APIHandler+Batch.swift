import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `/v1/batch`: operations applied in order, no other change between them, their changes saved in commits of about
/// `CommitChunks.size` changes and events; answered once all are durable and carried out. A clock move that decides
/// more than `decisionsPerTurn` events goes on in later turns, where reads are answered meanwhile. The first
/// operation refused stops the batch: those before it are kept, and the answer, once they are durable, is a
/// `Batch.Refusal`.
extension APIHandler {
    /// Reads every operation before any is applied, so one that cannot be read refuses the whole batch.
    func runBatch(_ input: Operations.RunBatch.Input) async throws -> Operations.RunBatch.Output {
        guard case .json(let batch) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let count = batch.operations.count
        guard (1...APILimits.maximumBatchOperations).contains(count) else {
            throw APIFailure.badRequest(
                .invalidBody,
                "a batch holds 1 to \(APILimits.maximumBatchOperations) operations, and this one holds \(count); "
                    + (count == 0 ? "send at least one" : "split it into several batches")
            )
        }
        var steps: [Batch.Step] = []
        steps.reserveCapacity(count)
        for (index, operation) in batch.operations.enumerated() {
            do {
                steps.append(try Self.step(operation))
            } catch {
                throw Batch.Refusal(index: index, error: error)
            }
        }
        let manual = try batchClock(steps)
        let results = try await service.write(inTurns: { [steps] book in
            book.runBatch(steps, from: Batch.Position(), manualClock: manual)
        }).get()
        return .ok(.init(body: .json(.init(results: results))))
    }

    private static func step(_ operation: Components.Schemas.BatchOperation) throws -> Batch.Step {
        switch operation {
        case .add(let add): .add(add.item)
        case .edit(let edit): .edit(itemID: edit.itemID, edit.patch)
        case .snooze(let snooze): .snooze(itemID: snooze.itemID, until: try snoozeTarget(snooze.snooze))
        case .remove(let remove): .remove(itemID: remove.itemID)
        case .clock(let clock): .moveClock(to: try clockTarget(clock.move))
        }
    }

    /// The manual clock, if a batch moves it; under the wall clock, the refusal of the batch.
    private func batchClock(_ steps: [Batch.Step]) throws -> ManualWallClock? {
        guard let index = steps.firstIndex(where: { if case .moveClock = $0 { true } else { false } }) else {
            return nil
        }
        do {
            return try manualClock()
        } catch {
            throw Batch.Refusal(index: index, error: error)
        }
    }
}
