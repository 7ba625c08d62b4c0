import NudgeCore
import SystemPackage

/// Why the store could not be opened or written. The description says what happened, to which file, and what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is, for callers that map errors to exit codes or API responses.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// Another open store (another `nudged`) holds the lock.
        case locked
        /// The file is not a property list at all: truncated, garbage, empty.
        case notAPropertyList = "not_a_property_list"
        /// A property list, but a field is missing, has the wrong type or an impossible value.
        case invalidContent = "invalid_content"
        /// Written by a newer nudge whose layout this one does not know.
        case newerFormat = "newer_format"
        /// Over `ChecklistStore.maximumFileSize`.
        case tooLarge = "too_large"
        /// Reading or writing failed; `errno` says which system error, when there was one.
        case io
        /// A committed change did not apply to the library (a caller bug or a race); nothing was written.
        case rejectedChange = "rejected_change"
        /// The store was closed.
        case closed
        /// The change log is damaged before its end, where no crash mid-append could have left it.
        case damagedLog = "damaged_log"
        /// The event history is damaged before its end. Opening sets the file aside; a read that meets it fails.
        case damagedHistory = "damaged_history"
        /// The new content replaced the file, but flushing it to disk failed: it may or may not survive a crash.
        case outcomeUnknown = "outcome_unknown"
    }

    public let code: Code
    /// The store file this is about.
    public let path: String
    public let description: String
    /// The system error behind an `.io` failure.
    public let errno: Errno?

    private init(_ code: Code, path: String, _ description: String, errno: Errno? = nil) {
        self.code = code
        self.path = path
        self.description = description
        self.errno = errno
    }

    /// Said of every store that fails to load: it is evidence, so it is never repaired or replaced behind the
    /// user's back.
    private static let leftUntouched = "it was left untouched"
    private static let startOver = "move it aside to start with an empty store, or restore a backup"

    static func locked(path: String, lockPath: String, holder: Int?) -> StoreError {
        let who = holder.map { "process \($0)" } ?? "another process"
        return StoreError(
            .locked,
            path: path,
            "store \(path) is in use by \(who) (lock \(lockPath)); stop that nudged first, or point this one at "
                + "another store"
        )
    }

    /// `problem` completes "store PATH ...", e.g. `does not start with "bplist00" (...)`.
    static func notAPropertyList(path: String, problem: String) -> StoreError {
        StoreError(.notAPropertyList, path: path, "store \(path) \(problem); \(leftUntouched) — \(startOver)")
    }

    /// `field` is a path into the file such as `lists[0].items[2].dueDate`.
    static func invalidContent(path: String, field: String, problem: String) -> StoreError {
        StoreError(
            .invalidContent,
            path: path,
            "store \(path) has an invalid field \(field): \(problem); \(leftUntouched) — fix that field, or "
                + startOver
        )
    }

    static func newerFormat(path: String, found: Int, supported: Int) -> StoreError {
        StoreError(
            .newerFormat,
            path: path,
            "store \(path) has format version \(found), but this nudge reads only up to version \(supported); "
                + "\(leftUntouched) — upgrade nudge to use it"
        )
    }

    static func tooLarge(path: String, size: Int64, limit: Int) -> StoreError {
        StoreError(
            .tooLarge,
            path: path,
            "store \(path) is \(size) bytes, over the limit of \(limit) bytes, so it is not read; \(leftUntouched) "
                + "— if it is not a nudge store, \(startOver)"
        )
    }

    /// A save that would produce a file this store refuses to read back.
    static func wouldBeTooLarge(path: String, size: Int, limit: Int) -> StoreError {
        StoreError(
            .tooLarge,
            path: path,
            "could not save store \(path): the checklists would take \(size) bytes, over the limit of \(limit) "
                + "bytes; the store keeps its last saved content — remove some items or lists"
        )
    }

    /// `problem` says what is wrong with the record at `offset`.
    static func damagedLog(path: String, offset: Int, problem: String) -> StoreError {
        StoreError(
            .damagedLog,
            path: path,
            "change log \(path) is damaged at byte \(offset): \(problem); \(leftUntouched) — nudged cannot tell which "
                + "changes after that byte are sound. Restore a backup of the store's directory, or keep the changes "
                + "before it with `truncate -s \(offset) \(path)` (the changes after it are lost)"
        )
    }

    static func damagedHistory(path: String, offset: Int, problem: String) -> StoreError {
        StoreError(.damagedHistory, path: path, "event history \(path) is damaged at byte \(offset): \(problem)")
    }

    static func readFailed(path: String, errno: Errno) -> StoreError {
        StoreError(
            .io,
            path: path,
            "could not read store \(path): \(explain(errno)); \(leftUntouched) — check that this user can read it",
            errno: errno
        )
    }

    /// `step` says which part of the durable replace failed, naming the file it touched.
    static func writeFailed(path: String, step: String, errno: Errno) -> StoreError {
        StoreError(
            .io,
            path: path,
            "could not save store \(path) (\(step)): \(explain(errno)); the store keeps its last saved content — "
                + "check free space, quotas and permissions there, then retry",
            errno: errno
        )
    }

    /// The rename happened, then `step` failed twice: the file holds the new content, which a crash may undo.
    static func outcomeUnknown(path: String, step: String, errno: Errno) -> StoreError {
        StoreError(
            .outcomeUnknown,
            path: path,
            "store \(path) holds the change, but it may not be durable (\(step)): \(explain(errno)); nudged now "
                + "serves what the file holds — check the disk, and read the change back",
            errno: errno
        )
    }

    /// A change queued behind a write that failed with `cause`, and so never written.
    public static func notWritten(path: String, after cause: StoreError) -> StoreError {
        StoreError(
            .io,
            path: path,
            "could not save store \(path): the write before this one failed, so this change was not written "
                + "(\(cause.description)); retry once nudged has reloaded",
            errno: cause.errno
        )
    }

    static func encodingFailed(path: String, reason: String) -> StoreError {
        StoreError(
            .io,
            path: path,
            "could not save store \(path): encoding the checklists failed (\(reason)); the store keeps its last "
                + "saved content"
        )
    }

    /// `step` names the file or directory involved, e.g. `opening lock file /x/Checklists.plist.lock`.
    static func setupFailed(path: String, step: String, errno: Errno) -> StoreError {
        StoreError(
            .io,
            path: path,
            "could not open store \(path) (\(step)): \(explain(errno)); check that this user owns that directory",
            errno: errno
        )
    }

    static func rejectedChange(path: String, index: Int, count: Int, error: ModelError) -> StoreError {
        StoreError(
            .rejectedChange,
            path: path,
            "change \(index + 1) of \(count) does not apply to store \(path): \(error.description); nothing was saved"
        )
    }

    static func closed(path: String) -> StoreError {
        StoreError(.closed, path: path, "store \(path) is closed; open it again to make changes")
    }

    /// strerror text plus the number, so a person can read it and a search engine can find it.
    private static func explain(_ errno: Errno) -> String {
        "\(errno.description) (errno \(errno.rawValue))"
    }
}
