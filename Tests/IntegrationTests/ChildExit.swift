import CLinux
import Foundation
import NudgeSystem
import SystemPackage
import Testing

/// A child's exit as the kernel reports it. Foundation learns that a child exited when a socket the child inherited
/// closes; a child another test starts at the same moment can inherit that socket too (Foundation opens it without
/// close-on-exec), and then `isRunning`, `terminationStatus`, `terminationHandler` and `waitUntilExit` hear of the
/// exit only once that other child ends as well. A test blocked on them meanwhile holds one of the few threads every
/// test shares, and the suite can stall for good (seen: two tests in `waitUntilExit` for a killed Xvfb, left a
/// zombie, while a dbus-daemon of a third held its socket). So the tests ask the kernel instead: `waitid` with
/// `WNOWAIT` reads the status and leaves reaping the child to Foundation.
extension Process {
    /// The exit status (the code of a normal exit, else the signal number, as Foundation reports them), or nil while
    /// the child runs.
    var exitStatus: Int32? {
        var info = siginfo_t()
        if waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0 {
            guard info._sifields._sigchld.si_pid == processIdentifier else { return nil }
            return info._sifields._sigchld.si_status
        }
        // ECHILD: Foundation has reaped it already, and says so as soon as it has read the status.
        return isRunning ? nil : terminationStatus
    }

    /// Blocks until the child has exited and returns its status; nil if `limit` passes first. For `defer` and other
    /// synchronous places; the child must be on its way out (signalled, or ending by itself). Waits in `poll` on a
    /// pidfd, which the kernel makes readable when the child exits: no looking again and again.
    @discardableResult
    func awaitExit(within limit: Duration = patience) -> Int32? {
        if let status = exitStatus { return status }
        let deadline = ContinuousClock.now + limit
        let pidfd = nudge_pidfd_open(processIdentifier)
        defer { if pidfd >= 0 { close(pidfd) } }
        var watch = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while true {
            // Read once and kept: Foundation may reap the child between two readings.
            if let status = exitStatus { return status }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            guard pidfd >= 0, poll(&watch, 1, 0) == 0 else {
                // The child has exited (the pidfd is readable), or Foundation has reaped it already (ESRCH): its
                // status is a moment away, once Foundation has read it and says so.
                sched_yield()
                continue
            }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            // Readable once the child exits; EINTR or a timeout goes round again, to the deadline.
            _ = poll(&watch, 1, milliseconds)
        }
    }

    /// Suspends until the child has exited and returns its status; the wait holds a thread of its own, never one of
    /// the few every test shares.
    func exited() async -> Int32 {
        if let status = exitStatus { return status }
        return await withCheckedContinuation { (done: CheckedContinuation<Int32, Never>) in
            let process = UncheckedSendable(self)
            Thread.detachNewThread {
                // Without a bound, as before: the test's own time limit ends a wait that never ends.
                while true {
                    if let status = process.value.awaitExit(within: .seconds(3600)) {
                        return done.resume(returning: status)
                    }
                }
            }
        }
    }
}

/// Suspends until child `pid` (started with `SystemCall.spawn`) has exited, reaps it and returns its status as
/// Foundation reports one (the exit code, or the number of the signal that ended it); the wait holds a thread of its
/// own.
func reaped(_ pid: pid_t) async -> Int32 {
    await withCheckedContinuation { (done: CheckedContinuation<Int32, Never>) in
        Thread.detachNewThread {
            // An interrupted wait goes round again; any other failure (ECHILD: not our child) is a test's mistake.
            while true {
                do throws(Errno) {
                    switch try SystemCall.reap(pid) {
                    case .exited(let code): return done.resume(returning: code)
                    case .signalled(let signal): return done.resume(returning: signal)
                    }
                } catch  where error == .interrupted {
                    continue
                } catch {
                    preconditionFailure("waiting for child \(pid): \(error)")
                }
            }
        }
    }
}

/// A `Process` handed to the thread that waits for it: it only reads the child's status, which the kernel keeps.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
