import Foundation

/// A change of nudge's to an item of a linked list (`ListLink`), made in its folder first: the file is the item's
/// truth. The book says what to write (`fileChange`), NudgeVdir writes it, if the file is still as nudge last read it
/// (`FileStamp`, `filesRead`), and reads it back, and the book takes the file as read (`applyWrittenFile`), as it
/// takes any change of the folder's. A write that finds the file changed by another program changes nothing: the folder is read again
/// and the change is refused, never made over the other program's.
public struct TaskFileChange: Sendable {
    public enum Kind: Sendable {
        /// The task's properties nudge owns, changed in place.
        case rewrite(TaskRewrite)
        /// A recurring task completed as todoman completes one: a copy of the file (`next`, a new UID) made the next
        /// occurrence, as a new file `nextFileName`, then the task rewritten (`done`: completed, its RRULE gone).
        case completeSeries(done: TaskRewrite, next: TaskRewrite, nextFileName: String)
        /// A new file holding these bytes (a task added to the list).
        case create([UInt8])
        /// The file removed (the item removed).
        case remove
    }

    public let listID: Int
    public let folder: String
    public let fileName: String
    /// The file as nudge last read it; nil for a new one, which must not exist yet.
    public let stamp: FileStamp?
    public let kind: Kind
    /// When the change is made, by the book's clock: the task's DTSTAMP and LAST-MODIFIED.
    public let now: Date

    /// The file's path.
    public var path: String { folder + "/" + fileName }

    public init(listID: Int, folder: String, fileName: String, stamp: FileStamp?, kind: Kind, now: Date) {
        self.listID = listID
        self.folder = folder
        self.fileName = fileName
        self.stamp = stamp
        self.kind = kind
        self.now = now
    }
}

extension ReminderBook {
    /// Whether item `itemID` is a task of a linked list's folder, changed there (`fileChange`), not in the book.
    public func isKeptInFolder(_ itemID: Int) -> Bool {
        library.list(containing: itemID)?.link != nil
    }

