import Foundation
import NudgeCalendar

/// The checklists and their pending reminders, kept in step: every change to an item goes through here, is
/// applied to the library, and is shown to the scheduler, so the replacement rules cannot be bypassed.
///
/// A value type, so the holder can keep the value from before an operation and put it back if persisting the
/// operation's changes fails: nothing is acknowledged that is not durable.
public struct ReminderBook: Sendable {
    public internal(set) var library: ChecklistLibrary
    public private(set) var scheduler: ReminderScheduler
    public let clock: any WallClock
    /// The zone repeat rules are evaluated in, unless a rule names its own: the daemon's.
    public var timeZone: TimeZone { scheduler.timeZone }
    /// The zone database repeat rules are read and evaluated with.
    public var zones: ZoneRulesStore { scheduler.zones }
    /// When the day's digest goes out, for lists without a time of their own: seconds of wall time after midnight in
    /// `timeZone` (`digestInstant(of:for:)`).
    public let digestTime: Int
    /// While an import runs: the items it put on a day whose digest went out, for one follow-up at its end.
    var heldFollowUps: [Int]?
    /// While `recordingUndo` runs: each item the operation touched, in order, as it was before its first change.
    private var undoRecording: (touched: [(itemID: Int, before: UndoStep.Placed?)], seen: Set<Int>)?
    /// The ID of the last change of the user's (`changed`, `undone`) reported since the book was made, or of the last
    /// event before it was made. An undo read from the history up to some event is refused if a change came after it
    /// (`undoChange`).
    public private(set) var latestChangeID = 0
    /// How each linked list's folder stood when last read (`applyFolder`), by list ID. Not stored: nudged reads every
    /// linked folder when it starts.
    public internal(set) var folderStates: [Int: FolderState] = [:]
    /// The file of each item of a linked list as last read, by item ID (`fileChange`). Not stored, as `folderStates`.
    var filesRead: [Int: FileRead] = [:]

    /// A linked item's file as last read: nudge writes to it only if it is still so (`stamp`), and a recurring task's
    /// next occurrence is counted from its DUE (`due`), as todoman counts.
    struct FileRead: Sendable {
        var stamp: FileStamp?
        var due: Date?
    }

    /// What an operation did: the changes to persist, what the edges must do, and the decisions to report.
    public struct Outcome: Sendable, Equatable {
        public var changes: [ChecklistChange] = []
        public var actions: [SchedulerAction] = []
        public var events: [ReminderEvent] = []

        public init() {}

        init(changes: [ChecklistChange]) {
            self.changes = changes
        }

        /// Nothing to persist, do or report: a read, or an operation that changed nothing.
        public var isEmpty: Bool { changes.isEmpty && actions.isEmpty && events.isEmpty }

        public var deliveries: [Delivery] { SchedulerOutput(actions: actions).deliveries }

        /// Another operation's outcome after this one's, as if they were one.
        public mutating func append(contentsOf other: Outcome) {
            changes += other.changes
            actions += other.actions
            events += other.events
        }

        mutating func append(_ output: SchedulerOutput) {
            actions += output.actions
            events += output.events
        }
    }

    public init(
        library: ChecklistLibrary,
        clock: any WallClock = SystemWallClock(),
        catchUpWindow: TimeInterval = ReminderScheduler.defaultCatchUpWindow,
        timeZone: TimeZone = .current,
        zones: ZoneRulesStore = ZoneRulesStore(),
        digestTime: Int = ChecklistItem.dayReminderTime
    ) {
        self.library = library
        self.clock = clock
        self.scheduler = ReminderScheduler(catchUpWindow: catchUpWindow, timeZone: timeZone, zones: zones)
        self.digestTime = digestTime
        // Every change before the book was made (a start, a reload after a failed write) counts as after an undo
        // read before it: such an undo is refused, once, rather than take back over a change it did not see.
        latestChangeID = library.nextEventID - 1
    }

    /// How late a reminder may be found and still fire, for those found late from now on (a reload of nudged's
    /// settings).
    public mutating func setCatchUpWindow(_ window: TimeInterval) {
        scheduler.catchUpWindow = window
    }

    /// Call once after loading: schedules every reminder the library holds, fires late what fell due unhandled
    /// within the catch-up window and reports the older ones missed, recording both so no restart repeats them.
    /// Decides at most `limit` events; `advance` decides the rest (`hasDecisionDue` says there are some).
    public mutating func start(limit: Int = .max) -> Outcome {
        let restored: SchedulerOutput
        do {
            // Lazily: at a million items, an array of them all would hold hundreds of megabytes for a moment. Scoped,
            // so the view of the lists is gone before `recordingHandled` changes them (held, it would make that
            // change copy every list).
            let items = library.lists.lazy.flatMap { list in list.items.lazy.map { (item: $0, listName: list.name) } }
            restored = scheduler.restore(items, now: clock.now(), limit: limit)
        }
        return withDigest(recordingHandled(restored))
    }

    /// Whether a decision (a reminder or a warning) is due by the book's clock: one the timer's wake-up may not have
    /// brought yet, which must come before the next change.
    public var hasDecisionDue: Bool {
        scheduler.nextDue.map { $0 <= clock.now() } == true
    }

    /// The timer fired or the wall clock changed: fire what is due now, at most `limit` events of it, and the day's
    /// digest if its instant came.
    public mutating func advance(limit: Int = .max) -> Outcome {
        withDigest(recordingHandled(scheduler.advance(to: clock.now(), limit: limit)))
    }

