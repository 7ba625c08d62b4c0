import Foundation
import NudgeCore
import NudgeSinks
import Synchronization

@testable import NudgeStore

/// A store in memory whose next commit can be made to fail, as a full disk would, or to wait until released.
package final class MemoryStore: DurableStore {
    package let path = "memory"
    private let state: Mutex<State>
    /// Where a held commit waits: the writer's own thread, which may block.
    private let held = NSCondition()

    private struct State {
        var library: ChecklistLibrary
        var events: [ReminderEvent] = []
        var failNext = false
        var reads = 0
        var hold: AsyncStream<Void>.Continuation?
        var holding = false
    }

    package init(_ library: ChecklistLibrary) {
        state = Mutex(State(library: library))
    }

    package var library: ChecklistLibrary {
        state.withLock { state in
            state.reads += 1
            return state.library
        }
    }

    /// How many times `library` was read: once at start, and once for each reload.
    package var libraryReads: Int { state.withLock { $0.reads } }

    package func failNextCommit() {
        state.withLock { $0.failNext = true }
    }

    /// The next commit waits until `release`; the stream yields once it has begun.
    package func holdNextCommit() -> AsyncStream<Void> {
        let (entered, continuation) = AsyncStream<Void>.makeStream()
        state.withLock { $0.hold = continuation }
        return entered
    }

    package func release(failing: Bool) {
        held.lock()
        state.withLock {
            $0.holding = false
            $0.failNext = failing
        }
        held.broadcast()
        held.unlock()
    }

    package func events(
        after: Int,
        limit: Int,
        scanLimit: Int,
        matching matches: (ReminderEvent) -> Bool
    ) throws(StoreError) -> EventPage {
        let events = state.withLock { $0.events }
        let found = events.filter { $0.id > after && matches($0) }
        let page = Array(found.prefix(limit))
        return EventPage(
            events: page,
            next: found.count > limit ? page.last?.id : nil,
            dropped: 0,
            latest: events.last?.id ?? 0
        )
    }

    package func commit(_ changes: [ChecklistChange], events: [ReminderEvent]) throws(StoreError) {
        held.lock()
        state.withLock { state in
            guard let hold = state.hold else { return }
            state.hold = nil
            state.holding = true
            hold.yield()
        }
        while state.withLock({ $0.holding }) { held.wait() }
        held.unlock()
        try state.withLock { (state) throws(StoreError) in
            if state.failNext {
                state.failNext = false
                throw StoreError.writeFailed(path: path, step: "write", errno: .noSpace)
            }
            var library = state.library
            for change in changes {
                do {
                    try library.apply(change)
                } catch {
                    preconditionFailure("the service committed a change the model refuses: \(error)")
                }
            }
            if let last = events.last { library.raiseCounters(nextItemID: 0, nextListID: 0, nextEventID: last.id + 1) }
            state.library = library
            state.events += events
        }
    }
}
