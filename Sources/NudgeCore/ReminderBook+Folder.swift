import Foundation

/// Lists kept in folders of task files (`ListLink`): the folder is the truth, and the book follows it. Reading the
/// folder is the caller's (NudgeVdir's `VdirCollection`, off the loop); the book decides what that changes.
extension ReminderBook {
    /// Links list `listID` to `link`'s folder, which holds `contents` now (read whole), and brings its tasks in as
    /// items (`applyFolder`). Linking a linked list again changes its settings and reads it again; linking it to
    /// another folder removes the items of the one before (a file of the same name there is another task).
    public mutating func linkList(listID: Int, _ link: ListLink, contents: FolderContents) throws(ModelError)
        -> Outcome
    {
        let change = try library.makeSetLink(listID: listID, link: link)
        // What the book took before may be another folder's.
        precondition(contents.readAnew == nil, "a link takes its folder read whole")
        var outcome = Outcome()
        if let list = library.list(id: listID), let before = list.link, before.folder != link.folder {
            for item in list.items { outcome.append(contentsOf: try removeItemIgnoringLink(itemID: item.itemID)) }
        }
        try library.apply(change)
        outcome.changes.append(change)
        outcome.append(contentsOf: try applyFolder(listID: listID, contents))
        return outcome
    }

    /// Ends list `listID`'s link: its items, which were its folder's, are removed (their reminders cancelled); the
    /// list stays, empty, and the folder is untouched.
    public mutating func unlinkList(listID: Int) throws(ModelError) -> Outcome {
        guard let list = library.list(id: listID) else { throw .unknownList(listID) }
        guard list.link != nil else { return Outcome() }
        var outcome = Outcome()
        for item in list.items { outcome.append(contentsOf: try removeItemIgnoringLink(itemID: item.itemID)) }
        let change = try library.makeSetLink(listID: listID, link: nil)
        try library.apply(change)
        outcome.changes.append(change)
        folderStates[listID] = nil
        return outcome
    }

    /// Marks list `listID`'s folder unavailable (missing, unmounted, unreadable): its items and their reminders stay as
    /// last read, never all removed because a disk was not there.
    public mutating func folderUnavailable(listID: Int, reason: String) {
        guard library.list(id: listID)?.link != nil else { return }
        folderStates[listID] = .unavailable(reason: reason)
    }

    /// Brings linked list `listID` to what its folder holds (`contents`): a task in a file no item has is added (or,
    /// with the UID of an item whose file is gone or skipped, moves that item to its file: a file renamed, or a
    /// duplicate UID's first file by name), an item whose file says otherwise is edited where they differ, an item
    /// whose file is gone is removed, and one whose file is skipped now stays as last read. Reading a folder that did
    /// not change changes nothing, and only the files read anew (`FolderContents.readAnew`) are looked at: such a
    /// reading is beside the one the book took last, and is passed over if the book took none since it started, its
    /// store was reloaded, or the folder was unavailable (`hasTakenFolder`): the caller reads the folder whole. A task
    /// the model refuses (a repeat with no occurrence left) is skipped like a file nudge cannot read. A folder with
    /// nothing in it while the list has several items is taken for a disk not mounted, not every task done: it is
    /// unavailable, and the items stay. Every event says it came from the folder (`source: vdir`).
    public mutating func applyFolder(listID: Int, _ contents: FolderContents) throws(ModelError) -> Outcome {
        guard let list = library.list(id: listID) else { throw .unknownList(listID) }
        guard let link = list.link else { throw .notLinked(list.name) }
        // A reading of a few files holds their tasks alone: without the book's taking of the others, it says too
        // little.
        guard contents.readAnew == nil || hasTakenFolder(of: listID) else { return Outcome() }
        if contents.isBare, list.items.count > 1 {
            folderUnavailable(
                listID: listID,
                reason:
                    "it is empty, and the list has \(list.items.count) items: is its disk mounted? They stay as last "
                    + "read; to let them go, unlink the list"
            )
            return Outcome()
        }
        // The items of the files read anew, and of their tasks' UIDs: a change of one file among ten thousand makes
        // no table of every item (that took a third of its time).
        let uidsRead = contents.readAnew == nil ? nil : Set(contents.tasks.compactMap(\.task.uid))
        var byFile: [String: Int] = [:]
        var byUID: [String: Int] = [:]
        for item in list.items {
            if let fileName = item.fileName, contents.readAnew(fileName) { byFile[fileName] = item.itemID }
            if let uid = item.calendarUID, uidsRead?.contains(uid) ?? true { byUID[uid] = item.itemID }
        }
        var outcome = Outcome()
        // The collection's own name names the list, unless another list has it.
        if let name = contents.displayName, name != list.name, library.list(named: name) == nil {
            outcome.append(contentsOf: try updateList(listID: listID, name: name))
        }
        var skipped = contents.skipped
        let kept = Set(contents.skipped.map(\.fileName))
        // A task whose file has no item takes over the item of its UID whose file is gone or skipped.
        for entry in contents.tasks where contents.readAnew(entry.fileName) && byFile[entry.fileName] == nil {
            guard let uid = entry.task.uid, let itemID = byUID[uid], var item = library.item(id: itemID),
                let file = item.fileName, !contents.isTaskFile(file)
            else { continue }
            byFile[file] = nil
            byFile[entry.fileName] = itemID
            item.fileName = entry.fileName
            let change = ChecklistChange.putItem(item, listID: listID)
            try library.apply(change)
            outcome.changes.append(change)
        }
        for (fileName, itemID) in byFile.sorted(by: { $0.key < $1.key })
        where !contents.isTaskFile(fileName) && !kept.contains(fileName) {
            outcome.append(contentsOf: try removeItemIgnoringLink(itemID: itemID))
        }
        // Items put on a day whose digest went out follow up together, once, as an import's do.
        heldFollowUps = []
        defer { heldFollowUps = nil }
        var limited: [SkippedFile] = []
        for entry in contents.tasks where contents.readAnew(entry.fileName) {
            do {
                try take(entry, into: byFile[entry.fileName], of: listID, link: link, outcome: &outcome)
                if !kept.contains(entry.fileName), let why = entry.task.repeatLeftOut {
                    limited.append(SkippedFile(fileName: entry.fileName, reason: "taken without its repeat: " + why))
                }
            } catch {
                skipped.append(SkippedFile(fileName: entry.fileName, reason: error.description))
            }
        }
        outcome.append(contentsOf: numbered(followUp(heldFollowUps ?? [], now: clock.now())))
        // A task the model refused, or took without its repeat, in a file not read anew stays so.
        if contents.readAnew != nil, case .read(let skippedBefore, let limitedBefore, _) = folderStates[listID] {
            let stillSo = { (file: SkippedFile) in
                !contents.readAnew(file.fileName) && contents.isTaskFile(file.fileName)
            }
            skipped += skippedBefore.filter(stillSo)
            limited += limitedBefore.filter(stillSo)
        }
        folderStates[listID] = .read(
            skipped: skipped.sorted { $0.fileName < $1.fileName },
            limited: limited.sorted { $0.fileName < $1.fileName },
            otherFiles: contents.otherFiles
        )
        return Self.fromFolder(outcome)
    }

