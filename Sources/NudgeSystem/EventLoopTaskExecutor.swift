import NIOCore
import NIOPosix

/// Runs a task's jobs on one event loop: a task that writes to a channel, run on that channel's loop, writes without
/// a second hop (nudged's global executor puts a task woken from another thread on whichever loop comes next). The
/// loop must outlive every task that prefers it: a loop shut down drops the jobs given to it.
public final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    public init(_ loop: any EventLoop) { self.loop = loop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
