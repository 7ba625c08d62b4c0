import Foundation

/// A change to some of an item's fields; fields left nil stay as they are.
public struct ItemEdit: Sendable, Hashable {
    public var text: String?
    public var checked: Bool?
    /// When the item was checked off, if not at the edit: a task another program completed (its COMPLETED). Sets the
    /// completion of an item that is, or is being, checked off.
    public var completedAt: Date?
    /// A new due date. To remove the due date, set `clearsDueDate` instead.
    public var dueDate: Date?
    /// A new due day, without a time, instead of `dueDate` (one or the other; both are refused).
    public var dueDay: CalendarDay?
    public var clearsDueDate: Bool
    public var shouldRemind: Bool?
    /// Moves the item to another list.
    public var listID: Int?
    /// A new repeat rule (a systemd calendar expression), in place of any repeat after completion. To end the
    /// series, set `clearsRepeat` instead.
    public var repeatRule: String?
    /// A new length to repeat after completion (`RepeatAfter`), in seconds, in place of any repeat rule.
    public var repeatAfter: TimeInterval?
    /// Ends the repeating, whichever kind: the item no longer repeats.
    public var clearsRepeat: Bool
    public var priority: Priority?
    /// A catch-up rule of the item's own. To go back to the daemon's, set `clearsCatchUp` instead.
    public var catchUp: CatchUp?
    public var clearsCatchUp: Bool
    /// New advance warnings (`Warnings`); empty removes them.
    public var warnings: [TimeInterval]?
    /// A new nag (`Nag`). To stop nagging, set `clearsNag` instead.
    public var nag: Nag?
    public var clearsNag: Bool

    public init(
        text: String? = nil,
        checked: Bool? = nil,
        completedAt: Date? = nil,
        dueDate: Date? = nil,
        dueDay: CalendarDay? = nil,
        clearsDueDate: Bool = false,
        shouldRemind: Bool? = nil,
        listID: Int? = nil,
        repeatRule: String? = nil,
        repeatAfter: TimeInterval? = nil,
        clearsRepeat: Bool = false,
        priority: Priority? = nil,
        catchUp: CatchUp? = nil,
        clearsCatchUp: Bool = false,
        warnings: [TimeInterval]? = nil,
        nag: Nag? = nil,
        clearsNag: Bool = false
    ) {
        self.text = text
        self.checked = checked
        self.completedAt = completedAt
        self.dueDate = dueDate
        self.dueDay = dueDay
        self.clearsDueDate = clearsDueDate
        self.shouldRemind = shouldRemind
        self.listID = listID
        self.repeatRule = repeatRule
        self.repeatAfter = repeatAfter
        self.clearsRepeat = clearsRepeat
        self.priority = priority
        self.catchUp = catchUp
        self.clearsCatchUp = clearsCatchUp
        self.warnings = warnings
        self.nag = nag
        self.clearsNag = clearsNag
    }
}