    /// What to write to item `itemID`'s file for `edit`, or nil if the item holds it already (nothing is written).
    /// nudge owns the task's SUMMARY, DUE (and DURATION, which DUE replaces), PRIORITY, its completion (STATUS,
    /// COMPLETED, PERCENT-COMPLETE), and its alarms: an edit of whether it reminds or of its warnings, or a due date
    /// moved from a day to a time or back (their triggers count from DUE, which means its day's start for a day),
    /// replaces the task's alarms with nudge's own. Any other field of an item kept in a folder is the file's, and
    /// its edit is refused, saying where to make it; so is a due time that does not remind where the link reminds at
    /// due times (a task without alarms there reminds at its due time).
    public func fileChange(editing itemID: Int, _ edit: ItemEdit) throws(ModelError) -> TaskFileChange? {
        let (item, list, link) = try linkedItem(itemID)
        let file = link.folder + "/" + (item.fileName ?? "")
        let refused = [
            edit.listID.map { _ in "its list" }, edit.repeatRule.map { _ in "its repeat" },
            edit.repeatAfter.map { _ in "its repeat" }, edit.clearsRepeat ? "its repeat" : nil,
            edit.catchUp.map { _ in "its catch-up" }, edit.clearsCatchUp ? "its catch-up" : nil,
            edit.nag.map { _ in "its nag" }, edit.clearsNag ? "its nag" : nil,
        ].compactMap { $0 }
        if let what = refused.first { throw ModelError.notWrittenBack(itemID, what: what, file: file) }
        let now = clock.now()
        // Refused here as the book would refuse it (an empty text, a due date given twice), before a file changes.
        let change = try library.makeEditItem(itemID: itemID, edit, now: now, timeZone: timeZone, zones: zones)
        guard case .putItem(let edited, _) = change else { return nil }
        let sameSecond = Self.sameSecond
        // The due date the edit gives, not one a completion moves on (a repeat's next).
        let changesDue =
            (edit.dueDate != nil || edit.dueDay != nil || edit.clearsDueDate)
            && (edited.dueDay != item.dueDay || (edited.dueDay == nil && !sameSecond(edited.dueDate, item.dueDate)))
        let checks = edit.checked.flatMap { $0 == item.checked ? nil : $0 }
        // A recurring task is completed as todoman completes one (below); its due date is its rule's, and a round
        // after completion is nudge's own, which other programs do not know.
        if item.repeatRule != nil && (changesDue || checks == false) || item.repeatAfter != nil && checks != nil {
            throw ModelError.notWrittenBack(
                itemID,
                what: (changesDue ? "the due date" : checks == false ? "reopening" : "the completion")
                    + " of a repeating task",
                file: file
            )
        }
        var rewrite = TaskRewrite()
        if edited.text != item.text { rewrite.setting.append("SUMMARY:" + ICalendarText.escaped(edited.text)) }
        // Normal is no priority given, as todoman and Thunderbird show it.
        if edited.priority != item.priority {
            if edited.priority == .normal {
                rewrite.removing.insert("PRIORITY")
            } else {
                rewrite.setting.append("PRIORITY:\(CalendarInterchange.priorityNumber(edited.priority))")
            }
        }
        if changesDue {
            rewrite.removing.insert("DURATION")
            if let day = edited.dueDay {
                rewrite.setting.append("DUE;VALUE=DATE:" + day.iso.filter(\.isNumber))
            } else if let due = edited.dueDate {
                rewrite.setting.append("DUE:" + CalendarInterchange.utc(due))
            } else {
                rewrite.removing.insert("DUE")
            }
        }
        // Asked for, not a side effect of another change.
        let changesAlarms =
            edit.shouldRemind.map { $0 != item.shouldRemind } ?? false
            || edit.warnings.map { _ in edited.warnings != item.warnings } ?? false
        let movesDueKind = changesDue && (edited.dueDay == nil) != (item.dueDay == nil) && item.dueDate != nil
        if changesAlarms {
            // What alarms cannot say: the latest at or before the due time is the reminder, the earlier ones warn,
            // and where the link reminds at due times a due time without alarms reminds all the same.
            let unsaid =
                if edited.dueDate == nil {
                    "alarms of a task without a due date"
                } else if edit.shouldRemind == false, edited.dueDay == nil, link.remindsAtDue {
                    "a due time that does not remind (the link reminds at due times)"
                } else if !edited.shouldRemind, !edited.warnings.isEmpty {
                    "warnings of a task that does not remind (add --remind)"
                } else {
                    String?.none
                }
            if let unsaid { throw ModelError.notWrittenBack(itemID, what: unsaid, file: file) }
        }
        if changesAlarms || movesDueKind, let due = edited.dueDate {
            rewrite.replacingAlarms =
                edited.shouldRemind
                ? CalendarInterchange.alarmLines(
                    text: ICalendarText.escaped(edited.text),
                    due: due,
                    dueDay: edited.dueDay,
                    warnings: edited.warnings,
                    timeZone: timeZone
                ) : []
        }
        var kind = TaskFileChange.Kind.rewrite(rewrite)
        switch checks {
        case true? where item.repeatRule != nil:
            // todoman's way (its `Todo.complete`): the task is done and no longer recurs (nudge's own spelling of the
            // rule goes too), and a copy of it with a new UID is the next occurrence: the rule's first after the
            // file's DUE, as todoman counts; none once the series has ended.
            let done = rewrite.merged(
                with: TaskRewrite.completing(at: edit.completedAt ?? now)
                    .merged(with: TaskRewrite(removing: ["RRULE", "X-NUDGE-ONCALENDAR"]))
            )
            let rule = item.repeatRule.flatMap { try? RepeatRule($0, localZone: timeZone, zones: zones) }
            guard let due = filesRead[itemID]?.due ?? item.dueDate, let next = rule?.next(after: due, in: timeZone)
            else {
                kind = .rewrite(done)
                break
            }
            let uid = UUID().uuidString.lowercased()
            var copy = rewrite
            copy.setting += ["UID:" + uid, "STATUS:NEEDS-ACTION"]
            copy.removing.formUnion(["COMPLETED", "PERCENT-COMPLETE"])
            copy.movingDue = TaskRewrite.MovedDue(next, localZone: timeZone)
            copy.dropsOtherTasks = true
            kind = .completeSeries(done: done, next: copy, nextFileName: uid + ".ics")
        case true?: kind = .rewrite(rewrite.merged(with: .completing(at: edit.completedAt ?? now)))
        case false?: kind = .rewrite(rewrite.merged(with: .reopening))
        case nil: if rewrite.isEmpty { return nil }
        }
        return TaskFileChange(
            listID: list.listID,
            folder: link.folder,
            fileName: item.fileName ?? "",
            stamp: try stamp(of: item, in: link),
            kind: kind,
            now: now
        )
    }

    /// What to do to item `itemID`'s file to remove the item: remove the file.
    public func fileChange(removing itemID: Int) throws(ModelError) -> TaskFileChange {
        let (item, list, link) = try linkedItem(itemID)
        return TaskFileChange(
            listID: list.listID,
            folder: link.folder,
            fileName: item.fileName ?? "",
            stamp: try stamp(of: item, in: link),
            kind: .remove,
            now: clock.now()
        )
    }

