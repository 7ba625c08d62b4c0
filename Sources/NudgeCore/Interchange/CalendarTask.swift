import Foundation
import NudgeCalendar

/// A task (VTODO) as nudge reads it from an iCalendar file: what an item would hold, and what was left out.
public struct CalendarTask: Sendable, Equatable {
    /// The line of its `BEGIN:VTODO`.
    public var line: Int
    public var uid: String?
    public var text: String
    /// Its due instant; for a task due on a day, the day at `ChecklistItem.dayReminderTime` (when nudge reminds).
    public var dueDate: Date?
    /// The day it is due on, for a date-only DUE (and no repeat, whose occurrences nudge keeps as instants).
    public var dueDay: CalendarDay?
    public var checked: Bool
    /// When it was completed (its COMPLETED), if it is and says so.
    public var completedAt: Date?
    public var priority: Priority
    /// It has an alarm at or before its due instant.
    public var shouldRemind: Bool
    /// Its alarms before the due instant, as leads (`Warnings`).
    public var warnings: [TimeInterval]
    /// A calendar expression, in normalized form.
    public var repeatRule: String?
    /// Repeat after completion (its `X-NUDGE-REPEAT-AFTER`), in seconds; not with `repeatRule`.
    public var repeatAfter: TimeInterval?
    /// Why its RRULE was not taken, if it has one nudge cannot repeat exactly: the task is read as one occurrence.
    public var repeatLeftOut: String?
    /// What of the task was not imported as it was, and why.
    public var notes: [String]
}
