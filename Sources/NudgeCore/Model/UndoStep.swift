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

    /// The most items a step keeps: a change of more (a large import) is reported, but not kept to be taken back, so
    /// that an event and the store's record of it stay small (docs/RELIABILITY.md).
    public static let maximumItems = 1_000

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

/// The changes of the user's after one to take back, as far as they bear on it, read from the history in order: a
/// later change stands in its way if it touched one of its items, unless a later undo took it back (a change and its
/// undo leave the items as they were, so that changes can be taken back one after another, newest first).
public struct ChangesSince: Sendable {
    /// A later change that was not taken back: its items, and what it undid, if it is an undo.
    private var standing: [Int: (itemIDs: [Int], undid: Int?)] = [:]

    public init() {}

    /// The next change, in the history's order (a `changed` or `undone` event).
    public mutating func add(_ event: ReminderEvent) {
        if let undid = event.undid, standing[undid] != nil {
            standing[undid] = nil
        } else {
            standing[event.id] = (event.itemIDs ?? [], event.undid)
        }
    }

    /// The first later change standing in the way of taking back `event`, and the item it touched; nil if none.
    public func blocking(_ event: ReminderEvent) -> (eventID: Int, itemID: Int, undidIt: Bool)? {
        let items = Set(event.itemIDs ?? [])
        return standing.compactMap { id, change in
            change.itemIDs.first(where: items.contains).map {
                (eventID: id, itemID: $0, undidIt: change.undid == event.id)
            }
        }.min { $0.eventID < $1.eventID }
    }

    /// Why `event` cannot be taken back after these changes; nil if it can.
    public func whyNotUndoable(_ event: ReminderEvent) -> String? {
        guard event.kind.isChange else { return "it is a \(event.kind.rawValue) event, not a change of yours" }
        if let blocking = blocking(event) {
            return blocking.undidIt
                ? "event \(blocking.eventID) undid it already"
                : "event \(blocking.eventID) changed item \(blocking.itemID) since; undo that first"
        }
        guard event.undo != nil else {
            return "it changed \(event.itemIDs?.count ?? 0) items, more than undo keeps (\(UndoStep.maximumItems))"
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

    /// Whether the item is as the step left it, but for what its reminder did since (a fire, a warning sent, a
    /// snooze spent, a series moved on): otherwise something else changed it, and putting it back would undo that
    /// too.
    func isAsLeft(_ current: UndoStep.Placed?) -> Bool {
        guard var left = after, let current else { return after == nil && current == nil }
        guard left.listID == current.listID else { return false }
        let now = current.item
        left.item.lastFiredAt = now.lastFiredAt
        left.item.warnedThrough = now.warnedThrough
        // A change and its undo since leave the item as it was but for this: an undo is an edit at its instant.
        left.item.updatedAt = now.updatedAt
        if now.snoozedUntil == nil { left.item.snoozedUntil = nil }
        if now.repeatRule != nil && now.lastFiredAt != after?.item.lastFiredAt { left.item.dueDate = now.dueDate }
        return left.item == now
    }
}

extension ChecklistChange {
    /// The item the change puts or removes; nil for a change to a list.
    var itemID: Int? {
        switch self {
        case .putItem(let item, _): item.itemID
        case .removeItem(let itemID): itemID
        case .addList, .updateList, .removeList, .setDefaultList, .setDigestTime, .markDigestSent: nil
        }
    }
}

extension ChecklistLibrary {
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
        // A task of another program is one item: one imported again since this one was removed keeps it.
        if let uid = item.calendarUID,
            let holder = lists.lazy.flatMap(\.items).first(where: { $0.calendarUID == uid && $0.itemID != item.itemID })
        {
            throw .calendarTaskTaken(uid, by: holder.itemID)
        }
        if let current = self.item(id: item.itemID) {
            item.lastFiredAt = [item.lastFiredAt, current.lastFiredAt].compactMap { $0 }.max()
            item.warnedThrough = [item.warnedThrough, current.warnedThrough].compactMap { $0 }.max()
        }
        if item.snoozedUntil.map({ $0 <= now }) ?? false { item.snoozedUntil = nil }
        Self.catchUpSeries(&item, now: now, in: timeZone, zones: zones)
        item.updatedAt = now
        return .putItem(item, listID: placed.listID)
    }
}
