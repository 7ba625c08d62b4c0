import Foundation

/// One thing to do. Its `itemID` is allocated once, never reused, and is the identity of its pending reminder.
public struct ChecklistItem: Sendable, Equatable {
    /// Set only by the store, as it reads an item back.
    public package(set) var itemID: Int
    public var text: String
    public var checked: Bool
    /// When it was checked off: the moment of `done`, or what an imported task says (its COMPLETED). Nil while it is
    /// open, and for an item checked off before nudge kept this (store format 5 and older).
    public var completedAt: Date?
    /// When it is due, and when its reminder fires. For an item due on a day (`dueDay`), the day at
    /// `dayReminderTime` in nudged's zone at the change that set the day: where it sorts and exports, not when it
    /// reminds (the day's digest brings it).
    public var dueDate: Date?
    /// The day it is due on, when it was given a day and no time (`--due fri`, `DUE;VALUE=DATE`): it is due all that
    /// day and overdue from the next. Never with a repeat rule, whose occurrences are instants. It does not fire on its
    /// own: the day's digest lists it (`ReminderBook`); snoozed to an instant, it also reminds then.
    public var dueDay: CalendarDay?
    public var shouldRemind: Bool
    public var createdAt: Date
    public var updatedAt: Date
    /// The due instant whose reminder was last handled: fired, or recorded as missed. A restart never handles the
    /// same due instant twice.
    public var lastFiredAt: Date?
    /// Its repeat rule in the normalized form `RepeatRule` keeps: a systemd calendar expression
    /// (`Mon..Fri *-*-* 09:30:00`) or an RFC 5545 recurrence on one line (`DTSTART:20270105T190000
    /// RRULE:FREQ=WEEKLY;INTERVAL=2`). The item recurs, and `dueDate` is its next occurrence.
    public var repeatRule: String?
    /// Repeat after completion (`RepeatAfter`): checking the item off leaves it open, due this many seconds after
    /// (an item due on a day: that many days, rounded up). Never with `repeatRule`.
    public var repeatAfter: TimeInterval?
    /// For a recurring item: the latest occurrence checked off. Checking off a recurring item completes one
    /// occurrence and leaves the item open. For one that repeats after completion: the due date it last completed
    /// (or the moment, if it had none).
    public var completedThrough: Date?
    /// How urgent its reminders are.
    public var priority: Priority
    /// Whether its reminder still fires when found late; nil: the daemon's `--catch-up-window` decides.
    public var catchUp: CatchUp?
    /// The reminder was snoozed to this instant: it fires then instead of at the due date, which stays as it is.
    /// Cleared when it fires, and by any change of the due date or the rule.
    public var snoozedUntil: Date?
    /// Advance warnings: how long before the due date the reminder warns, longest lead first (`Warnings`).
    public var warnings: [TimeInterval]
    /// Advance warnings at or before this instant are settled: sent, reported missed, or passed over because the
    /// reminder they were about fired first. A restart never sends one of them.
    public var warnedThrough: Date?
    /// When its last reminder fired, while nobody has acknowledged it: nil once Done, Snooze, an edit, an undo or
    /// `nudge ack` (`ChecklistLibrary.makeAcknowledge`) has, and after a reminder reported missed (never shown, and a
    /// later one than that fire). The next fire replaces it. Kept by nudge alone: a linked list's file does not hold
    /// it.
    public var unacknowledgedSince: Date?
    /// Repeats its reminder while it awaits acknowledgement (`Nag`); nil: it fires once.
    public var nag: Nag?
    /// How many repeats of the fire awaiting acknowledgement were decided: the number of the last (`renotified`); 0
    /// after a fire.
    public var repeatCount: Int
    /// The UID of the iCalendar task it was imported from, when that was not one nudge made: importing the task
    /// again updates this item, and exporting it gives the UID back.
    public var calendarUID: String?
    /// In a linked list (`ListLink`): the name of the file in the list's folder that holds it. The file is the item's
    /// identity there: a file gone is the item removed.
    public var fileName: String?

    public init(
        itemID: Int,
        text: String,
        checked: Bool = false,
        completedAt: Date? = nil,
        dueDate: Date? = nil,
        dueDay: CalendarDay? = nil,
        shouldRemind: Bool = false,
        createdAt: Date,
        updatedAt: Date? = nil,
        lastFiredAt: Date? = nil,
        repeatRule: String? = nil,
        repeatAfter: TimeInterval? = nil,
        completedThrough: Date? = nil,
        priority: Priority = .normal,
        catchUp: CatchUp? = nil,
        snoozedUntil: Date? = nil,
        warnings: [TimeInterval] = [],
        warnedThrough: Date? = nil,
        unacknowledgedSince: Date? = nil,
        nag: Nag? = nil,
        repeatCount: Int = 0,
        calendarUID: String? = nil,
        fileName: String? = nil
    ) {
        self.itemID = itemID
        self.text = text
        self.checked = checked
        self.completedAt = completedAt
        self.dueDate = dueDate
        self.dueDay = dueDay
        self.shouldRemind = shouldRemind
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.lastFiredAt = lastFiredAt
        self.repeatRule = repeatRule
        self.repeatAfter = repeatAfter
        self.completedThrough = completedThrough
        self.priority = priority
        self.catchUp = catchUp
        self.snoozedUntil = snoozedUntil
        self.warnings = warnings
        self.warnedThrough = warnedThrough
        self.unacknowledgedSince = unacknowledgedSince
        self.nag = nag
        self.repeatCount = repeatCount
        self.calendarUID = calendarUID
        self.fileName = fileName
    }

