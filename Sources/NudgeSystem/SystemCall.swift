import Glibc
import SystemPackage

/// The few C calls swift-system does not wrap, each behind one helper that retries `EINTR` and turns a `-1` into a
/// typed `Errno`, so no return code is dropped (the pattern of swift-system's `valueOrErrno`).
public enum SystemCall {
    /// Flushes a file's data and metadata to the device; the store's writes are durable only after this.
    public static func fsync(_ fd: FileDescriptor) throws(Errno) {
        _ = try valueOrErrno { Glibc.fsync(fd.rawValue) }
    }

    /// Flushes a file's data, and the metadata needed to read it back (its size), to the device: an append is
    /// durable after this.
    public static func fdatasync(_ fd: FileDescriptor) throws(Errno) {
        _ = try valueOrErrno { Glibc.fdatasync(fd.rawValue) }
    }

    /// Up to `count` bytes from `offset` on, fewer only where the file ends; retried until then, as `read` may
    /// return less than asked.
    public static func read(_ fd: FileDescriptor, count: Int, at offset: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = try typed {
                try bytes.withUnsafeMutableBytes {
                    try fd.read(fromAbsoluteOffset: Int64(offset + filled), into: .init(rebasing: $0[filled...]))
                }
            }
            if read == 0 { break }
            filled += read
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// Sets permissions exactly, whatever the umask took away when the file was created.
    public static func fchmod(_ fd: FileDescriptor, _ permissions: FilePermissions) throws(Errno) {
        _ = try valueOrErrno { Glibc.fchmod(fd.rawValue, permissions.rawValue) }
    }

    /// Takes an exclusive lock without waiting; throws `.wouldBlock` when another open file description holds it.
    public static func lockExclusiveWithoutWaiting(_ fd: FileDescriptor) throws(Errno) {
        _ = try valueOrErrno { flock(fd.rawValue, LOCK_EX | LOCK_NB) }
    }

    public static func rename(_ source: String, to destination: String) throws(Errno) {
        _ = try valueOrErrno {
            source.withCString { source in destination.withCString { Glibc.rename(source, $0) } }
        }
    }

    public static func unlink(_ path: String) throws(Errno) {
        _ = try valueOrErrno { path.withCString { Glibc.unlink($0) } }
    }

    public static func mkdir(_ path: String, _ permissions: FilePermissions) throws(Errno) {
        _ = try valueOrErrno { path.withCString { Glibc.mkdir($0, permissions.rawValue) } }
    }

    /// The names in a directory, without `.` and `..`.
    public static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let directory = path.withCString({ Glibc.opendir($0) }) else { throw Errno(rawValue: Glibc.errno) }
        // Read-only: closedir can only fail on a bad handle, and nothing could be lost.
        defer { _ = Glibc.closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on error; only errno tells them apart.
            Glibc.errno = 0
            guard let entry = Glibc.readdir(directory) else {
                if Glibc.errno != 0 { throw Errno(rawValue: Glibc.errno) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// The soft and hard limits on open files (RLIMIT_NOFILE).
    public static func openFileLimits() throws(Errno) -> (soft: Int, hard: Int) {
        var limit = rlimit()
        _ = try valueOrErrno { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        return (Int(clamping: limit.rlim_cur), Int(clamping: limit.rlim_max))
    }

    /// Sets the soft limit on open files; it may not pass the hard limit.
    public static func setOpenFileLimit(soft: Int) throws(Errno) {
        var limit = rlimit()
        _ = try valueOrErrno { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        limit.rlim_cur = rlim_t(soft)
        _ = try valueOrErrno { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
    }

    /// Cannot fail.
    public static func processID() -> Int { Int(Glibc.getpid()) }

    /// The real user ID this process runs as. Cannot fail.
    public static func userID() -> UInt32 { Glibc.getuid() }

    /// Whether `fd` is a terminal. (isatty's only failures, ENOTTY and EBADF, both mean it is not one.)
    public static func isTerminal(_ fd: FileDescriptor) -> Bool { Glibc.isatty(fd.rawValue) == 1 }

    /// Removes `name` from the process's environment, so that programs started later do not inherit it. Fails only
    /// for a name that is empty or holds `=`: a caller's mistake.
    public static func removeEnvironmentVariable(_ name: String) {
        let result = Glibc.unsetenv(name)
        precondition(result == 0, "\"\(name)\" is not an environment variable name")
    }

    /// Makes the process ignore `signal` (SIGXFSZ, SIGHUP...) from now on. Fails only for a number that is not a
    /// signal, or one that cannot be ignored (SIGKILL, SIGSTOP).
    public static func ignore(signal: Int32) throws(Errno) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        _ = try valueOrErrno { sigaction(signal, &action, nil) }
    }

    /// CLOCK_MONOTONIC in microseconds: the clock sd-bus gives its deadlines in. Cannot fail on Linux.
    public static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        let result = clock_gettime(CLOCK_MONOTONIC, &now)
        precondition(result == 0, "CLOCK_MONOTONIC cannot be read: errno \(Glibc.errno)")
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }

    /// Gives the CPU to another thread: for a wait of microseconds, where sleeping would be far too coarse.
    public static func yield() { _ = sched_yield() }

    /// swift-system's `FileDescriptor` methods are declared `throws` but only ever throw `Errno`; this gives the
    /// type back so callers can say which errno happened.
    public static func typed<Result>(_ body: () throws -> Result) throws(Errno) -> Result {
        do {
            return try body()
        } catch let error as Errno {
            throw error
        } catch {
            // Unreachable with swift-system 1.x; an I/O error is the honest fallback if that ever changes.
            throw .ioError
        }
    }

    /// Runs a system call that returns -1 and sets errno on failure, again while it is interrupted (EINTR), and
    /// throws its typed `Errno` otherwise.
    public static func valueOrErrno<I: FixedWidthInteger>(_ call: () -> I) throws(Errno) -> I {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno(rawValue: Glibc.errno)
            if error != .interrupted { throw error }
        }
    }
}