    // MARK: The daily digest

    /// When the digest of `day` brings the items of `list` (nudged's, without one): the list's `digestTime`, else
    /// nudged's, on the day in nudged's zone (across a DST change, the wall time it names: a time the change skips is
    /// the first instant after the gap).
    public func digestInstant(of day: CalendarDay, for list: Checklist? = nil) -> Date {
        // A time outside the day (a store edited by hand) is nudged's.
        let own = list?.digestTime.flatMap { (0..<86_400).contains($0) ? $0 : nil }
        return day.instant(at: own ?? digestTime, in: timeZone)
    }

    /// The lists whose digest of `day` went out.
    private func listsWhoseDigestWentOut(on day: CalendarDay) -> Set<Int> {
        Set(library.lists.filter { Self.digestWentOut($0, on: day) }.map(\.listID))
    }

    /// Whether the list's digest of `day` went out: on it, or on a later day (the clock has been set back since, and
    /// a digest set back past is not sent again, as a reminder is not).
    private static func digestWentOut(_ list: Checklist, on day: CalendarDay) -> Bool {
        list.digestSentOn.map { $0 >= day } ?? false
    }

    /// `outcome`, then the digest of each list whose digest time has come today and whose digest has not gone out
    /// today (at a start: late), and the scheduler told when the next one is. Checked at every start and wake-up, so
    /// a clock moved back finds the right next instant too.
    private mutating func withDigest(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        let now = clock.now()
        if library.digestItemCount > 0 { outcome.append(contentsOf: numbered(sendDigest(now: now))) }
        outcome.append(withDigestInstant(now: now))
        return outcome
    }

    /// Tells the scheduler when the next digest is due: the soonest list's time still to come (today's, if it has
    /// not gone out yet, else tomorrow's); none while no item may be listed (`digestItemCount`), so nudged then
    /// sleeps as it did before digests.
    private mutating func withDigestInstant(now: Date) -> SchedulerOutput {
        guard library.digestItemCount > 0 else { return scheduler.setDigestInstant(nil) }
        let today = CalendarDay(containing: now, in: timeZone)
        let tomorrow = CalendarDay(days: today.days + 1)
        var next: Date?
        for list in library.lists {
            var instant = digestInstant(of: today, for: list)
            if instant <= now || Self.digestWentOut(list, on: today), let tomorrow {
                instant = digestInstant(of: tomorrow, for: list)
            }
            if instant > now { next = min(next ?? instant, instant) }
        }
        return scheduler.setDigestInstant(next)
    }

    /// The digest rule, per list: once its digest time has come on a day, the list's digest of the day goes out,
    /// once (`digestSentOn`, stored with the list, so no restart and no digest time changed since sends it again),
    /// with every item of it the day lists: due that day or overdue. Lists due together go out as one delivery,
    /// showing every list sent that day; a list with nothing to bring is marked and shows nothing. A day's digest goes
    /// out late on its own day only, however late: the next day's lists what it would have, as overdue.
    private mutating func sendDigest(now: Date) -> Outcome {
        let today = CalendarDay(containing: now, in: timeZone)
        let due = library.lists.filter {
            !Self.digestWentOut($0, on: today) && digestInstant(of: today, for: $0) <= now
        }
        guard !due.isEmpty else { return Outcome() }
        let changes = due.map { ChecklistChange.markDigestSent(listID: $0.listID, day: today) }
        for change in changes { try? library.apply(change) }
        var outcome = Outcome(changes: changes)
        let listIDs = Set(due.map(\.listID))
        let brought = library.digest(on: today, limit: DigestDelivery.entryLimit, lists: listIDs)
        guard brought.count > 0 else { return outcome }
        let sentToday = listsWhoseDigestWentOut(on: today)
        let delivery = DigestDelivery(
            digest: sentToday == listIDs
                ? brought : library.digest(on: today, limit: DigestDelivery.entryLimit, lists: sentToday),
            summary: brought.summary,
            itemIDs: brought.itemIDs,
            instant: due.map { digestInstant(of: today, for: $0) }.max() ?? now,
            firedAt: now
        )
        outcome.actions = [.deliverDigest(delivery)]
        outcome.events = [ReminderEvent(digest: delivery)]
        return outcome
    }

    /// Items a change put on a day whose digest went out (added, moved to it, unchecked): one follow-up brings them,
    /// at once. A list whose digest time came but has not gone out (nothing woke nudged for it) goes out now, with
    /// them in it.
    mutating func followUp(_ itemIDs: [Int], now: Date) -> Outcome {
        guard !itemIDs.isEmpty else { return Outcome() }
        let today = CalendarDay(containing: now, in: timeZone)
        let sentBefore = listsWhoseDigestWentOut(on: today)
        var outcome = sendDigest(now: now)
        var added: [Digest.Entry] = []
        var addedCount = 0
        var addedIDs: [Int] = []
        var instant = Date.distantPast
        var seen = Set<Int>()
        for itemID in itemIDs where seen.insert(itemID).inserted {
            guard let item = library.item(id: itemID), let list = library.list(containing: itemID),
                sentBefore.contains(list.listID), item.isListed(inDigestOf: today),
                let entry = Digest.Entry(item, in: list)
            else { continue }
            addedCount += 1
            if added.count < DigestDelivery.entryLimit { added.append(entry) }
            if addedIDs.count < DigestDelivery.itemIDLimit { addedIDs.append(itemID) }
            instant = max(instant, digestInstant(of: today, for: list))
        }
        guard addedCount > 0 else { return outcome }
        let sentToday = listsWhoseDigestWentOut(on: today)
        let delivery = DigestDelivery(
            digest: library.digest(on: today, limit: DigestDelivery.entryLimit, lists: sentToday),
            summary: Digest.texts(added, of: addedCount),
            added: added,
            addedCount: addedCount,
            itemIDs: addedIDs.sorted(),
            instant: instant,
            firedAt: now
        )
        outcome.actions.append(.deliverDigest(delivery))
        outcome.events.append(ReminderEvent(digest: delivery))
        return outcome
    }