    /// Keeps `completedAt` true to `checked` after a change made at `instant`: an item the change checked off was
    /// completed then, and an open item has no completion.
    mutating func settleCompletion(wasChecked: Bool, at instant: Date) {
        if !checked {
            completedAt = nil
        } else if !wasChecked {
            completedAt = instant
        }
    }

    /// The hour a day alone means where an instant is needed: 09:00, for `TimeInput.parse` and for the `dueDate` an
    /// item due on a day sorts and exports by; and the digest's default time (`digestTime`).
    public static let dayReminderTime = 9 * 3600

    /// Sets the due date to `day` at `dayReminderTime` in `zone`.
    mutating func setDueDay(_ day: CalendarDay, in zone: TimeZone) {
        dueDay = day
        dueDate = day.instant(at: Self.dayReminderTime, in: zone)
    }

    /// When its reminder fires: at the snoozed instant if it was snoozed, else at the due date.
    public var reminderInstant: Date? { snoozedUntil ?? dueDate }

    /// How recent a due instant may be when it is set and still fire, at once: `--due now` is read on the
    /// client's clock a moment before nudged sees it.
    public static let immediateGrace: TimeInterval = 1

    /// Whether it reminds on its own, at `reminderInstant`: asked to, not done, and due at an instant or snoozed to
    /// one. An item due on a day reminds through the day's digest instead.
    var remindsAlone: Bool { shouldRemind && !checked && (dueDay == nil || snoozedUntil != nil) }

    /// The replacement rule: an item has a pending reminder iff it reminds on its own (`remindsAlone`), and is due
    /// (or snoozed to) later, or within the last `immediateGrace` and not handled yet (it then fires at once).
    public func wantsReminder(at now: Date) -> Bool {
        guard remindsAlone, let instant = reminderInstant else { return false }
        if let lastFiredAt, lastFiredAt >= instant { return false }
        return instant > now - Self.immediateGrace
    }

    /// Nothing awaits acknowledgement any more: Done, Snooze, an edit, an undo or an ack came.
    mutating func acknowledge() {
        (unacknowledgedSince, repeatCount) = (nil, 0)
    }

    /// Its reminder fired at `instant`, and awaits acknowledgement from then, with no repeat of it decided yet.
    mutating func awaitAcknowledgement(since instant: Date) {
        (unacknowledgedSince, repeatCount) = (instant, 0)
    }

    /// The next repeat of its fire awaiting acknowledgement (`nag`), its number and instant: none when it does not
    /// nag, nothing awaits acknowledgement, every repeat was decided, it no longer reminds (done, or switched off), or
    /// an advance warning of its next reminder was decided since the fire (that reminder's turn has come).
    public var nextRepeat: (number: Int, instant: Date)? {
        guard let nag, let firedAt = unacknowledgedSince, shouldRemind, !checked, repeatCount < nag.times,
            warnedThrough.map({ $0 <= firedAt }) ?? true
        else { return nil }
        return (repeatCount + 1, nag.instant(ofRepeat: repeatCount + 1, firedAt: firedAt))
    }

    /// The instants its advance warnings fire at, soonest first: those after `instant`, and after any settled
    /// (`warnedThrough`), before the due date. A snoozed reminder has none (its warnings were about the due date,
    /// which has come).
    public func warningInstants(after instant: Date) -> [Date] {
        guard let dueDate, snoozedUntil == nil else { return [] }
        let settled = max(instant, warnedThrough ?? .distantPast)
        // Sorted here, not trusted from the store: a hand-edited file may hold them in any order.
        return warnings.map { dueDate - $0 }.filter { $0 > settled }.sorted()
    }

    /// The due instant that passed unhandled while nothing was watching (daemon down, machine asleep), if any.
    ///
    /// Only an instant that was still ahead when the item was last edited (or within `immediateGrace` of it)
    /// counts: a due date set in the past was never pending, so it is neither fired late nor reported missed.
    public func overdueInstant(at now: Date) -> Date? {
        guard remindsAlone, let instant = reminderInstant, instant <= now,
            instant > updatedAt - Self.immediateGrace
        else {
            return nil
        }
        if let lastFiredAt, lastFiredAt >= instant { return nil }
        return instant
    }
}
