import NudgeSystem
import SystemPackage

/// An exclusive `flock` on a lock file beside the store, held while the store is open, so one store has one writer.
///
/// The lock lives on its own file because the store file is replaced by rename: a lock on it would stay with the old
/// inode. `flock` belongs to the open file description, so a second acquire fails even within the same process, and
/// the kernel drops the lock when the holder exits, however it exits.
struct StoreLock: Sendable {
    private let descriptor: FileDescriptor

    /// How long a lock held by this very process may take to go: longer than any fork-to-exec of a child.
    static let ownLockGrace = Duration.milliseconds(100)

    /// Private: a `StoreLock` exists only for a lock actually taken.
    private init(holding descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Takes the lock without waiting and writes our process ID into the lock file, so that a second opener can say
    /// who holds it. Throws `.locked` when someone else holds it.
    static func acquire(lockPath: String, storePath: String) throws(StoreError) -> StoreLock {
        // Not truncated: the file may belong to a live holder whose PID we want to report.
        let descriptor = try StoreFile.openForUpdate("lock file", at: lockPath, creating: true, storePath: storePath)

        // A child this process is starting holds a copy of every descriptor from its fork until its exec closes
        // them (close-on-exec), and `flock` belongs to the open file description: for those microseconds a store
        // this process closed still looks locked, by our own PID. Such a lock is tried again, yielding the CPU, for
        // up to `ownLockGrace`; one this process really holds is refused after it.
        let started = ContinuousClock.now
        while true {
            do {
                try SystemCall.lockExclusiveWithoutWaiting(descriptor)
                break
            } catch {
                let holder = error == .wouldBlock ? readHolder(descriptor) : nil
                if holder == SystemCall.processID(), started.duration(to: .now) < Self.ownLockGrace {
                    SystemCall.yield()
                    continue
                }
                // The lock was not taken, so this descriptor holds nothing; a failed close cannot matter here.
                try? descriptor.close()
                if error == .wouldBlock { throw .locked(path: storePath, lockPath: lockPath, holder: holder) }
                throw .setupFailed(path: storePath, step: "locking \(lockPath)", errno: error)
            }
        }

        do {
            // Truncate first: a shorter PID must not leave digits of the previous holder's behind.
            try SystemCall.typed { try descriptor.resize(to: 0) }
            let line = Array("\(SystemCall.processID())\n".utf8)
            _ = try SystemCall.typed { try descriptor.writeAll(toAbsoluteOffset: 0, line) }
        } catch {
            try? descriptor.close()
            throw .setupFailed(path: storePath, step: "writing our process ID to lock file \(lockPath)", errno: error)
        }
        return StoreLock(holding: descriptor)
    }

    /// Releases the lock by closing its descriptor. The lock file stays: removing it would let a later opener lock
    /// a fresh inode while another still holds the old one, and two stores would both think they own the data.
    func release() {
        // On Linux close always releases the descriptor and the lock, even when it reports an error, and nothing
        // was written through it that could be lost; so there is nothing to do with a failure.
        try? descriptor.close()
    }

    /// The PID the holder wrote, if it has written one yet (it writes right after locking, so it may not have).
    private static func readHolder(_ descriptor: FileDescriptor) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = try? buffer.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
        guard let count, count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return Int(text.filter { !$0.isWhitespace }).flatMap { $0 > 0 ? $0 : nil }
    }
}
