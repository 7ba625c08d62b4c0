import Crypto
import Foundation
import NudgeCalendar
import NudgeCore
import NudgeSystem
import SystemPackage

/// One collection folder in the vdir layout, as todoman and khal keep tasks and vdirsyncer syncs them with a CalDAV
/// server: one item per `.ics` file, each written whole (a temporary file renamed over it), and beside them the
/// collection's metadata files (`displayname`, `color`).
///
/// What nudge takes of one, read as a whole: each file holding a task (VTODO) is one task; a file of other components
/// (events, journals) is left alone; a file nudge cannot take as one task is skipped, and said why, so that fixing it
/// brings the task in. Reading changes nothing in the folder.
public struct VdirCollection: Sendable {
    /// A task of the folder, with the file it is in.
    public struct Entry: Sendable {
        /// Its name in the folder (`UID.ics`, as vdirsyncer and todoman name them; any name ending in `.ics`).
        public let fileName: String
        public let task: CalendarTask
        /// The file as it was read: a later write back must find it so, or another program changed it meanwhile.
        public let stamp: FileStamp
    }

    /// The folder's `displayname`, its first line, if it has one.
    public let displayName: String?
    /// By file name.
    public let entries: [Entry]
    /// Files that hold a task nudge cannot take, and why (the line where the grammar says one), by file name.
    public let skipped: [SkippedFile]
    /// Files of other components (VEVENT, VJOURNAL), left alone.
    public let otherFiles: Int

    /// As RFC 5545 files sent to `POST /v1/import`: a vdir file holds one item, and one this large is no task.
    public static let maximumFileSize = 1 << 20

    /// Reads the collection in `folder` (a path to a directory), evaluating its tasks' times in `timeZone` and the
    /// zones of `zones`. Throws `VdirError.unavailable` if the folder cannot be listed: the caller keeps what it read
    /// before (a disk not mounted is not every task removed).
    public static func read(_ folder: String, timeZone: TimeZone, zones: ZoneRulesStore) throws(VdirError) -> Self {
        let resolvedFolder: String
        let names: [String]
        do throws(Errno) {
            resolvedFolder = try SystemCall.resolvedPath(folder)
            // opendir says ENOTDIR of a file.
            names = try SystemCall.directoryEntries(resolvedFolder).sorted()
        } catch {
            throw VdirError.unavailable(folder: folder, reason: error.description)
        }
        var entries: [Entry] = []
        var skipped: [SkippedFile] = []
        var otherFiles = 0
        var fileOfUID: [String: String] = [:]
        // vdirsyncer and todoman write a temporary file first, under a name of their own, then rename it: only
        // `.ics` names are items, and hidden ones are such temporaries.
        for name in names where name.hasSuffix(".ics") && !name.hasPrefix(".") {
            switch readFile(name, in: resolvedFolder, timeZone: timeZone, zones: zones) {
            case .task(let task, let stamp):
                if let uid = task.uid, let first = fileOfUID[uid] {
                    skipped.append(
                        SkippedFile(fileName: name, reason: "its UID \(uid) is the task of \(first) already")
                    )
                    continue
                }
                if let uid = task.uid { fileOfUID[uid] = name }
                entries.append(Entry(fileName: name, task: task, stamp: stamp))
            case .skipped(let reason):
                skipped.append(SkippedFile(fileName: name, reason: reason))
            case .other:
                otherFiles += 1
            }
        }
        return VdirCollection(
            displayName: displayName(in: resolvedFolder),
            entries: entries,
            skipped: skipped,
            otherFiles: otherFiles
        )
    }

    /// What the folder holds, as the book takes it (`ReminderBook.applyFolder`).
    public var contents: FolderContents {
        FolderContents(
            tasks: entries.map { FolderTask(fileName: $0.fileName, task: $0.task, stamp: $0.stamp) },
            skipped: skipped,
            otherFiles: otherFiles,
            displayName: displayName
        )
    }

    enum FileReading {
        case task(CalendarTask, FileStamp)
        case skipped(String)
        case other
    }

    static func readFile(
        _ name: String,
        in folder: String,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    ) -> FileReading {
        let path = folder + "/" + name
        let bytes: [UInt8]
        let status: FileStatus
        do throws(Errno) {
            var target = path
            if try SystemCall.fileStatus(path, followingLinks: false).kind == .symbolicLink {
                // Another user's link must not make nudge read, or later write, a file outside the folder.
                target = try SystemCall.resolvedPath(path)
                guard target.hasPrefix(folder + "/"), !target.dropFirst(folder.count + 1).contains("/") else {
                    return .skipped(
                        "a symbolic link out of the folder (to \(target)): nudge reads the folder's own files"
                    )
                }
            }
            status = try SystemCall.fileStatus(target, followingLinks: false)
            guard status.kind == .regular else { return .skipped("not a regular file") }
            guard let read = try SystemCall.contents(ofFile: target, limit: maximumFileSize) else {
                return .skipped("larger than 1 MiB: a task's file is far smaller; split it or remove it")
            }
            bytes = read
        } catch {
            return .skipped("unreadable: \(error.description)")
        }
        let stamp = FileStamp(status, digest: bytes)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .skipped("not UTF-8 text, as RFC 5545 asks: save it as UTF-8")
        }
        // A file of events or journals is another program's, whatever it holds.
        guard holdsTask(text) else { return .other }
        let read: (tasks: [CalendarTask], skipped: [CalendarImportResult])
        do throws(ModelError) {
            read = try CalendarInterchange.tasks(in: text, timeZone: timeZone, zones: zones)
        } catch {
            return .skipped(error.description)
        }
        switch read.tasks.count {
        case 1:
            return .task(read.tasks[0], stamp)
        case 0:
            // Why its task was skipped (no SUMMARY, say), not the events beside it.
            let why = read.skipped.first { $0.component == "VTODO" }
            return .skipped(
                why.map { "line \($0.line): " + ($0.notes.first ?? "") } ?? "it holds no task nudge can take"
            )
        default:
            let uids = read.tasks.map { $0.uid ?? "none" }.joined(separator: ", ")
            return .skipped(
                "it holds \(read.tasks.count) tasks (UIDs \(uids)): a vdir file holds one; give each its own file"
            )
        }
    }

    /// Whether a line of `text` begins a VTODO: what makes the file a task's. The first line may start with a
    /// byte-order mark (a bare VTODO from a Windows program), and any may end in blanks.
    private static func holdsTask(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { line in
            line.drop { $0 == "\u{FEFF}" }.trimmingCharacters(in: .whitespaces).uppercased() == "BEGIN:VTODO"
        }
    }

    private static func displayName(in folder: String) -> String? {
        guard let bytes = try? SystemCall.contents(ofFile: folder + "/displayname", limit: 4096),
            let text = String(validating: bytes, as: UTF8.self),
            let line = text.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces),
            !line.isEmpty
        else { return nil }
        return line
    }
}

/// Why a collection folder cannot be read, or a task file of it written.
public enum VdirError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder is missing, not a directory, or cannot be listed.
    case unavailable(folder: String, reason: String)
    /// A change of nudge's cannot be written to a task file; the folder is as it was.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unavailable(let folder, let reason): "the folder \(folder) is unavailable: \(reason)"
        case .unwritable(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}

extension FileStamp {
    /// A file of `status` holding `bytes`.
    init(_ status: FileStatus, digest bytes: [UInt8]) {
        self.init(
            size: status.size,
            inode: status.inode,
            modified: status.modified,
            digest: Array(SHA256.hash(data: bytes))
        )
    }
}