    // MARK: Lists

    public mutating func addList(name: String, iconName: IconName = .noIcon) throws(ModelError) -> (
        Checklist, Outcome
    ) {
        let change = try library.makeAddList(name: name, iconName: iconName)
        try library.apply(change)
        guard case .addList(let list) = change else { preconditionFailure("makeAddList made \(change)") }
        var outcome = Outcome(changes: [change])
        outcome.append(withDigestInstant(now: clock.now()))
        return (list, outcome)
    }

    /// Renames a list or changes its icon, with `makeDefault` makes it the list items go to when none is named, and
    /// with `digestTime` sets when the day's digest brings its items (`.some(nil)`: at nudged's time): a time that has
    /// passed today sends the list's digest at once, unless it went out today already.
    public mutating func updateList(
        listID: Int,
        name: String? = nil,
        iconName: IconName? = nil,
        makeDefault: Bool = false,
        digestTime: Int?? = nil
    ) throws(ModelError) -> Outcome {
        guard let before = library.list(id: listID) else { throw .unknownList(listID) }
        var changes: [ChecklistChange] = []
        if name != nil || iconName != nil {
            changes.append(try library.makeUpdateList(listID: listID, name: name, iconName: iconName))
        }
        if makeDefault { changes.append(try library.makeSetDefaultList(listID: listID)) }
        if let digestTime, digestTime != before.digestTime {
            changes.append(.setDigestTime(listID: listID, digestTime: digestTime))
        }
        for change in changes { try library.apply(change) }
        if let list = library.list(id: listID), name != nil {
            scheduler.relabel(itemIDs: list.items.map(\.itemID), listName: list.name)
        }
        let outcome = Outcome(changes: changes)
        return changes.contains { if case .setDigestTime = $0 { true } else { false } } ? withDigest(outcome) : outcome
    }

    /// Removes a list and its items, cancelling their reminders.
    public mutating func removeList(listID: Int) throws(ModelError) -> Outcome {
        let change = try library.makeRemoveList(listID: listID)
        let itemIDs = library.list(id: listID)?.items.map(\.itemID) ?? []
        for itemID in itemIDs { noteForUndo(itemID) }
        try library.apply(change)
        var outcome = Outcome(changes: [change])
        outcome.append(scheduler.itemsRemoved(itemIDs, now: clock.now()))
        outcome.append(withDigestInstant(now: clock.now()))
        return numbered(outcome)
    }

    // MARK: Items

    /// Adds an item with a newly allocated ID and schedules its reminder if it wants one. A recurring item is due
    /// at its rule's first occurrence at or after `dueDate` (or after now).
    public mutating func addItem(_ new: NewItem) throws(ModelError) -> (ChecklistItem, Outcome) {
        if let list = library.list(id: new.listID), list.link != nil { throw .linkedListTakesNoItems(list) }
        return try addItemIgnoringLink(new)
    }

    /// Adds an item, to a linked list too: the one way its folder's tasks come in (`applyFolder`).
    mutating func addItemIgnoringLink(_ new: NewItem) throws(ModelError) -> (ChecklistItem, Outcome) {
        let now = clock.now()
        let change = try library.makeAddItem(new, now: now, timeZone: timeZone, zones: zones)
        return try put(change, now: now)
    }

    /// Edits an item (any field, checking it off included): its reminder is replaced, or cancelled. Checking off
    /// a recurring item completes one occurrence, and one that repeats after completion starts its next round; each
    /// is reported as `completed`.
    public mutating func editItem(itemID: Int, _ edit: ItemEdit) throws(ModelError) -> (ChecklistItem, Outcome) {
        try refuseIfKeptInFolder(itemID)
        if let listID = edit.listID, let list = library.list(id: listID), list.link != nil {
            throw .linkedListTakesNoItems(list)
        }
        return try editItemIgnoringLink(itemID: itemID, edit)
    }

    /// Edits an item, of a linked list too: the one way its file's changes come in (`applyFolder`).
    mutating func editItemIgnoringLink(itemID: Int, _ edit: ItemEdit) throws(ModelError) -> (ChecklistItem, Outcome) {
        let now = clock.now()
        let before = library.item(id: itemID)
        let change = try library.makeEditItem(itemID: itemID, edit, now: now, timeZone: timeZone, zones: zones)
        // A round of an item that repeats after completion is completed by every check-off of it, open.
        let completesRound = edit.checked == true && before?.checked == false && before?.repeatAfter != nil
        guard case .putItem(let item, let listID) = change, let completed = item.completedThrough,
            completed != before?.completedThrough || completesRound, let listName = library.list(id: listID)?.name
        else { return try put(change, now: now) }
        let reminder = Reminder(
            itemID: itemID,
            text: item.text,
            listName: listName,
            due: completed,
            priority: item.priority
        )
        var (edited, outcome) = try put(change, now: now, numbering: false)
        outcome.events.insert(ReminderEvent(.completed, of: reminder, at: now), at: 0)
        return (edited, numbered(outcome))
    }

