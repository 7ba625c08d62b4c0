import Foundation

/// What a file looks like on disk: its bytes and the metadata any write, truncate or rename would change.
struct FileSnapshot: Equatable {
    let bytes: Data
    let inode: UInt64
    let size: Int64
    let modified: timespec
    let permissions: UInt32

    /// `readingBytes: false` for files too big to load; the size, inode and mtime still catch any change.
    init(_ path: String, readingBytes: Bool = true) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        bytes = readingBytes ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data()
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        permissions = UInt32(info.st_mode) & 0o777
    }

    static func == (a: FileSnapshot, b: FileSnapshot) -> Bool {
        a.bytes == b.bytes && a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec
            && a.modified.tv_nsec == b.modified.tv_nsec && a.permissions == b.permissions
    }
}
