import Foundation
import NudgeCore
import Synchronization

/// The durable home of the checklists: one binary property list, replaced atomically on every commit and locked
/// against a second opener. `library` only ever shows what is already safely on disk.
public final class ChecklistStore: DurableStore {
    /// The largest store file that is read, or written. Far above any real list of reminders; it bounds what a
    /// damaged or hostile file can cost.
    public static let maximumFileSize: Int = 64 << 20

    /// The store file, `.../Checklists.plist`.
    public let path: String
    /// The lock file beside it; the store file itself is replaced by rename, so it cannot carry the lock.
    public var lockPath: String { path + ".lock" }

    private let file: StoreFile
    /// Held for a whole commit, so commits run one at a time and `close` waits for a write in flight. Nil once
    /// closed.
    private let writer: Mutex<StoreLock?>
    /// What readers see. Apart from `writer` so that reading never waits for a commit's fsync.
    private let published: Mutex<ChecklistLibrary>

    private init(file: StoreFile, lock: StoreLock, library: ChecklistLibrary) {
        path = file.path
        self.file = file
        writer = Mutex(lock)
        published = Mutex(library)
    }

    deinit {
        close()
    }

    /// Locks, then reads the store. A missing file starts a new library (one list "List"), written durably before
    /// this returns. A missing directory is created with mode 0700.
    ///
    /// A file that cannot be read is left exactly as it is, and so are any temporary files beside it: the error
    /// says what is wrong and what to do.
    public static func open(path: String) throws(StoreError) -> ChecklistStore {
        try open(path: path, faults: .none)
    }

    /// `open(path:)`, with faults injected into every replace of the file.
    static func open(path: String, faults: StoreFaults) throws(StoreError) -> ChecklistStore {
        let file = StoreFile(path: path, faults: faults)
        try file.createDirectory()
        let lock = try StoreLock.acquire(lockPath: path + ".lock", storePath: path)
        do throws(StoreError) {
            let stored = try file.read(limit: maximumFileSize).map { bytes throws(StoreError) in
                try LibraryCoding.decode(bytes, path: path)
            }
            // We hold the lock, so no writer is alive: anything half-written is a crash's leftover.
            try file.removeCrashLeftovers()
            let library = stored ?? ChecklistLibrary()
            if stored == nil { try writeSnapshot(library, to: file) }
            return ChecklistStore(file: file, lock: lock, library: library)
        } catch {
            lock.release()
            throw error
        }
    }

    /// The checklists as last saved.
    public var library: ChecklistLibrary {
        published.withLock { $0 }
    }

    /// Applies the changes, in order, to a copy of the library and writes the result durably; only then does
    /// `library` change. Blocks for the write, fsync included.
    ///
    /// On a failure the file keeps its last durable content and `library` is unchanged, except when the outcome is
    /// unknown (`.outcomeUnknown`): then `library` shows what the file now holds, the changes applied. An empty list
    /// of changes writes nothing.
    public func commit(_ changes: [ChecklistChange]) throws(StoreError) {
        try writer.withLock { (lock: inout StoreLock?) throws(StoreError) in
            guard lock != nil else { throw .closed(path: path) }
            guard !changes.isEmpty else { return }
            var next = published.withLock { $0 }
            for (index, change) in changes.enumerated() {
                do throws(ModelError) {
                    try next.apply(change)
                } catch {
                    throw .rejectedChange(path: path, index: index, count: changes.count, error: error)
                }
            }
            do throws(StoreError) {
                try persist(changes, resulting: next)
            } catch {
                // The rename put exactly `next` in the file: serve it, so that what readers see matches the file,
                // and no ID in it is handed out again.
                if error.code == .outcomeUnknown { published.withLock { $0 = next } }
                throw error
            }
            published.withLock { $0 = next }
        }
    }

    /// Releases the lock; later commits throw `.closed`. Waits for a commit in flight. Also done on deinit.
    public func close() {
        writer.withLock { lock in
            lock?.release()
            lock = nil
        }
    }

    // MARK: Private

    /// The one step that makes a new state durable. Today it rewrites the whole file from `library`. A change log
    /// would append `changes` here instead, and compact into the file now and then; nothing outside this method
    /// (and the reading in `open`) would change.
    private func persist(_ changes: [ChecklistChange], resulting library: ChecklistLibrary) throws(StoreError) {
        try Self.writeSnapshot(library, to: file)
    }

    private static func writeSnapshot(_ library: ChecklistLibrary, to file: StoreFile) throws(StoreError) {
        let bytes = try LibraryCoding.encode(library, path: file.path)
        // Never write a file that `open` would refuse to read back.
        guard bytes.count <= maximumFileSize else {
            throw .wouldBeTooLarge(path: file.path, size: bytes.count, limit: maximumFileSize)
        }
        try file.replace(with: bytes)
    }
}

/// What the service needs of a store: what is durable, and a way to make changes durable. `ChecklistStore` is the
/// real one; unit tests use one in memory whose writes can fail.
public protocol DurableStore: Sendable {
    /// Where it is kept, for messages.
    var path: String { get }
    /// What is durable now.
    var library: ChecklistLibrary { get }
    /// Makes `changes` durable, in order, or throws and keeps none of them.
    func commit(_ changes: [ChecklistChange]) throws(StoreError)
}