    /// Snoozes an item's reminder to `until` (replacing the pending one, or scheduling one again if it fired),
    /// reported as `snoozed` with the snoozed instant and the item's due date, which does not change.
    public mutating func snoozeItem(itemID: Int, until: Date) throws(ModelError) -> (ChecklistItem, Outcome) {
        let now = clock.now()
        let change = try library.makeSnooze(itemID: itemID, until: until, now: now)
        let (item, scheduled) = try put(change, now: now, numbering: false)
        var outcome = scheduled
        // The scheduler tells it as any new reminder (scheduled, or replaced); it is a snooze.
        if let index = outcome.events.firstIndex(where: { $0.itemID == itemID && $0.kind != .cancelled }) {
            outcome.events[index].kind = .snoozed
            outcome.events[index].previousDue = item.dueDate
        }
        return (item, numbered(outcome))
    }

    /// Acknowledges the reminder of the item's that fired (`nudge ack`): nothing more is awaited of it, what the
    /// desktop shows of it is taken down, and a repeat of it pending is cancelled. Reported as `acknowledged`, about
    /// the instant that fired. An item whose reminder awaits nothing is left as it is. Not an edit, and not undone:
    /// what a reminder awaits is nudge's state, not the item's (a linked list's file does not hold it).
    public mutating func acknowledgeItem(itemID: Int) throws(ModelError) -> Outcome {
        guard let change = try library.makeAcknowledge(itemID: itemID), let item = library.item(id: itemID),
            let list = library.list(containing: itemID)
        else { return Outcome() }
        let now = clock.now()
        try library.apply(change)
        let fired = Reminder(
            itemID: itemID,
            text: item.text,
            listName: list.name,
            due: item.lastFiredAt ?? now,
            priority: item.priority
        )
        var outcome = Outcome(changes: [change])
        outcome.actions = [.withdraw(itemID: itemID)]
        outcome.events = [ReminderEvent(.acknowledged, of: fired, at: now)]
        // A repeat pending (`Nag`) is no longer wanted: the item's own reminder, if any, takes its place.
        if scheduler.pendingReminder(for: itemID)?.repeating != nil, let acknowledged = library.item(id: itemID) {
            outcome.append(scheduler.itemChanged(acknowledged, listName: list.name, now: now))
        }
        return numbered(outcome)
    }

    /// Removes an item, cancelling its reminder.
    public mutating func removeItem(itemID: Int) throws(ModelError) -> Outcome {
        try refuseIfKeptInFolder(itemID)
        return try removeItemIgnoringLink(itemID: itemID)
    }

    /// Removes an item, of a linked list too: the one way a file gone from its folder leaves (`applyFolder`).
    mutating func removeItemIgnoringLink(itemID: Int) throws(ModelError) -> Outcome {
        let change = try library.makeRemoveItem(itemID: itemID)
        try applyToItem(change)
        filesRead[itemID] = nil
        var outcome = Outcome(changes: [change])
        outcome.append(scheduler.itemsRemoved([itemID], now: clock.now()))
        outcome.append(withDigestInstant(now: clock.now()))
        return numbered(outcome)
    }

    // MARK: Undo

    /// Runs `body`, an operation of the user's (an add, an edit, a batch of them, an import), and says what it did to
    /// items, so that it can be taken back (`undo`): after `continuing`, the step of the same operation's earlier
    /// part (a batch's earlier turns), if there is one. What reminders did meanwhile (a fire, a warning sent, a series
    /// moved on) is not the user's and not in the step.
    public mutating func recordingUndo<Value, Failure: Error>(
        continuing earlier: UndoStep? = nil,
        _ body: (inout ReminderBook) throws(Failure) -> Value
    ) throws(Failure) -> (Value, UndoStep) {
        // One step is one operation of the user's: an undo run inside another operation would lose its redo step.
        precondition(undoRecording == nil, "an undo step is recorded for one operation at a time")
        let touched = earlier?.touches.map { (itemID: $0.itemID, before: $0.before) } ?? []
        undoRecording = (touched, Set(touched.map(\.itemID)))
        defer { undoRecording = nil }
        let value = try body(&self)
        let touches = (undoRecording?.touched ?? []).map { touched in
            UndoStep.Touch(itemID: touched.itemID, before: touched.before, after: library.placed(touched.itemID))
        }
        return (value, UndoStep(touches: touches))
    }

    /// The `changed` event of a change of the user's that `step` recorded, described as `operation` ("import",
    /// "batch") when it is more than one request about one item; nothing if it changed nothing.
    public mutating func reportChange(_ recorded: UndoStep, operation: String? = nil) -> Outcome {
        // An item the operation left as it was (added and removed again, edited to what it was) is not part of it.
        let step = UndoStep(touches: recorded.touches.filter(\.changesItem))
        guard !step.changesNothing else { return Outcome() }
        var outcome = Outcome()
        outcome.events = [
            ReminderEvent(
                .changed,
                of: step,
                text: step.summary(of: operation),
                listName: listName(of: step),
                at: clock.now()
            )
        ]
        outcome = numbered(outcome)
        latestChangeID = outcome.events.last?.id ?? latestChangeID
        return outcome
    }

