import Foundation

/// A reminder as it stands pending: what will be delivered for an item, and when.
public struct Reminder: Sendable, Equatable {
    public var itemID: Int
    public var text: String
    public var listName: String
    public var due: Date
    /// For a recurring item, its rule: the scheduler uses it to fold occurrences that passed unwatched into one.
    public var rule: RepeatRule?
    public var priority: Priority
    /// The item's own catch-up rule; nil: the scheduler's window.
    public var catchUp: CatchUp?
    /// It was snoozed: `due` is the snoozed instant, not the item's due date (nor an occurrence of its rule).
    public var isSnoozed: Bool
    /// The instants of its advance warnings still to come, soonest first; all before `due`.
    public var warnings: [Date]
    /// One of its warnings was decided (sent or missed) while it was pending: a sink may be showing it.
    public var hasWarned = false

    /// When the scheduler next decides about it: its next warning, or else its due instant.
    public var nextInstant: Date { warnings.first ?? due }

    public init(
        itemID: Int,
        text: String,
        listName: String,
        due: Date,
        rule: RepeatRule? = nil,
        priority: Priority = .normal,
        catchUp: CatchUp? = nil,
        isSnoozed: Bool = false,
        warnings: [Date] = []
    ) {
        self.itemID = itemID
        self.text = text
        self.listName = listName
        self.due = due
        self.rule = rule
        self.priority = priority
        self.catchUp = catchUp
        self.isSnoozed = isSnoozed
        self.warnings = warnings
    }
}

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

/// What the scheduler asks the edges to do. The scheduler decides; whoever holds it does.
public enum SchedulerAction: Sendable, Equatable {
    /// Wake up at this wall-clock instant and tell the scheduler the time (replaces any earlier arming).
    case armTimer(at: Date)
    /// Nothing is pending: no wake-up is needed.
    case disarmTimer
    /// Deliver this reminder to every sink now.
    case deliver(Delivery)
    /// The item is done, deleted, or no longer wants reminding: close whatever a sink still shows of it.
    case withdraw(itemID: Int)
}

/// What one input to the scheduler produced.
public struct SchedulerOutput: Sendable, Equatable {
    public var actions: [SchedulerAction] = []
    public var events: [ReminderEvent] = []

    public init(actions: [SchedulerAction] = [], events: [ReminderEvent] = []) {
        self.actions = actions
        self.events = events
    }

    public var deliveries: [Delivery] {
        actions.compactMap { if case .deliver(let delivery) = $0 { delivery } else { nil } }
    }

    mutating func append(_ other: SchedulerOutput) {
        actions += other.actions
        events += other.events
    }
}
