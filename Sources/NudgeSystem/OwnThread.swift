import CLinux
import DequeModule
import Foundation

/// Starts `work` on a new thread named `name` (as `top` and `/proc/PID/task/*/comm` show it), which ends with it.
/// nudged's tasks run on NIO's event loops, and libdispatch's worker pool would wake the process every second (see
/// `NudgedCommand.mainOnEventLoops`), so work that blocks (fsync, a timerfd read, a send to a stalled journald)
/// runs on a thread of its own, started here or kept by a `BlockingWorker`.
public func startThread(named name: String, _ work: @escaping @Sendable () -> Void) {
    Thread {
        // Named from inside, by the kernel's own call: Foundation passes neither a name set before `start()` nor,
        // reliably, one set just after it to the kernel (seen: a worker thread without its name under load).
        _ = nudge_name_this_thread(name)
        work()
    }.start()
}
