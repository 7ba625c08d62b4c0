import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// A batch's operations as the loop applies them, each with the same `ReminderBook` extension a single request uses.
extension ReminderBook {
    /// A turn of a batch from `position`: the operations applied, up to the end, the first refused, or a clock move
    /// with more than the turn's budget to decide, which goes on in the next turn. The batch is one change of the
    /// user's, recorded for undo a turn at a time and reported once, at its end.
    mutating func runBatch(
        _ steps: [Batch.Step],
        from position: Batch.Position,
        manualClock: ManualWallClock?
    ) -> (ReminderService.Progress<Batch.Answer>, [Outcome]) {
        var ((end, commits), recorded) = recordingUndo(continuing: position.undo) { book in
            book.batchTurn(steps, from: position, manualClock: manualClock)
        }
        switch end {
        case .goesOn(var position):
            position.undo = recorded
            let rest = position
            return (.goesOn { book in book.runBatch(steps, from: rest, manualClock: manualClock) }, commits.outcomes)
        case .done(let answer):
            commits.append(reportChange(recorded, operation: "batch"))
            return (.done(answer), commits.outcomes)
        }
    }

    /// How a turn of a batch ends: the batch goes on from a position, or is done.
    private enum TurnEnd {
        case goesOn(Batch.Position)
        case done(Batch.Answer)
    }

    /// The operations of one turn of a batch, from `position`.
    private mutating func batchTurn(
        _ steps: [Batch.Step],
        from position: Batch.Position,
        manualClock: ManualWallClock?
    ) -> (TurnEnd, CommitChunks) {
        var commits = CommitChunks()
        var budget = ReminderService.decisionsPerTurn
        var results = position.results
        for index in position.index..<steps.count {
            // The goal of a clock move under way at `index`; a later step's move has its own.
            let resumedGoal = index == position.index ? position.goal : nil
            /// The batch goes on in the next turn, at `index`.
            func goesOn(goal: Date?) -> (TurnEnd, CommitChunks) {
                (.goesOn(Batch.Position(index: index, results: results, goal: goal)), commits)
            }
            // As before each request: what fell due meanwhile is decided before the next step, a turn's worth at a
            // time.
            if hasDecisionDue {
                let outcome = advance(limit: max(budget, 0))
                budget -= outcome.events.count
                commits.append(outcome)
                if hasDecisionDue { return goesOn(goal: resumedGoal) }
            }
            do {
                switch steps[index] {
                case .moveClock(let target):
                    guard let manualClock else {
                        preconditionFailure("runBatch refuses a clock move under the wall clock")
                    }
                    let goal = try resumedGoal ?? Self.goal(target, from: manualClock)
                    guard moveClock(manualClock, toward: goal, budget: &budget, into: &commits) else {
                        return goesOn(goal: goal)
                    }
                    results.append(.init(op: .clock, clock: .init(now: Instant(goal), mode: .manual)))
                case let step:
                    results.append(try apply(step, into: &commits))
                }
            } catch {
                return (.done(.failure(Batch.Refusal(index: index, error: error, applied: results))), commits)
            }
        }
        return (.done(.success(results)), commits)
    }

    /// One operation of a batch but a clock move.
    private mutating func apply(
        _ step: Batch.Step,
        into commits: inout CommitChunks
    ) throws -> Components.Schemas.BatchResult {
        switch step {
        case .add(let request):
            let (item, outcome) = try add(request)
            commits.append(outcome)
            return .init(op: .add, item: item)
        case .edit(let itemID, let patch):
            let (item, outcome) = try edit(itemID, patch)
            commits.append(outcome)
            return .init(op: .edit, item: item)
        case .snooze(let itemID, let until):
            let (item, outcome) = try snooze(itemID, until: until)
            commits.append(outcome)
            return .init(op: .snooze, item: item)
        case .remove(let itemID):
            commits.append(try removeItem(itemID: itemID))
            return .init(op: .remove)
        case .moveClock:
            preconditionFailure("runBatch moves the clock itself, a turn at a time")
        }
    }
}
