import Foundation
import NudgeCalendar

/// What importing did with one component of a file.
public struct CalendarImportResult: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case created, updated, unchanged, skipped
    }

    public var line: Int
    public var uid: String?
    public var summary: String?
    public var outcome: Outcome
    public var itemID: Int?
    /// For `skipped`, why; otherwise what was not imported as it was.
    public var notes: [String]
    /// The component it was read from: `VTODO`, or what nudge skipped (`VEVENT`, `VJOURNAL`, …).
    public var component = "VTODO"
}
