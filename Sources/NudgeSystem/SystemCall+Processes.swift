import CLinux
import Glibc
import SystemPackage

/// Starting programs, waiting for them, and waiting on descriptors: each call's result checked, as the rest of
/// `SystemCall`.
extension SystemCall {
    /// A program to start: by path if `executable` holds a `/`, else found on `PATH`.
    public struct Spawn: Sendable {
        public var executable: String
        public var arguments: [String]
        /// The whole environment it gets.
        public var environment: [String: String]
        /// Files its stdout and stderr go to (created, or emptied), instead of this process's stderr.
        public var standardOutput: String?
        public var standardError: String?

        public init(
            executable: String,
            arguments: [String],
            environment: [String: String],
            standardOutput: String? = nil,
            standardError: String? = nil
        ) {
            self.executable = executable
            self.arguments = arguments
            self.environment = environment
            self.standardOutput = standardOutput
            self.standardError = standardError
        }
    }

    /// Starts `program` with /dev/null as stdin, this process's stderr (or the files it names) as stdout and stderr,
    /// nothing else of this process's descriptors, default signal handling and an empty signal mask (this process
    /// ignores SIGPIPE and SIGHUP and may block others), in a process group of its own, so that a signal to the group
    /// stops what it started too. Its process ID; throws why it could not start (not found, not executable, ...).
    public static func spawn(_ program: Spawn) throws(Errno) -> pid_t {
        let argv = ([program.executable] + program.arguments).map { strdup($0) } + [nil]
        let envp = program.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        try resultCode(posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try resultCode(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        try resultCode(posix_spawn_file_actions_adddup2(&actions, 2, 1))
        for (fd, path) in [(Int32(1), program.standardOutput), (2, program.standardError)] {
            guard let path else { continue }
            try resultCode(posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600))
        }
        try resultCode(posix_spawn_file_actions_addclosefrom_np(&actions, 3))
        var attributes = posix_spawnattr_t()
        try resultCode(posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        try resultCode(posix_spawnattr_setsigmask(&attributes, &none))
        try resultCode(posix_spawnattr_setsigdefault(&attributes, &all))
        try resultCode(posix_spawnattr_setpgroup(&attributes, 0))
        try resultCode(
            posix_spawnattr_setflags(
                &attributes,
                Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
            )
        )
        var pid: pid_t = 0
        try resultCode(
            program.executable.contains("/")
                ? posix_spawn(&pid, program.executable, &actions, &attributes, argv, envp)
                : posix_spawnp(&pid, program.executable, &actions, &attributes, argv, envp)
        )
        return pid
    }

    /// A descriptor that polls readable once process `pid` has exited (Linux 5.3 and later).
    public static func pidfdOpen(_ pid: pid_t) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try valueOrErrno { nudge_pidfd_open(pid) })
    }

    /// Whether process `pid`, a child, has exited, without reaping it.
    public static func hasExited(_ pid: pid_t) throws(Errno) -> Bool {
        var info = siginfo_t()
        _ = try valueOrErrno { waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) }
        return info.si_signo != 0
    }

    /// Sends `signal` to process `pid` (to its process group when negative).
    public static func kill(_ pid: pid_t, _ signal: Int32) throws(Errno) {
        _ = try valueOrErrno { Glibc.kill(pid, signal) }
    }

    /// How a reaped child ended.
    public enum ChildEnd: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Waits for child `pid` to end and reaps it.
    public static func reap(_ pid: pid_t) throws(Errno) -> ChildEnd {
        var status: Int32 = 0
        _ = try valueOrErrno { waitpid(pid, &status, 0) }
        // WIFEXITED and friends are macros, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// Waits until one of `descriptors` is ready or `milliseconds` pass (-1: no limit); how many are ready. An
    /// interrupted wait answers 0, as one that timed out: the caller looks at its deadline again.
    public static func poll(_ descriptors: inout [pollfd], milliseconds: Int32) throws(Errno) -> Int {
        let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        guard ready >= 0 else {
            let error = Errno(rawValue: Glibc.errno)
            if error == .interrupted { return 0 }
            throw error
        }
        return Int(ready)
    }

    /// Adds one to an eventfd's counter, waking whoever polls it.
    public static func signalEvent(_ fd: FileDescriptor) throws(Errno) {
        var one: UInt64 = 1
        _ = try valueOrErrno { Glibc.write(fd.rawValue, &one, 8) }
    }

    /// Takes an eventfd's counter, so that it no longer polls readable; 0 if nothing signalled it.
    public static func takeEvents(_ fd: FileDescriptor) throws(Errno) -> UInt64 {
        var count: UInt64 = 0
        do {
            _ = try valueOrErrno { Glibc.read(fd.rawValue, &count, 8) }
        } catch .wouldBlock {
            return 0
        }
        return count
    }

    /// For calls that return 0, or an error number itself (posix_spawn and its attributes).
    private static func resultCode(_ result: Int32) throws(Errno) {
        guard result == 0 else { throw Errno(rawValue: result) }
    }
}
