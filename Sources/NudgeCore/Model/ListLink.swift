/// A list kept in a folder of task files that other programs keep too: the vdir layout of todoman and khal, which
/// vdirsyncer syncs with CalDAV servers. The folder is the source of truth for the list: each file holding a task is
/// one item, read into nudge when the list is linked and each time nudged starts (`ReminderBook.applyFolder`).
public struct ListLink: Sendable, Equatable {
    /// The collection folder, an absolute path as it was given.
    public var folder: String
    /// Whether a task with a due date and no alarm reminds at its due instant (`--remind-due`).
    public var remindsAtDue: Bool

    public init(folder: String, remindsAtDue: Bool = true) {
        self.folder = folder
        self.remindsAtDue = remindsAtDue
    }
}

/// How a linked list's folder stood when nudged last read it: what `nudge lists` shows beside the folder. Not stored:
/// nudged reads every linked folder again when it starts.
public enum FolderState: Sendable, Equatable {
    /// Not read since nudged started.
    case unread
    /// Read: the task files skipped, each with why; those taken with less than they say (`limited`: a repeat nudge
    /// cannot follow exactly, taken as one occurrence), each with why; and how many files were left alone (another
    /// program's events and journals).
    case read(skipped: [SkippedFile], limited: [SkippedFile], otherFiles: Int)
    /// The folder could not be listed (missing, not a directory, not readable): the list's items stay as last read.
    case unavailable(reason: String)
}

/// A file of a linked folder that holds a task nudge cannot take, and why: its item, if it had one, stays as it was.
/// Or one nudge takes with less than it says (`FolderState.read`'s `limited`), and what.
public struct SkippedFile: Sendable, Equatable, CustomStringConvertible {
    public let fileName: String
    public let reason: String

    public var description: String { "\(fileName): \(reason)" }

    public init(fileName: String, reason: String) {
        self.fileName = fileName
        self.reason = reason
    }
}

/// A task of a linked folder, with the file it is in.
public struct FolderTask: Sendable {
    public let fileName: String
    public let task: CalendarTask
    /// The file as it was read, for a write back to check that no other program changed it since.
    public let stamp: FileStamp?

    public init(fileName: String, task: CalendarTask, stamp: FileStamp? = nil) {
        self.fileName = fileName
        self.task = task
        self.stamp = stamp
    }
}

/// A file of a linked folder as nudge last read it. nudge writes a change back (`TaskFileChange`) only to a file that
/// is still so: one with another size, inode, modification time or content was changed by another program
/// meanwhile, whose change nudge must read, not overwrite.
public struct FileStamp: Sendable, Hashable {
    public let size: Int
    public let inode: UInt64
    /// Its last content change, in nanoseconds since the epoch.
    public let modified: Int64
    /// A digest of its bytes (SHA-256): a change that keeps the size and lands within the file system's time
    /// granularity is still a change.
    public let digest: [UInt8]

    public init(size: Int, inode: UInt64, modified: Int64, digest: [UInt8]) {
        self.size = size
        self.inode = inode
        self.modified = modified
        self.digest = digest
    }
}
