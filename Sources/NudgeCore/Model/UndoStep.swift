import Foundation
import NudgeCalendar

/// What one of the user's changes did to items, so that it can be taken back (`ReminderBook.undo`): each item it
/// touched, as it was before (nil: the change added it) and after (nil: the change removed it). Taking it back puts
/// each item back as it was before, with the same ID, and gives the step that takes the undo back in turn.
///
/// Items only: the changes to lists (adding, renaming, removing one) are not in it.
public struct UndoStep: Sendable, Equatable {
    /// An item and the list it is in.
    public struct Placed: Sendable, Equatable {
        public var item: ChecklistItem
        public var listID: Int

        public init(_ item: ChecklistItem, in listID: Int) {
            self.item = item
            self.listID = listID
        }
    }

    /// One item the change touched.
    public struct Touch: Sendable, Equatable {
        public var itemID: Int
        public var before: Placed?
        public var after: Placed?

        public init(itemID: Int, before: Placed?, after: Placed?) {
            self.itemID = itemID
            self.before = before
            self.after = after
        }
    }

    /// In the order the change first touched them.
    public var touches: [Touch]

    /// The most items a step keeps, and the most bytes of their text (before and after): a change of more (a large
    /// import, a batch of long items) is reported, but not kept to be taken back, so that an event and the store's
    /// record of it stay small (docs/RELIABILITY.md).
    public static let maximumItems = 1_000
    public static let maximumTextBytes = 4 << 20

    /// Small enough to keep (`maximumItems`, `maximumTextBytes`).
    public var isKeepable: Bool {
        guard touches.count <= Self.maximumItems else { return false }
        let images = touches.flatMap { [$0.before, $0.after].compactMap { $0?.item.text.utf8.count } }
        return images.reduce(0, +) <= Self.maximumTextBytes
    }

    public init(touches: [Touch]) {
        self.touches = touches
    }

    /// The items it touched.
    public var itemIDs: [Int] { touches.map(\.itemID) }

    /// It changed nothing, so there is nothing to take back.
    public var changesNothing: Bool { touches.isEmpty }

    /// How a person would say what the step did: for one item, what happened to it ("checked off “Buy milk”"); for
    /// several, how many were added, changed and removed, after `operation` ("import", "batch") if it is named.
    public func summary(of operation: String? = nil) -> String {
        if touches.count == 1, operation == nil { return touches[0].summary }
        let added = touches.count { $0.before == nil && $0.after != nil }
        let removed = touches.count { $0.before != nil && $0.after == nil }
        let edited = touches.count { $0.before != nil && $0.after != nil && $0.before != $0.after }
        let parts = [(added, "added"), (edited, "changed"), (removed, "removed")].filter { $0.0 > 0 }
            .map { "\($0.0) \($0.1)" }
        let items = touches.count == 1 ? "1 item" : "\(touches.count) items"
        return [operation, "\(items) (\(parts.joined(separator: ", ")))"].compactMap { $0 }.joined(separator: ": ")
    }
}

/// Whether a change can be taken back, from the changes of the user's after it, read from the history in order.
///
/// Each of the change's items is followed through the later changes as a version: the change left it at one; a later
/// change moves it to a new one, except an undo of a change whose result the item still holds, which moves it back to
/// the version it had before that change. The change can be taken back while each of its items is at the version it
/// left: so a later change and its undo cancel out, and changes can be taken back one after another, newest first.
public struct ChangesSince: Sendable {
    /// The change to take back.
    public let change: ReminderEvent
    /// Each of the change's items: its version now.
    private var version: [Int: Int] = [:]
    /// The version each of the change's items had before and after each change followed so far.
    private var moves: [Int: [Int: (before: Int, after: Int)]] = [:]
    /// Each item: the last change that moved it.
    private var lastMoved: [Int: Int] = [:]
    /// The last later change that undid this one, if one did.
    private var undoneBy: Int?
    private var versions = 0

    public init(of change: ReminderEvent) {
        self.change = change
        var moved: [Int: (before: Int, after: Int)] = [:]
        for itemID in change.itemIDs ?? [] {
            moved[itemID] = (newVersion(), newVersion())
            version[itemID] = moved[itemID]?.after
        }
        moves[change.id] = moved
    }

    private mutating func newVersion() -> Int {
        versions += 1
        return versions
    }

