import Foundation

/// Starts `work` on a new thread named `name` (as `top` and `/proc/PID/task/*/comm` show it), which ends with it.
/// nudged's tasks run on NIO's event loops, and libdispatch's worker pool would wake the process every second (see
/// `NudgedCommand.mainOnEventLoops`), so work that blocks (fsync, a timerfd read, a send to a stalled journald)
/// runs on a thread of its own, started here.
public func startThread(named name: String, _ work: @escaping @Sendable () -> Void) {
    Thread {
        // Named from inside: on Linux, Foundation does not pass a name set before `start()` to the kernel.
        Thread.current.name = name
        work()
    }.start()
}

/// Runs blocking `work` on a thread of its own (`startThread`); the caller suspends until it returns.
public func onThreadOfItsOwn<Result: Sendable>(
    named name: String,
    _ work: @escaping @Sendable () -> Result
) async -> Result {
    await withCheckedContinuation { continuation in
        startThread(named: name) { continuation.resume(returning: work()) }
    }
}
