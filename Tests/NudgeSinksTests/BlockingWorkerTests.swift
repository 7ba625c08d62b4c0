import CLinux
import Foundation
import NudgeSystem
import Synchronization
import Testing

/// The thread the journal sink, the program runner and the store writer do their blocking work on.
@Suite struct BlockingWorkerTests {
    /// Whether this process has a thread with kernel ID `tid`, from /proc. (Kernel IDs are handed out in turn up
    /// to `pid_max`, so one is not reused within a test.)
    private static func threadExists(_ tid: pid_t) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)")
    }

    @Test func jobsRunOneAtATimeInTheOrderGivenOnOneThreadKeptForThem() async {
        let worker = BlockingWorker(named: "test-worker-a")
        let seen = Mutex<[(job: Int, thread: pid_t)]>([])
        for job in 0..<200 {
            worker.submit { seen.withLock { $0.append((job, nudge_gettid())) } }
        }
        let last = await worker.run { nudge_gettid() }
        let runs = seen.withLock { $0 }
        #expect(runs.map(\.job) == Array(0..<200))
        #expect(Set(runs.map(\.thread)) == [last], "every job on the same thread")
        #expect(last != nudge_gettid())
        // Kept, not started again: a later job, and one a job gives, find the same thread.
        #expect(await worker.run { nudge_gettid() } == last)
        let fromAJob = await withCheckedContinuation { (answer: CheckedContinuation<pid_t, Never>) in
            worker.submit { worker.submit { answer.resume(returning: nudge_gettid()) } }
        }
        #expect(fromAJob == last)
    }

    @Test func jobsQueuedWhenTheWorkerIsReleasedStillRunAndThenTheThreadEnds() async throws {
        var worker: BlockingWorker? = BlockingWorker(named: "test-worker-b")
        let gate = DispatchSemaphore(value: 0)
        let done = Mutex(0)
        // The first job holds the thread until the worker is gone; the rest wait behind it.
        let thread = await withCheckedContinuation { (running: CheckedContinuation<pid_t, Never>) in
            worker?.submit {
                running.resume(returning: nudge_gettid())
                gate.wait()
                done.withLock { $0 += 1 }
            }
        }
        for _ in 0..<49 { worker?.submit { done.withLock { $0 += 1 } } }
        #expect(Self.threadExists(thread))
        worker = nil
        gate.signal()
        // Thread exit is not an event this process can wait on; look again until it is gone (microseconds), with a
        // deadline that only catches a thread that never ends.
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.threadExists(thread) && ContinuousClock.now < deadline { await Task.yield() }
        #expect(!Self.threadExists(thread))
        #expect(done.withLock { $0 } == 50, "every job queued before the release ran")
    }
}