    /// The next change after it, in the history's order (a `changed` or `undone` event; others are passed over).
    public mutating func add(_ later: ReminderEvent) {
        guard later.kind.isChange, later.id > change.id else { return }
        var moved: [Int: (before: Int, after: Int)] = [:]
        for itemID in later.itemIDs ?? [] {
            guard let before = version[itemID] else { continue }
            // An undo of a change whose result the item holds gives it back the version it had before that change.
            let undone = later.undid.flatMap { moves[$0]?[itemID] }
            let after = undone.flatMap { $0.after == before ? $0.before : nil } ?? newVersion()
            moved[itemID] = (before, after)
            version[itemID] = after
            lastMoved[itemID] = later.id
        }
        if later.undid == change.id, !moved.isEmpty { undoneBy = later.id }
        if !moved.isEmpty { moves[later.id] = moved }
    }

    /// Why the change cannot be taken back after the changes added; nil if it can.
    public var whyNotUndoable: String? {
        if let reason = change.whyNotUndoable { return reason }
        let left = moves[change.id] ?? [:]
        let moved = (change.itemIDs ?? []).compactMap { itemID in
            version[itemID] == left[itemID]?.after ? nil : lastMoved[itemID].map { (itemID: itemID, by: $0) }
        }
        // The newest change that moved one: the one to take back first; unless an undo of this change put its items
        // back as they were before it.
        guard let last = moved.max(by: { $0.by < $1.by }) else { return nil }
        if let undoneBy, moved.allSatisfy({ version[$0.itemID] == left[$0.itemID]?.before }) {
            return "event \(undoneBy) undid it already"
        }
        return "event \(last.by) changed item \(last.itemID) since; undo that first"
    }
}

extension ReminderEvent {
    /// Why this event, whatever came after it, cannot be taken back: it is not a change, or not one undo kept; nil
    /// if it may be.
    public var whyNotUndoable: String? {
        guard kind.isChange else { return "it is a \(kind.rawValue) event, not a change of yours" }
        guard undo != nil else {
            return "what it did to its \(itemIDs?.count ?? 0) items was not kept (undo keeps up to "
                + "\(UndoStep.maximumItems) items and \(UndoStep.maximumTextBytes >> 20) MiB of their text)"
        }
        return nil
    }
}

extension UndoStep.Touch {
    /// What happened to the item, as a person would say it.
    var summary: String {
        switch (before?.item, after?.item) {
        case (nil, let after?): "added \(Self.quoted(after.text))"
        case (let before?, nil): "removed \(Self.quoted(before.text))"
        case (let before?, let after?):
            if !before.checked && after.checked {
                "checked off \(Self.quoted(after.text))"
            } else if before.checked && !after.checked {
                "reopened \(Self.quoted(after.text))"
            } else if before.completedThrough != after.completedThrough {
                "completed \(Self.quoted(after.text)) once"
            } else if before.snoozedUntil != after.snoozedUntil, after.snoozedUntil != nil {
                "snoozed \(Self.quoted(after.text))"
            } else {
                "edited \(Self.quoted(after.text))"
            }
        case (nil, nil): "changed nothing"
        }
    }

    /// An item's text as a summary names it: on one line, its first 60 characters (an item's text may be a
    /// megabyte; the event says which item it was, not all of it).
    private static func quoted(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "“" + (line.count > 60 ? line.prefix(59) + "…" : line) + "”"
    }

    /// Whether it changed the item as the user sees it (`userView`): an edit of nothing, a check-off of an item
    /// checked off already, does not, and is not part of a change.
    var changesItem: Bool {
        before?.listID != after?.listID || before.map { Self.userView($0.item) } != after.map { Self.userView($0.item) }
    }

    /// Whether the item is as the step left it, as the user sees it, and in the same list (or gone, as it left it).
    /// A change of the user's since is the history's to say (`ChangesSince`); this sees what changed it without one:
    /// a list removal, a batch cut short by a stop, whose part applied was not reported.
    func isAsLeft(_ current: UndoStep.Placed?) -> Bool {
        guard let left = after, let current else { return after == nil && current == nil }
        var view = Self.userView(left.item)
        // A snooze spent since: a fire, or an undo at a later instant, clears it.
        if current.item.snoozedUntil == nil { view.snoozedUntil = nil }
        return left.listID == current.listID && view == Self.userView(current.item)
    }

