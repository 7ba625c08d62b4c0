import Foundation
import NudgeCore
import NudgeSinks
import NudgeStore
import NudgeSystem
import Synchronization

/// Makes changes durable with group commit: changes that arrive while a write is in flight are written together
/// in the next one, and each caller resumes only once its changes are on disk.
///
/// When a write fails, its changes and every change queued behind it (computed on top of them) fail, and so does
/// every later commit until `resynchronized(generation:)`: the service must first reload what is durable. Each
/// commit names the generation of the state its changes were computed on; after a reload, a commit from an older
/// generation is refused too, however late it arrives.
final class StoreWriter: Sendable {
    /// Starts a drain of the waiting commits somewhere it may block on fsync: off the event loops, and off
    /// Dispatch (see `NudgedCommand.mainOnEventLoops()`). Tests pass one that holds the drain back.
    typealias Launcher = @Sendable (_ drain: @escaping @Sendable () -> Void) -> Void

    let store: any DurableStore
    private let launch: Launcher
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var waiting: [(changes: [ChecklistChange], continuation: CheckedContinuation<Void, any Error>)] = []
        var writing = false
        var failure: StoreError?
        /// The generation of the service's state that commits must come from.
        var generation = 0
        /// Why the last generation ended, for commits that arrive from it late.
        var lastFailure: StoreError?
        var writes = 0
    }

    /// By default each drain gets a thread of its own, which ends when nothing is left to write: a thread costs
    /// far less than the fsyncs it waits on, and an idle writer has nothing that could wake up.
    init(store: any DurableStore, launch: @escaping Launcher = StoreWriter.onNewThread) {
        self.store = store
        self.launch = launch
    }

    static func onNewThread(_ drain: @escaping @Sendable () -> Void) {
        startThread(named: "nudged-writer", drain)
    }

    /// How many writes have been made: with group commit, fewer than the commits.
    var writeCount: Int { state.withLock { $0.writes } }

    /// How many commits wait for the next write.
    var queuedCount: Int { state.withLock { $0.waiting.count } }

    /// Waits until `changes`, computed on generation `generation` of the service's state, are durable.
    func commit(_ changes: [ChecklistChange], generation: Int) async throws {
        guard !changes.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let startWriting: Bool = state.withLock { state in
                if let failure = state.failure ?? (generation == state.generation ? nil : state.lastFailure) {
                    continuation.resume(throwing: failure)
                    return false
                }
                state.waiting.append((changes, continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriting { launch { self.drain() } }
        }
    }

    /// The service has reloaded the durable state as `generation`: commits from it may go ahead.
    func resynchronized(generation: Int) {
        state.withLock { state in
            state.generation = generation
            state.lastFailure = state.failure ?? state.lastFailure
            state.failure = nil
        }
    }

    private func drain() {
        while true {
            let batch = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.writing = false }
                return state.waiting
            }
            guard !batch.isEmpty else { return }
            do {
                try store.commit(batch.flatMap(\.changes))
                state.withLock { $0.writes += 1 }
                for waiter in batch { waiter.continuation.resume() }
            } catch {
                let behind = state.withLock { state in
                    state.failure = error
                    defer { state.waiting = [] }
                    return state.waiting
                }
                for waiter in batch + behind { waiter.continuation.resume(throwing: error) }
            }
        }
    }
}
