import Foundation
import NudgeCore

/// Moving the manual clock, a turn of the loop at a time: every reminder due on the way fires at its own instant, in
/// due order.
extension ReminderBook {
    /// Where a clock move goes: `target` from where the clock is now, if nudge can say that instant.
    static func goal(_ target: (Date) -> Date, from manual: ManualWallClock) throws(ModelError) -> Date {
        let goal = target(manual.now())
        guard goal <= InstantFormat.range.upperBound else { throw .clockPastLatestInstant }
        return goal
    }

    /// A turn of a clock move to `goal`: its outcomes, and the rest of the move if there is more than a turn's worth.
    mutating func moveClock(_ manual: ManualWallClock, to goal: Date) -> (
        ReminderService.Progress<Date>, [Outcome]
    ) {
        var commits = CommitChunks()
        var budget = ReminderService.decisionsPerTurn
        guard moveClock(manual, toward: goal, budget: &budget, into: &commits) else {
            return (.goesOn { book in book.moveClock(manual, to: goal) }, commits.outcomes)
        }
        return (.done(goal), commits.outcomes)
    }

    /// Sets `manual` to each due instant up to `goal`, deciding there, in due order, until `budget` events are
    /// decided; whether it reached `goal`.
    mutating func moveClock(
        _ manual: ManualWallClock,
        toward goal: Date,
        budget: inout Int,
        into commits: inout CommitChunks
    ) -> Bool {
        while let due = scheduler.nextDue, due <= goal {
            guard budget > 0 else { return false }
            manual.set(max(due, manual.now()))
            let outcome = advance(limit: budget)
            // Every stop counts, one that decided nothing too (a day's digest with nothing to bring): a move across
            // years of them goes on in later turns.
            budget -= max(1, outcome.events.count)
            commits.append(outcome)
        }
        manual.set(goal)
        commits.append(advance())
        return true
    }
}
