import Glibc
import SystemPackage

/// What `stat` says of a file: enough to tell a file another program changed from one it did not.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, other
    }

    public let kind: Kind
    public let size: Int
    /// The device it is on, and its number there: which file it is.
    public let device: UInt64
    public let inode: UInt64
    /// The last change of its content, in nanoseconds since the epoch.
    public let modified: Int64
    public let ownerID: UInt32
    public let permissions: FilePermissions
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
            device: UInt64(status.st_dev),
            inode: UInt64(status.st_ino),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            ownerID: status.st_uid,
            permissions: FilePermissions(rawValue: status.st_mode & 0o7777)
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

    /// Flushes a directory's entries to the device: a file created, renamed or removed in it survives a power cut
    /// only after this.
    public static func syncDirectory(_ directory: String) throws(Errno) {
        let descriptor = try typed {
            try FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .closeOnExec])
        }
        try typed { try descriptor.closeAfter { try fsync(descriptor) } }
    }

    /// Puts `bytes` at `path` whole, as other programs' readers must see a file change: a new hidden file beside
    /// it (`permissions`, whatever the umask), written, flushed, renamed over `path`, then the directory flushed. A
    /// reader sees the old content or the new, never a mix; on failure `path` is as it was.
    public static func replaceFile(_ path: String, with bytes: [UInt8], permissions: FilePermissions) throws(Errno) {
        let file = FilePath(path)
        let directory = file.removingLastComponent().isEmpty ? "." : file.removingLastComponent().string
        var temporary: String
        var descriptor: FileDescriptor
        while true {
            temporary =
                directory + "/." + (file.lastComponent?.string ?? "file") + ".tmp-"
                + String(UInt64.random(in: 0..<(1 << 48)), radix: 36)
            do throws(Errno) {
                // O_EXCL: never a file someone else made, or a symbolic link planted at the name.
                descriptor = try typed {
                    try FileDescriptor.open(
                        FilePath(temporary),
                        .writeOnly,
                        options: [.create, .exclusiveCreate, .closeOnExec],
                        permissions: permissions
                    )
                }
                break
            } catch {
                if error == .fileExists { continue }
                throw error
            }
        }
        do throws(Errno) {
            try fchmod(descriptor, permissions)
            _ = try typed { try descriptor.writeAll(bytes) }
            try fsync(descriptor)
            try typed { try descriptor.close() }
        } catch {
            try? descriptor.close()
            try? unlink(temporary)
            throw error
        }
        do throws(Errno) {
            try rename(temporary, to: path)
        } catch {
            try? unlink(temporary)
            throw error
        }
        try syncDirectory(directory)
    }
}
