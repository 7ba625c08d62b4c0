import CLinux
import Foundation
import NudgeSystem
import SystemPackage

/// Runs each program with `posix_spawn` and waits for it on the runner's own thread (a `BlockingWorker`, so programs
/// run one at a time, in the order asked), blocked in `poll` on a pidfd until it exits or its timeout comes (then
/// SIGTERM to its process group, and SIGKILL to what is left a second later): nothing wakes while it runs, and
/// nothing is left behind once it has been reaped.
/// (swift-subprocess, used before, waits in `Task.sleep` steps of a second, which starts libdispatch's pool monitor
/// and makes nudged wake every second for the rest of its life.) The program gets /dev/null as stdin, nudged's
/// stderr as stdout and stderr, default signal handling, and a process group of its own, so a timeout stops what it
/// started too.
public final class SpawningRunner: ProcessRunner {
    private let waiter = BlockingWorker(named: "nudge-child")

    public init() {}

    public func run(_ command: ProcessCommand) async -> ProcessOutcome {
        await waiter.run { Self.runToEnd(command) }
    }

    private static func runToEnd(_ command: ProcessCommand) -> ProcessOutcome {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(command.environment) { $1 }
        let pid: pid_t
        do {
            pid = try SystemCall.spawn(
                .init(executable: command.executable, arguments: command.arguments, environment: environment)
            )
        } catch {
            return .notStarted("\(command.executable): \(error)")
        }
        // Without one (a kernel before 5.3, no descriptor left, a seccomp filter), a look every 50 ms.
        let pidfd = try? SystemCall.pidfdOpen(pid)
        defer { try? pidfd?.close() }
        if !exits(pid, pidfd, within: command.timeout) {
            // Already gone, it cannot be signalled (ESRCH): nothing to do about that.
            try? SystemCall.kill(-pid, SIGTERM)
            _ = exits(pid, pidfd, within: Duration.seconds(1))
            // Whatever of the group is left, the program's children that outlived or ignored SIGTERM included.
            // Before the reap: the program's zombie keeps its process group ID from being reused until then.
            try? SystemCall.kill(-pid, SIGKILL)
            _ = reap(pid)
            return .timedOut
        }
        return reap(pid)
    }

    /// Whether process `pid` has exited within `timeout`, without reaping it: `poll` on its pidfd, or a look every
    /// 50 ms where there is none. A wait that fails says it has not, and the caller stops the program.
    private static func exits(_ pid: pid_t, _ pidfd: FileDescriptor?, within timeout: Duration) -> Bool {
        let end = ContinuousClock.now + timeout
        do {
            while true {
                let left = ContinuousClock.now.duration(to: end)
                // Rounded up, so a wait never ends just short of the deadline and spins.
                let (seconds, attoseconds) = left.components
                let milliseconds = Int32(
                    clamping: max(min(seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1, 3_600_000), 0)
                )
                if let pidfd {
                    var entry = [pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)]
                    if try SystemCall.poll(&entry, milliseconds: milliseconds) > 0 {
                        return true
                    }
                } else {
                    if try SystemCall.hasExited(pid) { return true }
                    var none: [pollfd] = []
                    if left > .zero { _ = try SystemCall.poll(&none, milliseconds: min(milliseconds, 50)) }
                }
                if left <= .zero { return false }
            }
        } catch {
            return false
        }
    }

    private static func reap(_ pid: pid_t) -> ProcessOutcome {
        do {
            return switch try SystemCall.reap(pid) {
            case .exited(let status): .exited(status)
            case .signalled(let signal): .signalled(signal)
            }
        } catch {
            return .notStarted("waiting for it failed: \(error)")
        }
    }
}