    /// Takes back the change `event` reported (`changed`, or `undone`: a redo), reported as `undone`, which can be
    /// taken back in turn. The caller read from the history, through event `seenThrough`, that no later change stands
    /// in its way (`ChangesSince`); refused if a change came after that, if a list removal took one of its items, or
    /// if they cannot come back (`whyNotRestorable`), or if an item is not as it left it (`isAsLeft`). All or
    /// nothing: what can refuse it is checked before anything changes.
    public mutating func undoChange(_ event: ReminderEvent, seenThrough: Int) throws(ModelError) -> Outcome {
        if let reason = event.whyNotUndoable { throw .notUndoable(event.id, because: reason) }
        guard let step = event.undo, latestChangeID <= seenThrough else {
            throw .notUndoable(event.id, because: "another change came in while it was checked; try again")
        }
        for touch in step.touches where !touch.isAsLeft(library.placed(touch.itemID)) {
            throw .notUndoable(
                event.id,
                because: library.item(id: touch.itemID) == nil
                    ? "item \(touch.itemID) is gone since, with its list" : "item \(touch.itemID) changed since"
            )
        }
        // `undo` checks whether the items can all come back (`whyNotRestorable`) before it changes anything, then
        // puts them back one at a time, in place (a copy of the book would copy the lists' items at the first write).
        // Every item put back is in the undo, even one its reminder left as the change found it (a snooze spent):
        // the undo and the change cancel out for the changes before it (`ChangesSince`).
        let redo: UndoStep
        var outcome: Outcome
        do {
            (redo, outcome) = try undo(step)
        } catch  where error.code == .unknownList {
            throw .notUndoable(event.id, because: "a list an item of it was in is gone (\(error.description))")
        }
        var done = Outcome()
        done.events = [
            ReminderEvent(
                .undone,
                of: redo,
                // What this undo did to the items, not the change's text again: an undo of an undo would nest them.
                text: "undid event \(event.id): \(redo.summary())",
                listName: listName(of: redo),
                at: clock.now(),
                undid: event.id
            )
        ]
        outcome.append(contentsOf: numbered(done))
        latestChangeID = outcome.events.last?.id ?? latestChangeID
        return outcome
    }

    /// The list of the one item a step touched, as it is now or was; "" for several.
    private func listName(of step: UndoStep) -> String {
        guard step.touches.count == 1, let listID = (step.touches[0].after ?? step.touches[0].before)?.listID else {
            return ""
        }
        return library.list(id: listID)?.name ?? ""
    }

    /// Takes back what `step` did: each item it touched is put back as it was before, with its ID (one it added is
    /// removed), its reminder replaced or cancelled as an edit's would be (`makeRestoreItem`); what the reminder
    /// handled meanwhile stays handled. Refused, changing nothing, if they cannot all come back (`whyNotRestorable`).
    /// The step that takes this undo back in turn comes with the outcome.
    mutating func undo(_ step: UndoStep) throws(ModelError) -> (redo: UndoStep, outcome: Outcome) {
        if let error = library.whyNotRestorable(step) { throw error }
        let (outcome, redo) = try recordingUndo { (book: inout ReminderBook) throws(ModelError) -> Outcome in
            var outcome = Outcome()
            let now = book.clock.now()
            // Items put back on a day whose digest went out follow up together, once, as an import's do.
            book.heldFollowUps = []
            defer { book.heldFollowUps = nil }
            for touch in step.touches {
                if let before = touch.before {
                    let change = try book.library.makeRestoreItem(
                        before,
                        now: now,
                        timeZone: book.timeZone,
                        zones: book.zones
                    )
                    outcome.append(contentsOf: try book.put(change, now: now).1)
                } else if book.library.item(id: touch.itemID) != nil {
                    outcome.append(contentsOf: try book.removeItem(itemID: touch.itemID))
                }
            }
            outcome.append(contentsOf: book.numbered(book.followUp(book.heldFollowUps ?? [], now: now)))
            return outcome
        }
        return (redo, outcome)
    }

    /// Applies a change the user made to an item, noting first, while `recordingUndo` runs, the item as it was.
    private mutating func applyToItem(_ change: ChecklistChange) throws(ModelError) {
        if let itemID = change.itemID { noteForUndo(itemID) }
        try library.apply(change)
    }

    /// While `recordingUndo` runs: notes the item as it is now, if the operation has not changed it yet.
    private mutating func noteForUndo(_ itemID: Int) {
        if undoRecording?.seen.insert(itemID).inserted == true {
            undoRecording?.touched.append((itemID, library.placed(itemID)))
        }
    }

    // MARK: Notifications