    /// An item as the user sees it: without when it was last changed, and without what its reminder did (the last
    /// fire, the warnings sent, whether a fire was acknowledged, a series moved on to its next occurrence).
    static func userView(_ item: ChecklistItem) -> ChecklistItem {
        var view = item
        view.updatedAt = .distantPast
        view.lastFiredAt = nil
        view.warnedThrough = nil
        view.acknowledge()
        if view.repeatRule != nil { view.dueDate = nil }
        return view
    }
}

extension ChecklistChange {
    /// The item the change puts or removes; nil for a change to a list.
    var itemID: Int? {
        switch self {
        case .putItem(let item, _): item.itemID
        case .removeItem(let itemID): itemID
        case .addList, .updateList, .removeList, .setDefaultList, .setDigestTime, .markDigestSent, .setLink: nil
        }
    }
}

extension ChecklistLibrary {
    /// Why the items `step` held before cannot all come back: a list one was in is gone, or is kept in a folder now
    /// and it is not there (a linked list's items are its folder's), or the calendar task one came from is another
    /// item's now (one imported again since it was removed); nil if they can. One pass over the items, whatever the
    /// step holds.
    func whyNotRestorable(_ step: UndoStep) -> ModelError? {
        let befores = step.touches.compactMap(\.before)
        if let gone = befores.first(where: { list(id: $0.listID) == nil }) { return .unknownList(gone.listID) }
        for before in befores {
            if let list = list(id: before.listID), list.link != nil,
                self.list(containing: before.item.itemID)?.listID != list.listID
            {
                return .linkedListTakesNoItems(list)
            }
        }
        // A linked list's item is its file's: an undo may take back what nudge keeps alone (a snooze), not what the
        // file says (its text, due date, priority, completion), nor make or remove an item.
        for touch in step.touches {
            guard let list = list(containing: touch.itemID), list.link != nil else { continue }
            let now = item(id: touch.itemID)
            guard let before = touch.before?.item, let now, Self.sameInFile(before, now) else {
                return .keptInFolder(touch.itemID, fileName: now?.fileName, list: list)
            }
        }
        let uids = Set(befores.compactMap(\.item.calendarUID))
        guard !uids.isEmpty else { return nil }
        let touched = Set(step.itemIDs)
        for list in lists {
            for item in list.items where !touched.contains(item.itemID) {
                if let uid = item.calendarUID, uids.contains(uid) { return .calendarTaskTaken(uid, by: item.itemID) }
            }
        }
        return nil
    }

    /// Whether two states of a linked list's item say the same in its file.
    private static func sameInFile(_ a: ChecklistItem, _ b: ChecklistItem) -> Bool {
        // A recurring item's due date moves on as its occurrences fire, which its file does not say.
        a.text == b.text && (a.dueDate == b.dueDate || a.repeatRule != nil) && a.dueDay == b.dueDay
            && a.priority == b.priority && a.checked == b.checked && a.repeatRule == b.repeatRule
            && a.fileName == b.fileName
    }

    /// An item and its list, as an undo step keeps it.
    func placed(_ itemID: Int) -> UndoStep.Placed? {
        guard let item = item(id: itemID), let listID = list(containing: itemID)?.listID else { return nil }
        return UndoStep.Placed(item, in: listID)
    }

    /// A change that puts an item back as `placed` holds it (an undo), as an edit at `now`: what its reminder handled
    /// since stays handled (the instant last fired, the warnings settled), so nothing fires twice; a series that fell
    /// behind is due at its next occurrence, and a snooze already past is spent, as after any edit.
    public func makeRestoreItem(_ placed: UndoStep.Placed, now: Date, timeZone: TimeZone, zones: ZoneRulesStore)
        throws(ModelError) -> ChecklistChange
    {
        guard list(id: placed.listID) != nil else { throw .unknownList(placed.listID) }
        var item = placed.item
        if let current = self.item(id: item.itemID) {
            item.lastFiredAt = [item.lastFiredAt, current.lastFiredAt].compactMap { $0 }.max()
            item.warnedThrough = [item.warnedThrough, current.warnedThrough].compactMap { $0 }.max()
        }
        if item.snoozedUntil.map({ $0 <= now }) ?? false { item.snoozedUntil = nil }
        Self.catchUpSeries(&item, now: now, in: timeZone, zones: zones)
        item.acknowledge()
        item.updatedAt = now
        return .putItem(item, listID: placed.listID)
    }
}
