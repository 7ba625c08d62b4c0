import Foundation
import NudgeCalendar

/// A task (VTODO) as nudge reads it from an iCalendar file: what an item would hold, and what was left out.
public struct CalendarTask: Sendable, Equatable {
    /// The line of its `BEGIN:VTODO`.
    public var line: Int
    public var uid: String?
    public var text: String
    public var dueDate: Date?
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
    /// What of the task was not imported as it was, and why.
    public var notes: [String]
}
