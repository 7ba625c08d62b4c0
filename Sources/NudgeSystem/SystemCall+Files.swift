import Glibc
import SystemPackage

/// What `stat` says of a file: enough to tell a file another program changed from one it did not.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, other
    }

    public let kind: Kind
    public let size: Int
    public let inode: UInt64
    /// The last change of its content, in nanoseconds since the epoch.
    public let modified: Int64
    public let ownerID: UInt32
}

extension SystemCall {
    /// The status of the file at `path`; of a symbolic link itself unless `followingLinks`.
    public static func fileStatus(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus {
        var status = Glibc.stat()
        let flags = followingLinks ? 0 : AT_SYMLINK_NOFOLLOW
        _ = try valueOrErrno { path.withCString { fstatat(AT_FDCWD, $0, &status, flags) } }
        let kind: FileStatus.Kind =
            switch status.st_mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .directory
            case S_IFLNK: .symbolicLink
            default: .other
            }
        return FileStatus(
            kind: kind,
            size: Int(status.st_size),
            inode: UInt64(status.st_ino),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            ownerID: status.st_uid
        )
    }

    /// `path` with every symbolic link, `.` and `..` resolved (realpath(3)).
    public static func resolvedPath(_ path: String) throws(Errno) -> String {
        guard let resolved = path.withCString({ Glibc.realpath($0, nil) }) else { throw Errno(rawValue: Glibc.errno) }
        defer { Glibc.free(resolved) }
        return String(cString: resolved)
    }

    /// The whole content of the regular file at `path`, if it holds at most `limit` bytes: nil if it holds more. A
    /// symbolic link is not followed (ELOOP), and anything but a regular file (a FIFO that would block) is EINVAL.
    public static func contents(ofFile path: String, limit: Int) throws(Errno) -> [UInt8]? {
        let fd = try typed {
            try FileDescriptor.open(path, .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
        }
        defer { try? fd.close() }
        var status = Glibc.stat()
        _ = try valueOrErrno { Glibc.fstat(fd.rawValue, &status) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .invalidArgument }
        // Sized by fstat, then read to the end in case it grew meanwhile; one byte past the limit tells a file of
        // exactly `limit` bytes from a larger one.
        var bytes: [UInt8] = []
        var chunk = min(Int(status.st_size), limit) + 1
        while true {
            let part = try read(fd, count: chunk, at: bytes.count)
            bytes += part
            if bytes.count > limit { return nil }
            if part.count < chunk { return bytes }
            chunk = min(65_536, limit + 1 - bytes.count)
        }
    }
}