    /// The file that adds `new` to its linked list: a new task with a new UID, in `UID.ics`, as todoman and
    /// vdirsyncer name their files. It reminds at its due date with alarms, whatever the link says of tasks without.
    public func fileChange(adding new: NewItem) throws(ModelError) -> TaskFileChange {
        guard let list = library.list(id: new.listID) else { throw .unknownList(new.listID) }
        guard let link = list.link else { throw .notLinked(list.name) }
        let refused = [
            new.repeatRule.map { _ in "a repeat" }, new.repeatAfter.map { _ in "a repeat" },
            new.catchUp.map { _ in "a catch-up rule" }, new.nag.map { _ in "a nag" },
        ].compactMap { $0 }
        // A due time without an alarm reminds where the link says so: a file cannot say otherwise.
        let silentDue = new.dueDate != nil && new.dueDay == nil && !new.shouldRemind && link.remindsAtDue
        let unwritable =
            refused + (silentDue ? ["a due time that does not remind (the link reminds at due times)"] : [])
        if let what = unwritable.first { throw ModelError.notWrittenBack(adding: what, list: list) }
        let now = clock.now()
        // Refused here as the book would refuse it, before a file is made.
        _ = try library.makeAddItem(new, now: now, timeZone: timeZone, zones: zones)
        let uid = UUID().uuidString.lowercased()
        let text = ICalendarText.escaped(new.text)
        let stamp = CalendarInterchange.utc(now)
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nudge//nudge \(NudgeVersion.current)//EN", "BEGIN:VTODO",
            "UID:" + uid, "DTSTAMP:" + stamp, "CREATED:" + stamp, "LAST-MODIFIED:" + stamp, "SEQUENCE:0",
            "SUMMARY:" + text, "STATUS:NEEDS-ACTION",
        ]
        if new.priority != .normal { lines.append("PRIORITY:\(CalendarInterchange.priorityNumber(new.priority))") }
        let due = new.dueDay.map { $0.instant(at: ChecklistItem.dayReminderTime, in: timeZone) } ?? new.dueDate
        if let day = new.dueDay {
            lines.append("DUE;VALUE=DATE:" + day.iso.filter(\.isNumber))
        } else if let due {
            lines.append("DUE:" + CalendarInterchange.utc(due))
        }
        if let due, new.shouldRemind {
            lines += CalendarInterchange.alarmLines(
                text: text,
                due: due,
                dueDay: new.dueDay,
                warnings: new.warnings,
                timeZone: timeZone
            )
        }
        lines += ["END:VTODO", "END:VCALENDAR"]
        return TaskFileChange(
            listID: list.listID,
            folder: link.folder,
            fileName: uid + ".ics",
            stamp: nil,
            kind: .create(Array(lines.map { ICalendarText.folded($0) }.joined().utf8)),
            now: now
        )
    }

    /// Takes `change`'s files as nudge read them back after writing them (`written`: the file changed, and a new
    /// one, if the change made one; none for a file removed) into the book, as a change of the folder's is taken
    /// (`applyFolder`), but told as the user's change it is, not the folder's. Returns the item that holds the file
    /// changed, if one does.
    public mutating func applyWrittenFile(_ change: TaskFileChange, _ written: [FolderTask]) throws(ModelError) -> (
        ChecklistItem?, Outcome
    ) {
        guard let list = library.list(id: change.listID) else { throw .unknownList(change.listID) }
        guard let link = list.link, link.folder == change.folder else { throw .notLinked(list.name) }
        func itemID(_ fileName: String) -> Int? {
            library.list(id: change.listID)?.items.first { $0.fileName == fileName }?.itemID
        }
        var outcome = Outcome()
        if case .remove = change.kind, let removed = itemID(change.fileName) {
            outcome.append(contentsOf: try removeItemIgnoringLink(itemID: removed))
        }
        for task in written {
            try take(task, into: itemID(task.fileName), of: change.listID, link: link, outcome: &outcome)
        }
        return (itemID(change.fileName).flatMap { library.item(id: $0) }, outcome)
    }

    /// Item `itemID`, its list and the list's link; refused if the list is not linked.
    private func linkedItem(_ itemID: Int) throws(ModelError) -> (ChecklistItem, Checklist, ListLink) {
        guard let item = library.item(id: itemID), let list = library.list(containing: itemID) else {
            throw .unknownItem(itemID)
        }
        guard let link = list.link else { throw .notLinked(list.name) }
        return (item, list, link)
    }

    /// The stamp of `item`'s file as last read; refused if nudge has not read it since it started (the folder was
    /// unavailable, or the file skipped): nudge writes only over what it read.
    private func stamp(of item: ChecklistItem, in link: ListLink) throws(ModelError) -> FileStamp {
        guard let stamp = filesRead[item.itemID]?.stamp, item.fileName != nil else {
            throw ModelError.changedOnDisk(link.folder + "/" + (item.fileName ?? ""), unread: true)
        }
        return stamp
    }
}
