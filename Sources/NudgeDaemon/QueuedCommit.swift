import Foundation
import NudgeCore
import NudgeSinks
import NudgeStore
import NudgeSystem
import Synchronization

/// Changes handed to the `StoreWriter`, and whether they are durable yet.
final class QueuedCommit: Sendable {
    let changes: [ChecklistChange]
    let events: [ReminderEvent]
    let onDurable: @Sendable () -> Void
    private let state = Mutex<(result: Result<Void, any Error>?, waiter: CheckedContinuation<Void, any Error>?)>(
        (nil, nil)
    )

    init(changes: [ChecklistChange], events: [ReminderEvent], onDurable: @escaping @Sendable () -> Void) {
        self.changes = changes
        self.events = events
        self.onDurable = onDurable
    }

    /// Returns once the changes are on disk; throws why they are not. One task awaits it (the service's `complete`):
    /// a second waiter would take the first one's place, and the first would wait for ever.
    func durable() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let result = state.withLock { state in
                if state.result == nil { state.waiter = waiter }
                return state.result
            }
            if let result { waiter.resume(with: result) }
        }
    }

    func finish(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state in
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }
}