    /// What the user did with a reminder's desktop notification, which showed the reminder due at `due`: Done checks
    /// the item off (a recurring item: the occurrence due at `due`, once), Snooze snoozes it for `snoozeLength`; a
    /// notification closed or expired is recorded, and closed by the user it acknowledges the reminder of an item that
    /// nags until seen (`Nag.untilSeen`). Every event says it came from the notification, and Done is
    /// reported as `completed` for a one-shot item too, so the item's timeline shows the check-off.
    public mutating func respond(
        to response: NotificationResponse,
        itemID: Int,
        due: Date,
        snoozeLength: TimeInterval
    ) throws(ModelError) -> Outcome {
        guard let item = library.item(id: itemID), let list = library.list(containing: itemID) else {
            throw ModelError.unknownItem(itemID)
        }
        if response == .done { try refuseIfKeptInFolder(itemID) }
        let now = clock.now()
        let reminder = Reminder(itemID: itemID, text: item.text, listName: list.name, due: due, priority: item.priority)
        var outcome: Outcome
        switch response {
        case .done where item.repeatRule != nil:
            // The occurrence shown, not whichever the series is at now (a check-off since may have moved it on).
            guard
                let change = try library.makeCompletingOccurrence(
                    itemID: itemID,
                    through: due,
                    now: now,
                    timeZone: timeZone,
                    zones: zones
                )
            else { return Outcome() }
            var completed = try put(change, now: now, numbering: false).1
            completed.events.insert(ReminderEvent(.completed, of: reminder, at: now), at: 0)
            outcome = numbered(completed)
        case .done where item.repeatAfter != nil && (item.dueDate.map { $0 > due } ?? true):
            // The round the notification showed was done another way since, and the item is in its next round.
            return Outcome()
        case .done:
            outcome = try editItem(itemID: itemID, ItemEdit(checked: true)).1
            // An item that repeats after completion has its check-off reported by the edit.
            if !item.checked, !outcome.events.contains(where: { $0.kind == .completed }) {
                var completed = Outcome()
                completed.events = [ReminderEvent(.completed, of: reminder, at: now)]
                outcome.append(contentsOf: numbered(completed))
            }
        case .snooze:
            outcome = try snoozeItem(itemID: itemID, until: now + snoozeLength).1
        case .dismissed, .expired:
            var noted = Outcome()
            noted.events = [ReminderEvent(response == .dismissed ? .dismissed : .expired, of: reminder, at: now)]
            outcome = numbered(noted)
            // An item that nags until seen takes a notification closed by the user as seen.
            if response == .dismissed, item.nag?.untilSeen == true {
                outcome.append(contentsOf: try acknowledgeItem(itemID: itemID))
            }
        }
        for index in outcome.events.indices { outcome.events[index].source = .notification }
        return outcome
    }

    // MARK: Calendar

    /// Every item, or those of list `listID`, as an iCalendar document of tasks in item-ID order (`nudge export`),
    /// which `importTasks` reads back to the same items.
    public func calendarDocument(listID: Int? = nil) -> String {
        let entries = library.lists.filter { listID == nil || $0.listID == listID }
            .flatMap { list in list.items.map { (item: $0, list: list) } }
            .sorted { $0.item.itemID < $1.item.itemID }
        return CalendarInterchange.document(of: entries, storeID: library.storeID, timeZone: timeZone, zones: zones)
    }

    /// Imports tasks read from an iCalendar file (`CalendarInterchange.tasks(in:timeZone:zones:)`), in order. A task
    /// updates the item it came from: the one its UID names (a UID nudge made for this store, or one an imported
    /// item keeps), or, for a task without a UID (calcurse writes none), an item with the same text. Otherwise it is
    /// added to `listID`. A task its item already matches changes nothing, so importing a file twice is the same as
    /// importing it once. A task the model refuses (a repeat rule with no occurrence left) is skipped, with why.
    public mutating func importTasks(_ tasks: [CalendarTask], into listID: Int) throws(ModelError) -> (
        [CalendarImportResult], Outcome
    ) {
        guard let target = library.list(id: listID) else { throw .unknownList(listID) }
        if target.link != nil { throw .linkedListTakesNoItems(target) }
        var byUID: [String: Int] = [:]
        var linkedUIDs: [String: Int] = [:]
        for list in library.lists {
            for item in list.items {
                if let uid = item.calendarUID {
                    if list.link == nil { byUID[uid] = item.itemID } else { linkedUIDs[uid] = item.itemID }
                }
            }
        }
        func item(uid: String) -> Int? {
            let own = CalendarInterchange.itemID(fromUID: uid, storeID: library.storeID)
            return own.flatMap { library.item(id: $0) != nil ? $0 : nil } ?? byUID[uid]
        }
        // A task without a UID may take an item that is no other program's and that no task of this file names by
        // UID; two tasks with the same text take two items, the same two at every import.
        let named = Set(tasks.compactMap { $0.uid.flatMap(item(uid:)) })
        var byText: [String: [Int]] = [:]
        for list in library.lists where list.link == nil {
            for item in list.items where item.calendarUID == nil && !named.contains(item.itemID) {
                byText[item.text, default: []].append(item.itemID)
            }
        }
        for text in byText.keys { byText[text]?.sort(by: >) }
        var results: [CalendarImportResult] = []
        var outcome = Outcome()
        heldFollowUps = []
        defer { heldFollowUps = nil }
        for task in tasks {
            var result = CalendarImportResult(
                line: task.line,
                uid: task.uid,
                summary: task.text,
                outcome: .unchanged,
                notes: task.notes
            )
            var itemID = task.uid.map(item(uid:)) ?? byText[task.text]?.popLast()
            if itemID == nil, let uid = task.uid { itemID = linkedUIDs[uid] }
            do throws(ModelError) {
                // A linked list's task changes in its folder alone (whichever UID names it: its file's, or one an
                // export of it made); the import says so and goes on.
                if let itemID, let list = library.list(containing: itemID), list.link != nil {
                    result.itemID = itemID
                    throw ModelError.keptInFolder(itemID, fileName: library.item(id: itemID)?.fileName, list: list)
                }
                try bring(task, into: itemID, orNewIn: listID, result: &result, outcome: &outcome)
            } catch {
                if result.outcome == .unchanged { result.outcome = .skipped }
                result.notes.insert(error.description, at: 0)
            }
            results.append(result)
        }
        let held = heldFollowUps ?? []
        heldFollowUps = nil
        outcome.append(contentsOf: numbered(followUp(held, now: clock.now())))
        return (results, outcome)
    }

