import Foundation

/// A reminder handed to the sinks.
public struct Delivery: Sendable, Equatable {
    public var reminder: Reminder
    public var firedAt: Date
    /// How long after the due instant this delivery was decided.
    public var lateBy: TimeInterval
    /// For a recurring reminder found late: how many occurrences passed unwatched, this one (the latest) included.
    public var coalesced: Int?
    /// For an advance warning: how long before the due instant (`reminder.due`) it was meant to come. `lateBy` is
    /// then counted from the warning's own instant.
    public var warning: TimeInterval?

    /// Late means delivered noticeably after its instant: after downtime, sleep, or a clock jump.
    public var isLate: Bool { lateBy >= ReminderScheduler.lateThreshold }

    /// For an advance warning, how long until the due instant, to tell the user (`Warnings.timeLeft`).
    public var warningTimeLeft: TimeInterval? {
        warning.map { Warnings.timeLeft(lead: $0, due: reminder.due, decidedAt: firedAt, lateBy: lateBy) }
    }

    public init(
        reminder: Reminder,
        firedAt: Date,
        lateBy: TimeInterval,
        coalesced: Int? = nil,
        warning: TimeInterval? = nil
    ) {
        self.reminder = reminder
        self.firedAt = firedAt
        self.lateBy = lateBy
        self.coalesced = coalesced
        self.warning = warning
    }
}
