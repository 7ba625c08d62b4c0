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
/// What nudge takes of one, read as a whole (or, after a change of a few files, those files again): each file holding
/// a task (VTODO) is one task; a file of other components (events, journals) is left alone; a file nudge cannot take
/// as one task is skipped, and said why, so that fixing it brings the task in. Reading changes nothing in the folder.
///
/// A reading holds the tasks of the files it read (`entries`), for the book to take; what the next reading of a few
/// files needs beside it is less (`withoutTasks`): what each file is, and its task's UID.
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
    public private(set) var displayName: String?
    /// The tasks of the files read, by file name: every task of the folder, for the folder read whole; else those of
    /// the files `readAnew`. Not of a collection `withoutTasks`.
    public var entries: [Entry] {
        guard let tasksRead else {
            preconditionFailure("a reading without its tasks is kept for the next reading alone")
        }
        return taskFiles.compactMap { tasksRead[$0] }
    }
    /// Files that hold a task nudge cannot take, and why (the line where the grammar says one), by file name.
    public let skipped: [SkippedFile]
    /// Files of other components (VEVENT, VJOURNAL), left alone.
    public let otherFiles: Int
    /// The files read anew since the collection read before (`reading(_:timeZone:zones:)`): those named, the symbolic
    /// links, those a listing found made or gone, and the other files of every UID these had or have (whose standing
    /// may change: the first by name is the task); nil for the folder read whole.
    public let readAnew: Set<String>?

    /// The folder, as the link names it.
    public let folder: String
    /// As `realpath` spells it, and the directory it was then (its device and inode).
    private let resolvedFolder: String
    private let folderIdentity: FolderIdentity
    /// What each task file (a name ending in `.ics`) is, by name.
    private let files: [String: FileStanding]
    /// The tasks of the files this reading read, by name; nil once let go (`withoutTasks`).
    private var tasksRead: [String: Entry]?
    /// The files whose task is taken, by name: those of `files` that hold a task, less the later files of a UID.
    private let taskFiles: [String]
    /// The task files that are symbolic links (to another file of the folder): a change of their target names the
    /// target alone, so each reading reads them again.
    private let links: Set<String>
    /// The zone and the rules its tasks' times were evaluated in.
    private let timeZone: TimeZone
    private let zones: ZoneRulesStore

    /// As RFC 5545 files sent to `POST /v1/import`: a vdir file holds one item, and one this large is no task.
    public static let maximumFileSize = 1 << 20

    /// Reads the collection in `folder` (a path to a directory), evaluating its tasks' times in `timeZone` and the
    /// zones of `zones`. Throws `VdirError.unavailable` if the folder cannot be listed: the caller keeps what it read
    /// before (a disk not mounted is not every task removed).
    public static func read(_ folder: String, timeZone: TimeZone, zones: ZoneRulesStore) throws(VdirError) -> Self {
        let (resolvedFolder, folderIdentity) = try resolve(folder)
        let names: [String]
        do throws(Errno) {
            // opendir says ENOTDIR of a file.
            names = try SystemCall.directoryEntries(resolvedFolder)
        } catch {
            throw VdirError.unavailable(folder: folder, reason: error.description)
        }
        var files: [String: FileStanding] = [:]
        var tasksRead: [String: Entry] = [:]
        var links: Set<String> = []
        for name in names where isTaskFileName(name) {
            let (reading, isLink) = readFile(name, in: resolvedFolder, timeZone: timeZone, zones: zones)
            files[name] = reading.standing
            tasksRead[name] = reading.entry(name)
            if isLink { links.insert(name) }
        }
        return VdirCollection(
            folder: folder,
            resolvedFolder: resolvedFolder,
            folderIdentity: folderIdentity,
            files: files,
            tasksRead: tasksRead,
            links: links,
            displayName: displayName(in: resolvedFolder),
            readAnew: nil,
            timeZone: timeZone,
            zones: zones
        )
    }

    /// The collection with the files `names` of its folder read again (gone, made, or changed), and its
    /// `displayname` if it is among them: a change of a few files reads those files, not the folder. Each symbolic
    /// link is read again (a change of its target names the target); a file found gone lists the folder, for the
    /// other half of a rename the caller has not heard of yet; the other files of each UID the files read had, or
    /// have, are read again (which of them is its task depends on them all). Reads the folder whole if the zone or
    /// its rules differ from the collection's. Throws `VdirError.unavailable` if the folder is no longer the directory
    /// it was (moved away, another made in its place), before or after the files are read: the caller reads it whole.
    public func reading(_ names: Set<String>, timeZone: TimeZone, zones: ZoneRulesStore) throws(VdirError) -> Self {
        guard timeZone == self.timeZone, zones === self.zones else {
            return try Self.read(folder, timeZone: timeZone, zones: zones)
        }
        let replaced = VdirError.unavailable(folder: folder, reason: "it is no longer the directory that was read")
        guard try Self.resolve(folder) == (resolvedFolder, folderIdentity) else { throw replaced }
        var files = self.files
        var tasksRead: [String: Entry] = [:]
        var links = self.links
        var changedUIDs: Set<String> = []
        func read(_ names: Set<String>) {
            for name in names where Self.isTaskFileName(name) {
                if let uid = files[name]?.uid { changedUIDs.insert(uid) }
                let (reading, isLink) = Self.readFile(
                    name,
                    in: resolvedFolder,
                    timeZone: timeZone,
                    zones: zones
                )
                files[name] = reading.standing
                tasksRead[name] = reading.entry(name)
                if let uid = reading.standing?.uid { changedUIDs.insert(uid) }
                if isLink { links.insert(name) } else { links.remove(name) }
            }
        }
        var readAnew: Set<String> = []
        var toRead = names.union(links)
        var isListed = false
        while !toRead.isEmpty {
            read(toRead)
            readAnew.formUnion(toRead)
            var more: Set<String> = []
            // A file gone may be half of a rename whose other half the caller has not heard of yet (the kernel's two
            // events in two reads of its queue): the folder's listing finds the new name, which keeps the task. Once
            // is enough: it finds every name the folder has then.
            if !isListed, toRead.contains(where: { self.files[$0] != nil && files[$0] == nil }) {
                isListed = true
                let listed: Set<String>
                do throws(Errno) {
                    listed = Set(try SystemCall.directoryEntries(resolvedFolder).filter(Self.isTaskFileName))
                } catch {
                    throw VdirError.unavailable(folder: folder, reason: error.description)
                }
                let present = Set(files.keys)
                more = listed.subtracting(present).union(present.subtracting(listed))
            }
            // Which file of a UID is its task depends on the others of that UID: one may be its task now, and its
            // task is handed on as read (the reading before kept none). A file read so may be gone, or hold another
            // UID, whose files are read in turn.
            for (name, standing) in files where standing.uid.map(changedUIDs.contains) == true {
                more.insert(name)
            }
            toRead = more.subtracting(readAnew)
        }
        guard try Self.resolve(folder) == (resolvedFolder, folderIdentity) else { throw replaced }
        var read = VdirCollection(of: self, files: files, tasksRead: tasksRead, links: links, readAnew: readAnew)
        if names.contains("displayname") { read.displayName = Self.displayName(in: resolvedFolder) }
        return read
    }

    /// `collection`'s folder, zone and name, with `files` read.
    private init(
        of collection: Self,
        files: [String: FileStanding],
        tasksRead: [String: Entry],
        links: Set<String>,
        readAnew: Set<String>
    ) {
        self.init(
            folder: collection.folder,
            resolvedFolder: collection.resolvedFolder,
            folderIdentity: collection.folderIdentity,
            files: files,
            tasksRead: tasksRead,
            links: links,
            displayName: collection.displayName,
            readAnew: readAnew,
            timeZone: collection.timeZone,
            zones: collection.zones
        )
    }

    private init(
        folder: String,
        resolvedFolder: String,
        folderIdentity: FolderIdentity,
        files: [String: FileStanding],
        tasksRead: [String: Entry],
        links: Set<String>,
        displayName: String?,
        readAnew: Set<String>?,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    ) {
        var taskFiles: [String] = []
        var skipped: [SkippedFile] = []
        var otherFiles = 0
        var fileOfUID: [String: String] = [:]
        for (name, standing) in files.sorted(by: { $0.key < $1.key }) {
            switch standing {
            case .task(let uid):
                if let uid, let first = fileOfUID[uid] {
                    skipped.append(
                        SkippedFile(fileName: name, reason: "its UID \(uid) is the task of \(first) already")
                    )
                    continue
                }
                if let uid { fileOfUID[uid] = name }
                taskFiles.append(name)
            case .skipped(let reason):
                skipped.append(SkippedFile(fileName: name, reason: reason))
            case .other:
                otherFiles += 1
            }
        }
        self.folder = folder
        self.resolvedFolder = resolvedFolder
        self.folderIdentity = folderIdentity
        self.files = files
        self.tasksRead = tasksRead
        self.links = links.filter { files[$0] != nil }
        self.displayName = displayName
        self.taskFiles = taskFiles
        self.skipped = skipped
        self.otherFiles = otherFiles
        self.readAnew = readAnew
        self.timeZone = timeZone
        self.zones = zones
    }

    /// The collection as the next `reading` needs it: what each file is, without the tasks read, which the book has
    /// once it has taken `contents` (it has neither `entries` nor `contents`). The watcher keeps one for each linked
    /// folder: at ten thousand tasks, keeping the tasks too held 260 bytes a task.
    public var withoutTasks: Self {
        var collection = self
        collection.tasksRead = nil
        return collection
    }

    /// What the folder holds, as the book takes it (`ReminderBook.applyFolder`).
    public var contents: FolderContents {
        FolderContents(
            tasks: entries.map { FolderTask(fileName: $0.fileName, task: $0.task, stamp: $0.stamp) },
            taskFiles: taskFiles,
            skipped: skipped,
            otherFiles: otherFiles,
            displayName: displayName,
            readAnew: readAnew
        )
    }

    /// Which directory a folder is: a disk mounted over it is another (every btrfs subvolume's root is inode 256).
    private struct FolderIdentity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// `folder` as `realpath` spells it, and which directory it is; `VdirError.unavailable` if it cannot be resolved.
    private static func resolve(_ folder: String) throws(VdirError) -> (String, FolderIdentity) {
        do throws(Errno) {
            let resolved = try SystemCall.resolvedPath(folder)
            let status = try SystemCall.fileStatus(resolved, followingLinks: false)
            return (resolved, FolderIdentity(device: status.device, inode: status.inode))
        } catch {
            throw VdirError.unavailable(folder: folder, reason: error.description)
        }
    }

    /// vdirsyncer and todoman write a temporary file first, under a name of their own, then rename it: only `.ics`
    /// names are items, and hidden ones are such temporaries.
    private static func isTaskFileName(_ name: String) -> Bool { name.hasSuffix(".ics") && !name.hasPrefix(".") }

    enum FileReading {
        case task(CalendarTask, FileStamp)
        case skipped(String)
        case other
        /// Not there (read again after a change: removed, or renamed away).
        case gone

        /// What the file is, as the collection keeps it; nil if it is gone.
        var standing: FileStanding? {
            switch self {
            case .task(let task, _): .task(uid: task.uid)
            case .skipped(let reason): .skipped(reason)
            case .other: .other
            case .gone: nil
            }
        }

        /// Its task, as file `name`'s.
        func entry(_ name: String) -> Entry? {
            if case .task(let task, let stamp) = self { Entry(fileName: name, task: task, stamp: stamp) } else { nil }
        }
    }

    /// What a file of the folder is, as the collection keeps it between readings: which file of a UID is its task
    /// depends on the others of that UID.
    enum FileStanding {
        case task(uid: String?)
        case skipped(String)
        case other

        var uid: String? { if case .task(let uid) = self { uid } else { nil } }
    }

    /// What file `name` of `folder` holds, and whether it is a symbolic link (read again at every change: a change of
    /// its target names the target).
    static func readFile(
        _ name: String,
        in folder: String,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    ) -> (reading: FileReading, isLink: Bool) {
        var isLink = false
        return (read(name, in: folder, timeZone: timeZone, zones: zones, isLink: &isLink), isLink)
    }

    private static func read(
        _ name: String,
        in folder: String,
        timeZone: TimeZone,
        zones: ZoneRulesStore,
        isLink: inout Bool
    ) -> FileReading {
        // A name that is not UTF-8 cannot be spelled back to the kernel.
        guard !name.unicodeScalars.contains("\u{FFFD}") else {
            return .skipped("its name is not UTF-8 text: give it one that is")
        }
        let path = folder + "/" + name
        let bytes: [UInt8]
        let status: FileStatus
        do throws(Errno) {
            var target = path
            var found: FileStatus
            do throws(Errno) {
                found = try SystemCall.fileStatus(path, followingLinks: false)
            } catch .noSuchFileOrDirectory {
                return .gone
            }
            if found.kind == .symbolicLink {
                isLink = true
                // Another user's link must not make nudge read, or later write, a file outside the folder.
                target = try SystemCall.resolvedPath(path)
                guard target.hasPrefix(folder + "/"), !target.dropFirst(folder.count + 1).contains("/") else {
                    return .skipped(
                        "a symbolic link out of the folder (to \(target)): nudge reads the folder's own files"
                    )
                }
                found = try SystemCall.fileStatus(target, followingLinks: false)
            }
            status = found
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

    /// Whether a line of `text` begins a VTODO: what makes the file a task's. A line may start with byte-order marks
    /// (a bare VTODO from a Windows program), and blanks around it do not count.
    static func holdsTask(_ text: String) -> Bool {
        // Lines of ASCII are looked at as bytes: splitting every file of a folder into Characters took a tenth of a
        // link's time. A line with any other byte (a mark, a Unicode line break or blank) is looked at as text.
        let newlines = UInt8(ascii: "\n")...UInt8(ascii: "\r")
        return text.utf8.split(whereSeparator: newlines.contains).contains { line in
            guard line.allSatisfy({ $0 < 0x80 }) else {
                return holdsTaskAsText(String(decoding: line, as: UTF8.self))
            }
            let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            guard let first = line.firstIndex(where: { !isBlank($0) }),
                let last = line.lastIndex(where: { !isBlank($0) })
            else { return false }
            // Eleven bytes make a small String, kept inline: nothing is allocated.
            let word = line[first...last]
            return word.count == 11 && String(decoding: word, as: UTF8.self).uppercased() == "BEGIN:VTODO"
        }
    }

    /// What `holdsTask` says, looked at as text: a line (split where Swift's Characters say a line ends) that is
    /// `BEGIN:VTODO` in any case, after any byte-order marks and between blanks.
    static func holdsTaskAsText(_ text: String) -> Bool {
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
