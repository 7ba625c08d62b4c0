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
        /// The user acknowledged a reminder that fired (`nudge ack`): `due` is the instant that fired.
        case acknowledged
        /// A reminder that fired and awaits acknowledgement was delivered again (`Nag`): `due` is the due instant
        /// that fired, `repeatNumber` which repeat, `lateBy` counts from the repeat's own instant (with `coalesced`,
        /// how many repeats that passed unwatched it stands for, itself the latest).
        case renotified
        /// The last repeat a nag allows was decided: the reminder still awaits acknowledgement, quietly.
        case exhausted
        /// The notification server took the reminder's notification off the screen by itself.
        case expired
        /// The day's digest of items due on a day was delivered, or a follow-up to it: about no one item (`itemID`
        /// 0); `itemIDs` are those it brought, `day` its day, `due` the day's digest instant, `text` what it says.
        case digest
        /// The user changed items (an add, an edit, a check-off, a snooze, a removal, an import, a batch, a button
        /// on a notification): about the one item changed (`itemID`), or about several (`itemID` 0); `itemIDs` are
        /// those it changed, `due` and `at` when, `text` what it did. `nudge undo` takes it back.
        case changed
        /// The user took a change back (`nudge undo`): `undid` is the event of the change, `itemIDs` the items put
        /// back. It is a change too, which `nudge undo` takes back in turn (a redo).
        case undone

        /// A change of the user's, which `nudge undo` may take back.
        public var isChange: Bool { self == .changed || self == .undone }
    }

    /// Where a decision came from, when not from nudge itself or a request.
    public enum Source: String, Codable, Sendable {
        /// A button pressed on the reminder's desktop notification, or the notification closed.
        case notification
        /// A linked list's folder: a task file added, changed or removed there (`ReminderBook.applyFolder`).
        case vdir
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
    /// For `fired`, `warned`, `missed` and `renotified`, how long after its instant (`instant`; for `renotified`, the
    /// repeat's) the decision came.
    public var lateBy: TimeInterval?
    /// For `fired` and `missed` of a recurring item found late: how many occurrences passed unwatched (the one
    /// reported, the latest, included), folded into this one decision instead of a burst.
    public var coalesced: Int?
    /// The item's priority; nil (in events from before priorities) is normal.
    public var priority: Priority?
    /// For `missed`: the catch-up rule the reminder was found late against, the item's own or the daemon's window.
    public var catchUp: CatchUp?
    /// For `renotified` and `exhausted`: the number of the repeat (1, 2, …).
    public var repeatNumber: Int?
    /// For `warned`, and `missed` of a warning: how long before `due` the warning was meant to come (its lateness
    /// counts from there).
    public var warning: TimeInterval?
    /// Set when the event follows from the desktop notification (Done, Snooze, dismissed, expired).
    public var source: Source?
    /// For `digest`: the items it brought, ascending.
    public var itemIDs: [Int]?
    /// For `digest`: the day it is the digest of.
    public var day: CalendarDay?
    /// For `undone`: the event of the change it took back.
    public var undid: Int?
    /// For `changed` and `undone`: what the change did to its items, to take it back; nil when it changed more
    /// items than an undo keeps (`UndoStep.maximumItems`). The store keeps it with the event; the API does not show
    /// it.
    public var undo: UndoStep?

    private enum CodingKeys: String, CodingKey {
        case id, kind, itemID, due, at, text, listName, previousDue, lateBy, coalesced, priority, catchUp, warning
        case source, itemIDs, day, undid, repeatNumber
    }

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

    /// The event of a change of the user's (`changed`), or of an undo (`undone`, with `undid`): `step` says what
    /// it did to the items, `text` how a person would say it.
    public init(_ kind: Kind, of step: UndoStep, text: String, listName: String, at: Date, undid: Int? = nil) {
        precondition(kind.isChange, "a change is reported as changed or undone, not \(kind)")
        id = 0
        self.kind = kind
        let itemIDs = step.itemIDs
        itemID = itemIDs.count == 1 ? itemIDs[0] : 0
        due = at
        self.at = at
        self.text = text
        self.listName = listName
        self.itemIDs = itemIDs
        self.undid = undid
        undo = step.isKeepable ? step : nil
    }

    /// The instant the decision was about: for a warning, the warning's own instant; else `due`.
    public var instant: Date { due - (warning ?? 0) }

    /// For a warning, how long until `due` when it was decided (`Warnings.timeLeft`).
    public var warningTimeLeft: TimeInterval? {
        warning.map { Warnings.timeLeft(lead: $0, due: due, decidedAt: at, lateBy: lateBy ?? 0) }
    }
}