    /// Whether the book took a reading of list `listID`'s folder, and has not had it unavailable since: a reading of a
    /// few files again (`FolderContents.readAnew`) is beside that one.
    public func hasTakenFolder(of listID: Int) -> Bool {
        if case .read = folderStates[listID] { true } else { false }
    }

    /// Brings the task of `entry`, a file of linked list `listID`, into item `itemID` (an edit where they differ), or
    /// into a new item, and keeps the file's stamp for a write back. Returns the item's ID.
    @discardableResult
    mutating func take(
        _ entry: FolderTask,
        into itemID: Int?,
        of listID: Int,
        link: ListLink,
        outcome: inout Outcome
    ) throws(ModelError) -> Int? {
        var task = entry.task
        // No alarm: the link says whether its due instant reminds.
        if link.remindsAtDue, task.dueDate != nil, task.dueDay == nil, !task.shouldRemind, task.warnings.isEmpty {
            task.shouldRemind = true
        }
        var result = CalendarImportResult(
            line: task.line,
            uid: task.uid,
            summary: task.text,
            outcome: .unchanged,
            notes: []
        )
        // An item added, then refused its check-off, is the file's all the same.
        defer {
            if let itemID = result.itemID { filesRead[itemID] = FileRead(stamp: entry.stamp, due: entry.task.dueDate) }
        }
        try bring(task, into: itemID, orNewIn: listID, fileName: entry.fileName, result: &result, outcome: &outcome)
        return result.itemID
    }

    /// The outcome with every event marked as the folder's.
    private static func fromFolder(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        for index in outcome.events.indices { outcome.events[index].source = .vdir }
        return outcome
    }
}

/// What a linked list's folder holds, as read: its tasks, the files skipped and why, and how many files of other
/// components (events, journals) were left alone. NudgeVdir's `VdirCollection` reads one.
public struct FolderContents: Sendable {
    /// The tasks of the files read, by file name: every task of the folder, for the folder read whole; else those of
    /// the files `readAnew` (the book has the others).
    public var tasks: [FolderTask]
    /// The files whose task is taken, read anew or not, sorted by name.
    public var taskFiles: [String]
    public var skipped: [SkippedFile]
    public var otherFiles: Int
    /// The collection's `displayname`, if it has one.
    public var displayName: String?
    /// The files read anew since the reading the book took before, if only those were: the book looks at no other
    /// (a file changed among ten thousand costs one file). Nil for the folder read whole.
    public var readAnew: Set<String>?

    /// Nothing in the folder nudge looks at: no task, no file skipped or left alone, no `displayname`.
    public var isBare: Bool { taskFiles.isEmpty && skipped.isEmpty && otherFiles == 0 && displayName == nil }

    /// `taskFiles` are those of `tasks` unless given.
    public init(
        tasks: [FolderTask],
        taskFiles: [String]? = nil,
        skipped: [SkippedFile] = [],
        otherFiles: Int = 0,
        displayName: String? = nil,
        readAnew: Set<String>? = nil
    ) {
        self.tasks = tasks
        self.taskFiles = taskFiles ?? tasks.map(\.fileName).sorted()
        self.skipped = skipped
        self.otherFiles = otherFiles
        self.displayName = displayName
        self.readAnew = readAnew
    }

    /// Whether the file `name` was read anew (every file, for the folder read whole).
    func readAnew(_ name: String) -> Bool { readAnew?.contains(name) ?? true }

    /// Whether the file `name` is one of `taskFiles`: looked up by halves, as a change asks of a few files among
    /// thousands (a set of them all, made at each change, took a tenth of its time).
    func isTaskFile(_ name: String) -> Bool {
        var (low, high) = (0, taskFiles.count)
        while low < high {
            let middle = (low + high) / 2
            if taskFiles[middle] < name { low = middle + 1 } else { high = middle }
        }
        return low < taskFiles.count && taskFiles[low] == name
    }
}
