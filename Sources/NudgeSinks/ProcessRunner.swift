import CLinux
import Foundation
import NudgeSystem

/// A program to run: by argument vector, never through a shell. Arguments and environment values are C strings,
/// which cannot hold NUL, so a NUL in them is shown as U+2400 (␀) instead of silently cutting the text short.
public struct ProcessCommand: Sendable, Equatable {
    /// A path, or a name looked up in PATH.
    public var executable: String
    public var arguments: [String]
    /// Added to (or replacing in) nudged's own environment.
    public var environment: [String: String]
    /// Past this the program is stopped: SIGTERM to its process group, then SIGKILL a second later.
    public var timeout: Duration

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration) {
        self.executable = executable
        self.arguments = arguments.map(\.showingNUL)
        self.environment = environment.mapValues(\.showingNUL)
        self.timeout = timeout
    }
}

/// How a program ended.
public enum ProcessOutcome: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
    /// Still running at the timeout, and stopped.
    case timedOut
    /// Never ran: not found, not executable, or the spawn failed.
    case notStarted(String)

    public var succeeded: Bool { self == .exited(0) }

    /// For a log line: `exited with status 2`, `was stopped after 5 s`, …
    public func describe(timeout: Duration) -> String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "was killed by signal \(signal)"
        case .timedOut: "was stopped after \(timeout.components.seconds) s without finishing"
        case .notStarted(let reason): "could not start: \(reason)"
        }
    }
}

extension String {
    /// C strings (a program's arguments and environment, D-Bus strings) hold no NUL: one shows as U+2400 (␀) instead
    /// of cutting the text short.
    var showingNUL: String {
        contains("\0") ? replacingOccurrences(of: "\0", with: "\u{2400}") : self
    }
}

/// Runs programs for the sinks: the seam where unit tests put a fake.
public protocol ProcessRunner: Sendable {
    func run(_ command: ProcessCommand) async -> ProcessOutcome
}

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
        let pid: pid_t
        switch spawn(command) {
        case .success(let spawned): pid = spawned
        case .failure(let failure): return .notStarted(failure.reason)
        }
        let pidfd = nudge_pidfd_open(pid)
        defer { if pidfd >= 0 { close(pidfd) } }
        let milliseconds =
            command.timeout.components.seconds * 1_000
            + command.timeout.components.attoseconds / 1_000_000_000_000_000
        if !exits(pid, pidfd, within: milliseconds) {
            kill(-pid, SIGTERM)
            _ = exits(pid, pidfd, within: 1_000)
            // Whatever of the group is left, the program's children that outlived or ignored SIGTERM included.
            // Before the reap: the program's zombie keeps its process group ID from being reused until then.
            kill(-pid, SIGKILL)
            _ = reap(pid)
            return .timedOut
        }
        return reap(pid)
    }

    /// Whether process `pid` has exited within `milliseconds`, without reaping it: `poll` on its pidfd, or, where
    /// there is none (a kernel before 5.3, no descriptor left, a seccomp filter), a look every 50 ms.
    private static func exits(_ pid: pid_t, _ pidfd: Int32, within milliseconds: Int64) -> Bool {
        func now() -> Int64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
        }
        let end = now() + milliseconds
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while true {
            let left = end - now()
            if pidfd >= 0 {
                let ready = poll(&entry, 1, Int32(clamping: max(min(left, 3_600_000), 0)))
                if ready > 0 { return true }
                if ready < 0 && errno != EINTR { return false }
            } else {
                var info = siginfo_t()
                if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo != 0 {
                    return true
                }
                if left > 0 { _ = poll(nil, 0, Int32(min(left, 50))) }
            }
            if left <= 0 { return false }
        }
    }

    private static func reap(_ pid: pid_t) -> ProcessOutcome {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .notStarted("waiting for it failed: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED and friends are macros, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    private struct SpawnFailure: Error {
        var reason: String
    }

    private static func spawn(_ command: ProcessCommand) -> Result<pid_t, SpawnFailure> {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(command.environment) { $1 }
        let argv = ([command.executable] + command.arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        // Whatever nudged has open beyond these (sockets, the store) is not the program's.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        // nudged ignores SIGPIPE and SIGHUP and may block others; the program starts with the defaults.
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        )
        var pid: pid_t = 0
        let result =
            command.executable.contains("/")
            ? posix_spawn(&pid, command.executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&pid, command.executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            return .failure(SpawnFailure(reason: "\(command.executable): \(String(cString: strerror(result)))"))
        }
        return .success(pid)
    }
}
