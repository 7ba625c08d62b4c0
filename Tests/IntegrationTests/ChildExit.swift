import Foundation
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

    /// Blocks until the child has exited, looking every 10 ms, and returns its status; nil if `limit` passes first.
    /// For `defer` and other synchronous places; the child must be on its way out (signalled, or ending by itself).
    @discardableResult
    func awaitExit(within limit: Duration = patience) -> Int32? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let status = exitStatus { return status }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(10_000)
        }
    }

    /// Suspends until the child has exited and returns its status; holds no thread while it waits.
    func exited() async -> Int32 {
        while true {
            if let status = exitStatus { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