    /// Brings `task` into item `itemID` (an edit, where they differ), or into a new item of `listID` (kept in the file
    /// `fileName` of a linked list's folder): what an import and a linked folder do with each task. `result` says
    /// which item, what was done, and what of the task was not taken; `outcome` gets each change as it is made, so that
    /// one made before a refusal (an item added, then refused its check-off) is kept.
    mutating func bring(
        _ task: CalendarTask,
        into itemID: Int?,
        orNewIn listID: Int,
        fileName: String? = nil,
        result: inout CalendarImportResult,
        outcome: inout Outcome
    ) throws(ModelError) {
        if let itemID, let item = library.item(id: itemID) {
            result.itemID = itemID
            if let edit = edit(bringing: item, to: task) {
                outcome.append(contentsOf: try editItemIgnoringLink(itemID: itemID, edit).1)
                result.outcome = .updated
                if edit.checked == true, task.repeatAfter != nil { result.notes.append(Self.roundCompleted) }
            }
        } else {
            let (item, added) = try addItemIgnoringLink(
                NewItem(
                    text: task.text,
                    listID: listID,
                    dueDate: task.dueDay == nil ? task.dueDate : nil,
                    dueDay: task.dueDay,
                    shouldRemind: task.shouldRemind,
                    repeatRule: task.repeatRule,
                    repeatAfter: task.repeatAfter,
                    priority: task.priority,
                    warnings: task.warnings,
                    calendarUID: task.uid,
                    fileName: fileName
                )
            )
            // In the outcome at once: the item is in the library, whatever the check-off below does.
            outcome.append(contentsOf: added)
            (result.itemID, result.outcome) = (item.itemID, .created)
            if task.checked, task.repeatRule == nil {
                let checkOff = ItemEdit(checked: true, completedAt: task.completedAt)
                outcome.append(contentsOf: try editItemIgnoringLink(itemID: item.itemID, checkOff).1)
                if task.repeatAfter != nil { result.notes.append(Self.roundCompleted) }
            }
        }
        if task.checked, task.repeatRule != nil {
            result.notes.append("a completed recurring task: imported open, at its next occurrence")
        }
    }

    /// What an import says of a completed task that repeats after completion.
    private static let roundCompleted = "completed, and it repeats after completion: open again, due that long after"

    /// The edit that makes `item` hold what `task` says, or nil if it already does. Instants compare to the whole
    /// second (a file holds no fractions); a recurring item's due date, as the series would start from the task's.
    private func edit(bringing item: ChecklistItem, to task: CalendarTask) -> ItemEdit? {
        let sameSecond = Self.sameSecond
        var edit = ItemEdit()
        var changed = false
        if item.text != task.text { (edit.text, changed) = (task.text, true) }
        if item.priority != task.priority { (edit.priority, changed) = (task.priority, true) }
        if item.shouldRemind != task.shouldRemind { (edit.shouldRemind, changed) = (task.shouldRemind, true) }
        // A task without alarms says nothing of warnings: an item that does not remind keeps its own.
        if task.shouldRemind, item.warnings != task.warnings { (edit.warnings, changed) = (task.warnings, true) }
        if let rule = task.repeatRule {
            // Where each series stands now: an occurrence that passed, or was checked off early, since the file was
            // written leaves a DUE behind the item's, which is no change.
            let now = clock.now()
            func series(from due: Date?) -> Date? {
                due.flatMap {
                    try? ChecklistLibrary.startSeries(rule, from: $0, now: now, in: timeZone, zones: zones).first
                }
            }
            let passed = task.dueDate.map { due in item.completedThrough.map { due <= $0 } ?? false } ?? true
            // A recurrence comes back counted from the occurrence it was due at when exported.
            func parsed(_ text: String) -> RepeatRule? { try? RepeatRule(text, localZone: timeZone, zones: zones) }
            let sameRule =
                item.repeatRule == rule
                || item.repeatRule.flatMap(parsed).flatMap { held in
                    parsed(rule).map { held.isSameSeries(as: $0, in: timeZone, zones: zones) }
                } ?? false
            if !sameRule
                || (!passed && !sameSecond(series(from: item.dueDate), series(from: task.dueDate)))
            {
                (edit.repeatRule, edit.dueDate, changed) = (rule, task.dueDate, true)
            }
        } else {
            if item.repeatRule != nil { (edit.clearsRepeat, changed) = (true, true) }
            if item.repeatAfter != task.repeatAfter {
                if let length = task.repeatAfter { edit.repeatAfter = length } else { edit.clearsRepeat = true }
                changed = true
            }
            if task.repeatAfter != nil {
                // A file written before the item's last round was done (its DUE at or before the due date that round
                // completed, or none) says nothing of the round it is in now: an import of it again changes neither.
                let stale = item.completedThrough.map { done in task.dueDate.map { $0 <= done } ?? true } ?? false
                // Another program checked off a task that repeats after completion: that completes the item's round
                // if the file says the round's due date.
                let sameRound = task.dueDay.map { $0 == item.dueDay } ?? sameSecond(item.dueDate, task.dueDate)
                if task.checked, !stale, sameRound, !item.checked {
                    (edit.checked, edit.completedAt, changed) = (true, task.completedAt, true)
                }
                if task.checked || stale { return changed ? edit : nil }
            }
            if item.checked != task.checked { (edit.checked, changed) = (task.checked, true) }
            // An item checked off before nudge kept the moment was exported with its last change as COMPLETED.
            if task.checked, let completedAt = task.completedAt, !sameSecond(item.completedAt, completedAt),
                item.completedAt != nil || !sameSecond(item.updatedAt, completedAt)
            {
                (edit.completedAt, changed) = (completedAt, true)
            }
            if let day = task.dueDay {
                if item.dueDay != day { (edit.dueDay, changed) = (day, true) }
            } else if item.dueDay != nil || !sameSecond(item.dueDate, task.dueDate) {
                if let due = task.dueDate { edit.dueDate = due } else { edit.clearsDueDate = true }
                changed = true
            }
        }
        return changed ? edit : nil
    }

