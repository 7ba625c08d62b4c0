import Foundation

/// What a new item is made of; the library gives it its ID and its creation time. (`ItemEdit` is its mirror for
/// an item that exists.) nudged maps the API's `Components.Schemas.NewItem` to it in `Wire+ToCore.swift`.
public struct NewItem: Sendable, Hashable {
    public var text: String
    public var listID: Int
    public var dueDate: Date?
    /// A day without a time, instead of `dueDate` (one or the other; both are refused). With a repeat rule, the day
    /// the series starts on.
    public var dueDay: CalendarDay?
    public var shouldRemind: Bool
    /// A systemd calendar expression: the item recurs, due at the rule's first occurrence at or after `dueDate`.
    public var repeatRule: String?
    /// Repeat after completion (`RepeatAfter`), in seconds; not with `repeatRule`.
    public var repeatAfter: TimeInterval?
    public var priority: Priority
    /// A catch-up rule of the item's own; nil follows the daemon's.
    public var catchUp: CatchUp?
    /// Advance warnings (`Warnings`).
    public var warnings: [TimeInterval]
    /// How its reminder repeats while not acknowledged; nil: it fires once.
    public var nag: Nag?
    /// The UID of the iCalendar task it was imported from.
    public var calendarUID: String?
    /// The file of its linked list's folder that holds it.
    public var fileName: String?

    public init(
        text: String,
        listID: Int,
        dueDate: Date? = nil,
        dueDay: CalendarDay? = nil,
        shouldRemind: Bool = false,
        repeatRule: String? = nil,
        repeatAfter: TimeInterval? = nil,
        priority: Priority = .normal,
        catchUp: CatchUp? = nil,
        warnings: [TimeInterval] = [],
        nag: Nag? = nil,
        calendarUID: String? = nil,
        fileName: String? = nil
    ) {
        self.text = text
        self.listID = listID
        self.dueDate = dueDate
        self.dueDay = dueDay
        self.shouldRemind = shouldRemind
        self.repeatRule = repeatRule
        self.repeatAfter = repeatAfter
        self.priority = priority
        self.catchUp = catchUp
        self.warnings = warnings
        self.nag = nag
        self.calendarUID = calendarUID
        self.fileName = fileName
    }
}
