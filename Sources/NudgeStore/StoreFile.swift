import Foundation
import NudgeSystem
import SystemPackage

/// The store's file on disk: read with a size bound, and only ever replaced whole, durably and atomically, never
/// written in place. A reader (or a crash) sees the old content or the new, never a mix.
struct StoreFile: Sendable {
    let path: String
    /// Where the temporary files go: the store's own directory, since rename is atomic only within a file system.
    let directory: String
    /// Hidden and named after the store, so a crash leftover is recognizably ours and nobody else's.
    let temporaryPrefix: String
    let faults: StoreFaults

    init(path: String, faults: StoreFaults = .none) {
        self.path = path
        self.faults = faults
        let filePath = FilePath(path)
        directory = Self.name(of: filePath.removingLastComponent())
        temporaryPrefix = "." + (filePath.lastComponent?.string ?? path) + ".tmp-"
    }

    /// Creates the store's directory and any missing parents with mode 0700: the checklists are private (XDG asks
    /// for 0700 too).
    func createDirectory() throws(StoreError) {
        do {
            try Self.makeDirectory(FilePath(directory))
        } catch {
            throw .setupFailed(path: path, step: "creating directory \(directory)", errno: error)
        }
    }

    /// The file's bytes, or nil when there is no file. A file over `limit` is refused from its size alone, before
    /// any of it is read, so a huge or hostile file costs nothing.
    func read(limit: Int) throws(StoreError) -> [UInt8]? {
        let descriptor: FileDescriptor
        do {
            // Non-blocking so that a FIFO planted at the path cannot hang the open; it changes nothing for files.
            descriptor = try SystemCall.typed {
                try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec, .nonBlocking])
            }
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw .readFailed(path: path, errno: error)
        }
        // Opened read-only: a failed close cannot lose anything.
        defer { try? descriptor.close() }

        let status: Stat
        do { status = try descriptor.stat() } catch { throw .readFailed(path: path, errno: error) }
        guard status.type == .regular else {
            throw .notAPropertyList(path: path, problem: "is not a regular file, so it is not a property list")
        }
        guard status.size <= Int64(limit) else { throw .tooLarge(path: path, size: status.size, limit: limit) }

        do {
            // A file that shrank since fstat gives what is there, for the decoder to judge.
            return try SystemCall.read(descriptor, count: Int(status.size), at: 0)
        } catch {
            throw .readFailed(path: path, errno: error)
        }
    }

    /// Replaces the file with `bytes`: a new temporary file (0600, whatever the umask), written whole, flushed,
    /// renamed over the store, then the directory flushed so the rename itself survives a power cut. Foundation's
    /// `.atomic` write skips both flushes and creates the file 0666 minus umask.
    ///
    /// On failure the store keeps its previous content and the temporary file is removed; except `.outcomeUnknown`:
    /// the file holds the new content, but it may not survive a power cut.
    func replace(with bytes: Data) throws(StoreError) {
        let (temporaryPath, descriptor) = try createTemporaryFile()
        do throws(StoreError) {
            try attempt(.write, "writing \(temporaryPath)") { () throws(Errno) in
                _ = try SystemCall.typed { try descriptor.writeAll(bytes) }
            }
            try attempt(.flush, "flushing \(temporaryPath) to disk") { () throws(Errno) in
                try SystemCall.fsync(descriptor)
            }
        } catch {
            try? descriptor.close()  // The write already failed; that error is the one to report.
            discard(temporaryPath)
            throw error
        }
        do throws(StoreError) {
            // close can report a deferred write error (NFS), so its result matters.
            try attempt(.close, "closing \(temporaryPath)") { () throws(Errno) in
                try SystemCall.typed { try descriptor.close() }
            }
            try attempt(.rename, "renaming \(temporaryPath) over the store") { () throws(Errno) in
                try SystemCall.rename(temporaryPath, to: path)
            }
        } catch {
            discard(temporaryPath)
            throw error
        }
        // The new content is in place now, but durable only once the directory is flushed. A failed flush can be
        // transient, so it gets a second try; after two, nobody can say whether the change survives a power cut.
        do throws(Errno) {
            try syncDirectory()
        } catch {
            do throws(Errno) {
                try syncDirectory()
            } catch {
                throw .outcomeUnknown(path: path, step: "flushing directory \(directory) to disk", errno: error)
            }
        }
    }

    /// Removes temporary files that a crash left mid-write. Safe only under the lock: then no writer is alive to own
    /// them. Such a file was never renamed, so no reader was ever told its content was saved.
    func removeCrashLeftovers() throws(StoreError) {
        let names: [String]
        do {
            names = try SystemCall.directoryEntries(directory)
        } catch {
            throw .setupFailed(path: path, step: "listing directory \(directory)", errno: error)
        }
        for name in names where name.hasPrefix(temporaryPrefix) {
            let leftover = directory + "/" + name
            do {
                try SystemCall.unlink(leftover)
            } catch {
                if error == .noSuchFileOrDirectory { continue }
                throw .setupFailed(path: path, step: "removing leftover temporary file \(leftover)", errno: error)
            }
        }
    }

    // MARK: Private

    private func createTemporaryFile() throws(StoreError) -> (path: String, descriptor: FileDescriptor) {
        while true {
            let temporaryPath = directory + "/" + temporaryPrefix + String(UInt64.random(in: 0..<(1 << 48)), radix: 36)
            do throws(Errno) {
                // O_EXCL: never open a file someone else made, or a symlink planted at the name.
                try faults.before(.create)
                let descriptor = try SystemCall.typed {
                    try FileDescriptor.open(
                        FilePath(temporaryPath),
                        .writeOnly,
                        options: [.create, .exclusiveCreate, .closeOnExec],
                        permissions: .ownerReadWrite
                    )
                }
                do {
                    try SystemCall.fchmod(descriptor, .ownerReadWrite)  // The umask may have taken owner bits.
                } catch {
                    try? descriptor.close()
                    discard(temporaryPath)
                    throw error
                }
                return (temporaryPath, descriptor)
            } catch {
                // A name taken by chance: draw another. 2^48 names make a second collision vanishingly rare.
                if error == .fileExists { continue }
                throw .writeFailed(path: path, step: "creating \(temporaryPath)", errno: error)
            }
        }
    }

    /// Best effort: the failure being reported matters more, and the next open removes leftovers anyway.
    private func discard(_ temporaryPath: String) {
        try? SystemCall.unlink(temporaryPath)
    }

    /// Runs one step of a replace, unless a fault was injected there; `description` names it for the error.
    private func attempt(
        _ step: StoreFaults.Step,
        _ description: String,
        _ body: () throws(Errno) -> Void
    ) throws(StoreError) {
        do throws(Errno) {
            try faults.before(step)
            try body()
        } catch {
            throw .writeFailed(path: path, step: description, errno: error)
        }
    }

    private func syncDirectory() throws(Errno) {
        try faults.before(.syncDirectory)
        try SystemCall.syncDirectory(directory)
    }

    /// mkdir -p, touching only the missing directories. Each new directory's entry is flushed too: otherwise a power
    /// cut could lose the directory, and with it every save made inside it since.
    private static func makeDirectory(_ directory: FilePath) throws(Errno) {
        do {
            try SystemCall.mkdir(directory.string, .ownerReadWriteExecute)
        } catch {
            if error == .fileExists { return }  // Already there, or just made by someone else: fine either way.
            let parent = directory.removingLastComponent()
            guard error == .noSuchFileOrDirectory, !parent.isEmpty, parent != directory else { throw error }
            try makeDirectory(parent)
            try makeDirectory(directory)
            return
        }
        try SystemCall.syncDirectory(name(of: directory.removingLastComponent()))
    }

    /// Opens one of the store's own files (`what`: its lock file, change log or event history) for reading and
    /// writing; made, owner-only, when `creating` and absent. Failing is a set-up failure of the store at `storePath`
    /// (by default, the file's own path).
    static func openForUpdate(
        _ what: String,
        at path: String,
        creating: Bool,
        storePath: String? = nil
    ) throws(StoreError) -> FileDescriptor {
        do {
            return try SystemCall.typed {
                try FileDescriptor.open(
                    FilePath(path),
                    .readWrite,
                    options: creating ? [.create, .closeOnExec] : [.closeOnExec],
                    permissions: creating ? .ownerReadWrite : nil
                )
            }
        } catch {
            throw .setupFailed(path: storePath ?? path, step: "opening \(what) \(path)", errno: error)
        }
    }

    /// A directory's path as a string; the empty path of a bare relative file name means the current directory.
    private static func name(of directory: FilePath) -> String {
        directory.isEmpty ? "." : directory.string
    }
}
