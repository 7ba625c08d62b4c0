import CLinux
import DequeModule
import Foundation

/// One thread of its own for blocking jobs, which it runs one at a time in the order they were given. The thread
/// starts with the first job and is kept: a thread started per job cost some 40 µs of CPU each, a third of the fsync
/// a store write waits on, and thousands of threads a second under load. Idle, it waits on a condition variable,
/// which nothing but a new job signals, so it never wakes the process; it ends once the worker is released and its
/// jobs are done.
///
/// Not NIO's `NIOThreadPool`, which nudged uses for blocking work that may run anywhere (history pages): the pool
/// runs jobs on any of its threads in no set order, while each user of a worker needs its jobs in order and a thread
/// of its own, so that one stalled (a journald that does not read, a program that runs to its timeout, a slow fsync)
/// holds up only its own queue: the store writer's drains, a sink's journal sends, the command sink's programs.
public final class BlockingWorker: Sendable {
    private let jobs: Jobs
    private let name: String

    public init(named name: String) {
        self.name = name
        jobs = Jobs()
    }

    deinit { jobs.close() }

    /// Queues `job` behind those given before; does not wait for it.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        if jobs.add(job) { startThread(named: name) { [jobs] in jobs.runUntilClosed() } }
    }

    /// Runs `work` in its turn; the caller suspends until it returns.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    /// The queue, shared with the thread, which holds it and not the worker, so the worker can be released.
    private final class Jobs: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = NSCondition()
        private var waiting = Deque<@Sendable () -> Void>()
        private var started = false
        private var closed = false

        /// Queues `job`; true if the thread must be started for it.
        func add(_ job: @escaping @Sendable () -> Void) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            waiting.append(job)
            condition.signal()
            defer { started = true }
            return !started
        }

        func close() {
            condition.lock()
            closed = true
            condition.signal()
            condition.unlock()
        }

        func runUntilClosed() {
            while let job = next() { job() }
        }

        private func next() -> (@Sendable () -> Void)? {
            condition.lock()
            defer { condition.unlock() }
            while waiting.isEmpty && !closed { condition.wait() }
            return waiting.popFirst()
        }
    }
}
