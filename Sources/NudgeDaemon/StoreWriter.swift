import Foundation
import NudgeCore
import NudgeSinks
import NudgeStore
import NudgeSystem
import Synchronization

/// Makes changes durable with group commit: changes that arrive while a write is in flight are written together
/// in the next one. Commits are queued in the order they are submitted, written in that order, and what follows each
/// one (`onDurable`) runs in that order too, on the writer's thread, before its submitter hears it is durable.
///
/// The writer alone knows whether what the service applied is durable (`Durability`). When a write fails, its
/// changes and every change queued behind it (computed on top of them) fail, and so does every later commit until
/// the service, which asks before each input (`takeFailure`), has reloaded what is durable.
final class StoreWriter: Sendable {
    /// Starts a drain of the waiting commits somewhere it may block on fsync: off the event loops, and off
    /// Dispatch (see `NudgedCommand.mainOnEventLoops()`). Tests pass one that holds the drain back.
    typealias Launcher = @Sendable (_ drain: @escaping @Sendable () -> Void) -> Void

    let store: any DurableStore
    private let launch: Launcher
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var waiting: [QueuedCommit] = []
        var writing = false
        var durability = Durability()
        var writes = 0
        var commits = 0
    }

    /// By default drains run on a `BlockingWorker` of the writer's own.
    init(store: any DurableStore, launch: Launcher? = nil) {
        self.store = store
        self.launch = launch ?? { [worker = BlockingWorker(named: "nudged-writer")] in worker.submit($0) }
    }

    /// The most changes and events one record gathers from waiting commits: some 5 MiB, where a burst of commits
    /// (a clock move over a day of a million reminders) would otherwise make one record of hundreds.
    static let maximumRecordEntries = 10_000

    /// How many writes (log appends, each one flush) have been made: with group commit, fewer than the commits.
    var writeCount: Int { state.withLock { $0.writes } }

    /// How many commits with changes or events have been made durable.
    var commitCount: Int { state.withLock { $0.commits } }

    /// How many commits wait for the next write.
    var queuedCount: Int { state.withLock { $0.waiting.count } }

    /// Queues `changes` and the numbered `events` decided with them behind every commit submitted before;
    /// `onDurable` runs once they are on disk. Does not wait: `durable()` on the result does. Refused while a failed
    /// write has not been taken (`takeFailure`): the changes were computed on what may not be durable.
    func submit(
        _ changes: [ChecklistChange],
        events: [ReminderEvent] = [],
        onDurable: @escaping @Sendable () -> Void = {}
    ) -> QueuedCommit {
        let commit = QueuedCommit(changes: changes, events: events, onDurable: onDurable)
        let (refusal, startWriting): (StoreError?, Bool) = state.withLock { state in
            if let refusal = state.durability.refusal { return (refusal, false) }
            state.waiting.append(commit)
            guard !state.writing else { return (nil, false) }
            state.writing = true
            return (nil, true)
        }
        if let refusal { commit.finish(.failure(refusal)) }
        if startWriting { launch { self.drain() } }
        return commit
    }

    /// Asked by the service before each input: why a write failed since it last asked, if one did. The service then
    /// reloads its state from the store (which holds what is durable) before it submits anything more, and commits go
    /// ahead again.
    func takeFailure() -> StoreError? {
        state.withLock { $0.durability.takeFailure() }
    }

    private func drain() {
        while true {
            let batch = state.withLock { state in
                // Commits in order, up to `maximumRecordEntries` changes and events together (a single larger commit
                // goes alone): however much waits, a record stays far below the log's record limit.
                var taken = 0
                var entries = 0
                for commit in state.waiting {
                    let size = commit.changes.count + commit.events.count
                    if taken > 0 && entries + size > Self.maximumRecordEntries { break }
                    entries += size
                    taken += 1
                }
                defer { state.waiting.removeFirst(taken) }
                if taken == 0 { state.writing = false }
                return Array(state.waiting.prefix(taken))
            }
            guard !batch.isEmpty else { return }
            do {
                // A batch of commits with nothing to record (a timer wake-up that found nothing due) writes nothing,
                // but keeps its place in the order.
                let changes = batch.flatMap(\.changes)
                let events = batch.flatMap(\.events)
                if !changes.isEmpty || !events.isEmpty {
                    try store.commit(changes, events: events)
                    let committed = batch.count { !$0.changes.isEmpty || !$0.events.isEmpty }
                    state.withLock { state in
                        state.writes += 1
                        state.commits += committed
                    }
                }
                for commit in batch {
                    commit.onDurable()
                    commit.finish(.success(()))
                }
            } catch {
                // Commits not in the failed write were not written at all, whatever that write's outcome.
                let refusal = StoreError.notWritten(path: error.path, after: error)
                let behind = state.withLock { state in
                    state.durability.writeFailed(error, refusing: refusal)
                    defer { state.waiting = [] }
                    return state.waiting
                }
                for commit in batch { commit.finish(.failure(error)) }
                for commit in behind { commit.finish(.failure(refusal)) }
            }
        }
    }
}
