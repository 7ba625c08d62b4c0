/// One durable change to the checklists. The store persists changes, not snapshots, so that a change log can
/// later replace whole-file rewrites without touching anything above the store.
public enum ChecklistChange: Sendable, Equatable {
    /// A new, empty list. Applying it advances `nextListID` past its ID.
    case addList(Checklist)
    /// A list's name or icon changed.
    case updateList(listID: Int, name: String, iconName: IconName)
    /// A list and every item in it are gone. If it was the chosen default, the default falls back to the oldest list.
    case removeList(listID: Int)
    /// Items added without a list go to this one from now on.
    case setDefaultList(listID: Int)
    /// The list is kept in a folder of task files from now on, with these settings (`ListLink`); nil: no longer.
    case setLink(listID: Int, link: ListLink?)
    /// The list's items due on a day come in the day's digest at this time (seconds after midnight); nil: nudged's.
    case setDigestTime(listID: Int, digestTime: Int?)
    /// The list's digest of `day` went out (or had nothing to bring).
    case markDigestSent(listID: Int, day: CalendarDay)
    /// An item was added, edited or moved to `listID`. Applying it advances `nextItemID` past its ID.
    case putItem(ChecklistItem, listID: Int)
    /// An item is gone. Its ID is never handed out again.
    case removeItem(itemID: Int)
}