    /// Whether two instants are the same to the whole second, as a calendar file says instants.
    static func sameSecond(_ a: Date?, _ b: Date?) -> Bool {
        a.map { $0.timeIntervalSince1970.rounded(.down) } == b.map { $0.timeIntervalSince1970.rounded(.down) }
    }

    /// Refuses a change of nudge's to an item its linked list's folder keeps: the folder's file is its truth.
    private func refuseIfKeptInFolder(_ itemID: Int) throws(ModelError) {
        if let list = library.list(containing: itemID), list.link != nil {
            throw .keptInFolder(itemID, fileName: library.item(id: itemID)?.fileName, list: list)
        }
    }

    // MARK: Private

    private mutating func put(_ change: ChecklistChange, now: Date, numbering: Bool = true) throws(ModelError) -> (
        ChecklistItem, Outcome
    ) {
        // The name alone: a copy of the list held across `apply` would make it copy all of the list's items.
        guard case .putItem(let item, let listID) = change, let listName = library.list(id: listID)?.name else {
            preconditionFailure("an item change must put an item into an existing list: \(change)")
        }
        // Whether a digest of today brought it already: listed, in a list whose digest went out.
        let today = CalendarDay(containing: now, in: timeZone)
        let wasBrought =
            library.item(id: item.itemID)?.isListed(inDigestOf: today) == true
            && library.list(containing: item.itemID).map { Self.digestWentOut($0, on: today) } == true
        try applyToItem(change)
        var outcome = Outcome(changes: [change])
        outcome.append(scheduler.itemChanged(item, listName: listName, now: now))
        // Due this very moment (`--due now`): it fires now, in the same operation, not at the timer's next wake-up.
        if let next = scheduler.nextDue, next <= now {
            outcome.append(contentsOf: recordingHandled(scheduler.advance(to: now), numbering: false))
        }
        // Put on a day whose digest went out: it follows at once (an import holds them for one follow-up).
        if !wasBrought, item.isListed(inDigestOf: today) {
            if heldFollowUps != nil {
                heldFollowUps?.append(item.itemID)
            } else {
                outcome.append(contentsOf: followUp([item.itemID], now: now))
            }
        }
        outcome.append(withDigestInstant(now: now))
        return (library.item(id: item.itemID) ?? item, numbering ? numbered(outcome) : outcome)
    }

    /// Turns every fired, warned, missed or renotified decision into a change that records it as handled. After a
    /// reminder or a repeat (not a warning, which leaves it pending), an item that still wants one has it scheduled
    /// (reported as `scheduled`): a recurring item's next occurrence, the due date of one snoozed to before it, or the
    /// next repeat of a fire awaiting acknowledgement.
    private mutating func recordingHandled(_ output: SchedulerOutput, numbering: Bool = true) -> Outcome {
        var outcome = Outcome()
        outcome.append(output)
        let now = clock.now()
        // The items exist: the scheduler only holds reminders of items in the library.
        let handled: Set<ReminderEvent.Kind> = [.fired, .missed, .warned, .renotified]
        for event in output.events where handled.contains(event.kind) {
            let change: ChecklistChange?
            if event.kind == .renotified {
                change = event.repeatNumber.flatMap { try? library.makeMarkRepeated(itemID: event.itemID, number: $0) }
            } else if event.warning != nil {
                change = try? library.makeMarkWarned(itemID: event.itemID, instant: event.instant)
            } else {
                change = try? library.makeMarkHandled(
                    itemID: event.itemID,
                    due: event.due,
                    fired: event.kind == .fired,
                    now: now,
                    timeZone: timeZone,
                    zones: zones
                )
            }
            guard let change else { continue }
            try? library.apply(change)
            outcome.changes.append(change)
            if event.warning == nil, case .putItem(let item, _) = change,
                item.wantsReminder(at: now) || item.nextRepeat != nil
            {
                outcome.append(scheduler.itemChanged(item, listName: event.listName, now: now))
            }
        }
        return numbering ? numbered(outcome) : outcome
    }

    /// Gives the outcome's events their IDs, as they were decided. Every operation that reports events ends here.
    mutating func numbered(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        library.allocateIDs(for: &outcome.events)
        return outcome
    }
}
