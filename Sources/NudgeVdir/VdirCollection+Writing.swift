import Foundation
import NudgeCalendar
import NudgeCore
import NudgeSystem
import Synchronization
import SystemPackage

extension VdirCollection {
    /// nudge's writes to folders, one at a time: a write checks its file and replaces it as one step against every
    /// other write of nudge's, so two requests about one task never both pass the check.
    private static let writing = Mutex(())

    /// Makes `change` in its folder, as other programs' readers expect a vdir file to change (a whole new file renamed
    /// over it, `SystemCall.replaceFile`), and reads the files written back: what the book takes (`applyWrittenFile`),
    /// the file changed first; none for a file removed. A file not as nudge last read it (`TaskFileChange.stamp`:
    /// another program wrote, moved or removed it since) is not written: `ModelError.changedOnDisk`. A file that
    /// cannot be written is `VdirError.unwritable`: a series' next file made before it is removed again, and the
    /// caller reads the folder again.
    public static func write(_ change: TaskFileChange, timeZone: TimeZone, zones: ZoneRulesStore) throws
        -> [FolderTask]
    {
        var names = [change.fileName]
        if case .completeSeries(_, _, let next) = change.kind { names.append(next) }
        for name in names where name.isEmpty || name.contains("/") || name.hasPrefix(".") || !name.hasSuffix(".ics") {
            throw VdirError.unwritable(path: change.folder + "/" + name, reason: "not the name of a task file")
        }
        return try writing.withLock { _ throws -> [FolderTask] in
            let path = change.path
            switch change.kind {
            case .create(let bytes):
                try create(path, with: bytes, permissions: [.ownerReadWrite])
            case .rewrite(let rewrite):
                let (bytes, status) = try current(change)
                try replace(
                    path,
                    with: try rewrite.applied(to: bytes, now: change.now),
                    permissions: status.permissions
                )
            case .completeSeries(let done, let next, let nextFileName):
                // The next occurrence first, as todoman writes them: a failure between leaves the task open.
                let (bytes, status) = try current(change)
                let nextBytes = try next.applied(to: bytes, now: change.now)
                let doneBytes = try done.applied(to: bytes, now: change.now)
                let nextPath = change.folder + "/" + nextFileName
                try create(nextPath, with: nextBytes, permissions: status.permissions)
                do {
                    try replace(path, with: doneBytes, permissions: status.permissions)
                } catch {
                    // Not two open series: the next one goes again (best effort; the caller reads the folder).
                    try? SystemCall.unlink(nextPath)
                    throw error
                }
            case .remove:
                _ = try current(change)
                do throws(Errno) {
                    try SystemCall.unlink(path)
                    try SystemCall.syncDirectory(change.folder)
                } catch {
                    throw VdirError.unwritable(path: path, reason: "cannot remove it: \(error.description)")
                }
                return []
            }
            return try names.map { name throws -> FolderTask in
                switch readFile(name, in: change.folder, timeZone: timeZone, zones: zones).reading {
                case .task(let task, let stamp):
                    return FolderTask(fileName: name, task: task, stamp: stamp)
                case .skipped(let reason):
                    throw VdirError.unwritable(
                        path: change.folder + "/" + name,
                        reason: "written, but not read back as a task: \(reason)"
                    )
                case .other:
                    throw VdirError.unwritable(
                        path: change.folder + "/" + name,
                        reason: "written, but it holds no task"
                    )
                case .gone:
                    throw VdirError.unwritable(
                        path: change.folder + "/" + name,
                        reason: "written, but gone before it was read back"
                    )
                }
            }
        }
    }

    /// A new file at `path`, never over one that is there.
    private static func create(_ path: String, with bytes: [UInt8], permissions: FilePermissions) throws(VdirError) {
        guard (try? SystemCall.fileStatus(path, followingLinks: false)) == nil else {
            throw VdirError.unwritable(path: path, reason: "a file of that name is there already")
        }
        try replace(path, with: bytes, permissions: permissions)
    }

    /// The file `change` is for, and its status, if it is as nudge last read it.
    private static func current(_ change: TaskFileChange) throws -> ([UInt8], FileStatus) {
        let path = change.path
        let read: (bytes: [UInt8]?, status: FileStatus)
        do throws(Errno) {
            let status = try SystemCall.fileStatus(path, followingLinks: false)
            // A link is another file's name (contents(ofFile:) does not follow one): nudge writes the folder's own.
            read = (try SystemCall.contents(ofFile: path, limit: maximumFileSize), status)
        } catch {
            // Gone, or moved: another program's change.
            if error == .noSuchFileOrDirectory { throw ModelError.changedOnDisk(path) }
            if error == .tooManySymbolicLinkLevels || error == .invalidArgument {
                throw VdirError.unwritable(path: path, reason: "not a regular file: nudge writes only the folder's own")
            }
            throw VdirError.unwritable(path: path, reason: error.description)
        }
        guard let bytes = read.bytes, FileStamp(read.status, digest: bytes) == change.stamp else {
            throw ModelError.changedOnDisk(path)
        }
        return (bytes, read.status)
    }

    private static func replace(_ path: String, with bytes: [UInt8], permissions: FilePermissions) throws(VdirError) {
        do throws(Errno) {
            try SystemCall.replaceFile(path, with: bytes, permissions: permissions)
        } catch {
            throw VdirError.unwritable(path: path, reason: error.description)
        }
    }
}
