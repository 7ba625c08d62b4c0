import Foundation

/// One decision the scheduler made, in the order it made them. Clients stream these (`nudge watch`) and read them
/// back from the store's event history (`nudge events`); fired and missed ones also go to the journal.
public struct ReminderEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// An item gained a pending reminder.
        case scheduled
        /// An item's pending reminder was replaced by a new one (any edit of a pending item).
        case replaced
        /// An item's pending reminder was removed without firing.
        case cancelled
        /// A reminder was delivered.
        case fired
        /// A reminder fell due while nothing was watching, longer ago than the catch-up window; not delivered.
        case missed
        /// An item's reminder was snoozed: `due` is the snoozed instant, `previousDue` the item's due date (unchanged).
        case snoozed
        /// An occurrence of a recurring item was checked off; the item stays open for the next one.
        case completed
        /// An advance warning was delivered: `due` is the item's due instant, `warning` how long before it the
        /// warning was meant to come.
        case warned
        /// The user closed the reminder's desktop notification without pressing a button.
        case dismissed
        /// The notification server took the reminder's notification off the screen by itself.
        case expired
        /// The day's digest of items due on a day was delivered, or a follow-up to it: about no one item (`itemID`
        /// 0); `itemIDs` are those it brought, `day` its day, `due` the day's digest instant, `text` what it says.
        case digest
    }

    /// Where a decision came from, when not from nudge itself or a request.
    public enum Source: String, Codable, Sendable {
        /// A button pressed on the reminder's desktop notification, or the notification closed.
        case notification
    }

    /// 1, 2, 3, … in the order the decisions were made, never reused: allocated by `ReminderBook` from the
    /// library's `nextEventID` as the decision is made, so it survives restarts like an item ID. 0 until then.
    public var id: Int
    public var kind: Kind
    public var itemID: Int
    /// The due instant the event is about (for `cancelled`, the one that will no longer fire).
    public var due: Date
    /// When the decision was made.
    public var at: Date
    /// The text a delivery carries, or would have carried.
    public var text: String
    /// The name of the item's list.
    public var listName: String
    /// For `replaced`, the due instant that was replaced; for `snoozed`, the item's due date.
    public var previousDue: Date?
    /// For `fired`, `warned` and `missed`, how long after its instant (`instant`) the decision came.
    public var lateBy: TimeInterval?
    /// For `fired` and `missed` of a recurring item found late: how many occurrences passed unwatched (the one
    /// reported, the latest, included), folded into this one decision instead of a burst.
    public var coalesced: Int?
    /// The item's priority; nil (in events from before priorities) is normal.
    public var priority: Priority?
    /// For `missed`: the catch-up rule the reminder was found late against, the item's own or the daemon's window.
    public var catchUp: CatchUp?
    /// For `warned`, and `missed` of a warning: how long before `due` the warning was meant to come (its lateness
    /// counts from there).
    public var warning: TimeInterval?
    /// Set when the event follows from the desktop notification (Done, Snooze, dismissed, expired).
    public var source: Source?
    /// For `digest`: the items it brought, ascending.
    public var itemIDs: [Int]?
    /// For `digest`: the day it is the digest of.
    public var day: CalendarDay?

    /// An event about a reminder: its item, text, list and due instant.
    public init(
        _ kind: Kind,
        of reminder: Reminder,
        at: Date,
        previousDue: Date? = nil,
        lateBy: TimeInterval? = nil,
        coalesced: Int? = nil,
        warning: TimeInterval? = nil
    ) {
        id = 0
        self.kind = kind
        itemID = reminder.itemID
        due = reminder.due
        self.at = at
        text = reminder.text
        listName = reminder.listName
        self.previousDue = previousDue
        self.lateBy = lateBy
        self.coalesced = coalesced
        self.warning = warning
        priority = reminder.priority
    }

    /// The event of a digest delivered (`digest`): its text is what the digest says, as one line.
    public init(digest delivery: DigestDelivery) {
        id = 0
        kind = .digest
        itemID = 0
        due = delivery.instant
        at = delivery.firedAt
        let day = delivery.digest.day.iso
        text =
            delivery.isFollowUp
            ? "added to the digest of \(day): \(delivery.summary)"
            : "digest of \(day): \(delivery.summary)"
        listName = ""
        lateBy = delivery.lateBy
        itemIDs = delivery.itemIDs
        self.day = delivery.digest.day
    }

    /// The instant the decision was about: for a warning, the warning's own instant; else `due`.
    public var instant: Date { due - (warning ?? 0) }

    /// For a warning, how long until `due` when it was decided (`Warnings.timeLeft`).
    public var warningTimeLeft: TimeInterval? {
        warning.map { Warnings.timeLeft(lead: $0, due: due, decidedAt: at, lateBy: lateBy ?? 0) }
    }
}
