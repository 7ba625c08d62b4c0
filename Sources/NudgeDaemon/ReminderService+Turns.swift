import Foundation
import NudgeCore

/// The loop's vocabulary: its inputs, the requests it applies a turn at a time, what only it touches, and the
/// commits it hands to the writer.
extension ReminderService {
    /// What the loop takes, in order.
    enum Input: Sendable {
        case request(Request)
        /// The timer's instant came, or the wall clock was set.
        case wakeUp
        /// The loop's own: what it left for a later turn goes on (`State.hasWorkLeft`).
        case nextTurn
        /// nudged begins to stop: a request under way or waiting is refused rather than gone on with.
        case stopping
    }

    /// A request: reads or changes the book in its turn, and returns what it did; or, if nudged stops first, is told
    /// why (`refuse`).
    struct Request: Sendable {
        /// Whether it changes the book: a change waits while another is under way or decisions are still due, so
        /// changes apply in order, each after every decision due before it; a read does not wait.
        let changes: Bool
        let apply: @Sendable (inout State) -> Turn
        let refuse: @Sendable (Refusal) -> Void
    }

    /// What one turn of a request did: its commits, in order, and the rest of it if it goes on in a later turn.
    struct Turn: Sendable {
        var commits: [Commit]
        var rest: Request? = nil
    }

    /// What only the loop touches.
    struct State {
        var book: ReminderBook
        let timer: any ReminderTimer
        /// The rest of a request applied part way (it decides more than `decisionsPerTurn` events); it goes on
        /// before any other change.
        var underWay: Request?
        /// Changes that came while one was under way or decisions were due, in arrival order.
        var waiting: [Request] = []
        /// Whether a `nextTurn` waits in the stream already.
        var nextTurnQueued = false
        /// nudged is stopping: no request goes on past its first turn, and no change waits.
        var stopping = false

        /// A request under way, changes waiting, or decisions due that the last turn left: a `nextTurn` goes on.
        var hasWorkLeft: Bool { underWay != nil || !waiting.isEmpty || book.hasDecisionDue }

        /// Schedules what the book holds, fires late or reports missed what fell due unhandled, at most `limit`
        /// events of it: at start a turn's worth (the rest goes on in later turns), and after a reload all of it, so
        /// that nothing is left due to wake the loop again. A commit like any other: if it fails, the next input
        /// reloads again, so a failing disk costs one attempt per input, never a loop.
        mutating func restore(limit: Int) -> Commit {
            Commit(outcome: book.start(limit: limit)) { _ in }
        }

        /// Sets the timer as the scheduler decided, as each operation is applied: its actions are the only say in
        /// when nudged wakes.
        func setTimer(_ actions: [SchedulerAction]) {
            for action in actions {
                switch action {
                case .armTimer(let instant): timer.arm(at: instant)
                case .disarmTimer: timer.arm(at: nil)
                case .deliver, .deliverDigest, .withdraw: break
                }
            }
        }
    }

    /// An applied operation on its way to disk, and what follows once it is there, or is not.
    struct Commit: Sendable {
        var outcome: ReminderBook.Outcome
        /// Tells whoever asked: after the outcome is carried out, or once the writer has recorded its failure.
        var answer: @Sendable (Result<Void, any Error>) -> Void
    }

    /// Why the loop answered a request without applying all of it.
    enum Refusal: Error {
        /// It came as nudged stops, after the loop that answers requests ended.
        case stopping
        /// It had applied part of itself (a clock move or batch over several turns) when nudged began to stop.
        case stoppedPartWay
        /// It had applied part of itself over several turns when saving failed.
        case failedPartWay
    }

    /// What a turn of an operation came to: its answer, or the rest of it, for a later turn.
    enum Progress<Value: Sendable>: Sendable {
        case done(Value)
        case goesOn(Staged<Value>)
    }

    /// A turn of an operation on the book: how far it came, and its outcomes, to commit in order.
    typealias Staged<Value: Sendable> =
        @Sendable (inout ReminderBook) throws -> (Progress<Value>, [ReminderBook.Outcome])
}
