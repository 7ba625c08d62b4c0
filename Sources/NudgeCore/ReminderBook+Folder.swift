import Foundation

/// Lists kept in folders of task files (`ListLink`): the folder is the truth, and the book follows it. Reading the
/// folder is the caller's (NudgeVdir's `VdirCollection`, off the loop); the book decides what that changes.
extension ReminderBook {
    /// Links list `listID` to `link`'s folder, which holds `contents` now, and brings its tasks in as items
    /// (`applyFolder`). Linking a linked list again changes its settings and reads it again.
    public mutating func linkList(listID: Int, _ link: ListLink, contents: FolderContents) throws(ModelError)
        -> Outcome
    {
        let change = try library.makeSetLink(listID: listID, link: link)
        try library.apply(change)
        var outcome = Outcome(changes: [change])
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
        return Self.fromFolder(outcome)
    }

    /// Marks list `listID`'s folder unavailable (missing, unmounted, unreadable): its items and their reminders stay as
    /// last read, never all removed because a disk was not there.
    public mutating func folderUnavailable(listID: Int, reason: String) {
        guard library.list(id: listID)?.link != nil else { return }
        folderStates[listID] = .unavailable(reason: reason)
    }

    /// Brings linked list `listID` to what its folder holds (`contents`): a task in a file no item has is added, an
    /// item whose file says otherwise is edited where they differ, an item whose file is gone is removed, and one whose
    /// file is skipped now stays as last read. Reading a folder that did not change changes nothing. A task the model
    /// refuses (a repeat with no occurrence left) is skipped like a file nudge cannot read. Every event says it came
    /// from the folder (`source: vdir`).
    public mutating func applyFolder(listID: Int, _ contents: FolderContents) throws(ModelError) -> Outcome {
        guard let list = library.list(id: listID) else { throw .unknownList(listID) }
        guard let link = list.link else { throw .notLinked(list.name) }
        var byFile: [String: Int] = [:]
        for item in list.items { if let fileName = item.fileName { byFile[fileName] = item.itemID } }
        var outcome = Outcome()
        // The collection's own name names the list, unless another list has it.
        if let name = contents.displayName, name != list.name, library.list(named: name) == nil {
            outcome.append(contentsOf: try updateList(listID: listID, name: name))
        }
        var skipped = contents.skipped
        let named = Set(contents.tasks.map(\.fileName))
        let kept = Set(contents.skipped.map(\.fileName))
        // Removals first: a file renamed is its task removed and added again, and its UID is the new item's then.
        for (fileName, itemID) in byFile.sorted(by: { $0.key < $1.key })
        where !named.contains(fileName) && !kept.contains(fileName) {
            outcome.append(contentsOf: try removeItemIgnoringLink(itemID: itemID))
        }
        // Items put on a day whose digest went out follow up together, once, as an import's do.
        heldFollowUps = []
        defer { heldFollowUps = nil }
        for entry in contents.tasks {
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
            do {
                try bring(
                    task,
                    into: byFile[entry.fileName],
                    orNewIn: listID,
                    fileName: entry.fileName,
                    result: &result,
                    outcome: &outcome
                )
            } catch {
                skipped.append(SkippedFile(fileName: entry.fileName, reason: error.description))
            }
        }
        outcome.append(contentsOf: numbered(followUp(heldFollowUps ?? [], now: clock.now())))
        folderStates[listID] = .read(
            skipped: skipped.sorted { $0.fileName < $1.fileName },
            otherFiles: contents.otherFiles
        )
        return Self.fromFolder(outcome)
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
    /// By file name.
    public var tasks: [FolderTask]
    public var skipped: [SkippedFile]
    public var otherFiles: Int
    /// The collection's `displayname`, if it has one.
    public var displayName: String?

    public init(tasks: [FolderTask], skipped: [SkippedFile] = [], otherFiles: Int = 0, displayName: String? = nil) {
        self.tasks = tasks
        self.skipped = skipped
        self.otherFiles = otherFiles
        self.displayName = displayName
    }
}
