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

    public init(touches: [Touch]) {
        self.touches = touches
    }

    /// The items it touched.
    public var itemIDs: [Int] { touches.map(\.itemID) }

    /// It changed nothing (every item touched is as it was), so there is nothing to take back.
    public var changesNothing: Bool { touches.allSatisfy { $0.before == $0.after } }
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
