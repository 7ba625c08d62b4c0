import CLinux
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NudgeSystem

extension NudgedCommand {
    /// Runs nudged from a synchronous `main`, with Swift concurrency's jobs on NIO's event loops instead of
    /// libdispatch's worker pool. Call it first thing: the executor must be in place before any task starts.
    ///
    /// Why: on Linux, the first worker thread of a Dispatch global queue starts a monitor of the pool that wakes
    /// the process every second from then on, and nudged must sleep until a reminder is due (`WakeupTests`). Seen
    /// with gdb (`break _dispatch_workq_init_once`), these start it: an `async` `main` (its jobs are drained by
    /// `dispatch_main`), Swift concurrency's default global executor, `DispatchQueue.global()`, and `Task.sleep`
    /// even with this executor (NIO takes over only jobs that run now; delayed ones still go to Dispatch). So none
    /// of them may run at start-up, on an API request or while idle: wait with the timerfd (`WallClockTimer`) or
    /// `EventLoopClock`. Serial queues and their sources (ServiceLifecycle's signal handling) do not
    /// start it. Code in tasks runs on an event loop: work that blocks (fsync) belongs on a thread of its own.
    public static func mainOnEventLoops() {
        if !runConcurrencyOnEventLoops() {
            FileHandle.standardError.write(
                Data("nudged: Swift concurrency runs on libdispatch, which wakes the process every second\n".utf8)
            )
        }
        let finished = ConditionLock(value: false)
        Task.detached {
            await main()
            finished.lock()
            finished.unlock(withValue: true)
        }
        finished.lock(whenValue: true)
        finished.unlock()
    }

    /// The signature of the runtime's `swift_task_enqueueGlobal_hook`: the job, and the enqueue it replaces.
    private typealias EnqueueGlobalHook =
        @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void

    /// Points the runtime's global-executor hook at NIO's singleton event loops (sticky: a job enqueued from a loop
    /// stays on it), as `NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()`
    /// does. Not with that call: it finds the hook with dlsym, which fails in the package's binaries (the Swift
    /// runtime linked in statically, its symbols hidden); CLinux's reference to the hook is resolved by the linker.
    /// False if something else has set the hook already.
    private static func runConcurrencyOnEventLoops() -> Bool {
        let enqueueOnEventLoop: EnqueueGlobalHook = { job, _ in
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
        }
        let hook = nudge_enqueue_global_hook()!
        guard hook.pointee == nil else { return false }
        hook.pointee = unsafeBitCast(enqueueOnEventLoop, to: UnsafeMutableRawPointer.self)
        return true
    }
}
