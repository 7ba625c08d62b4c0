import Foundation

/// One decision the scheduler made, in the order it made them. Clients stream these (`nudge watch`); fired and
/// missed ones also go to the journal.
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
        /// Reserved for snoozing, a later step.
        case snoozed
    }

    public var kind: Kind
    public var itemID: Int
    /// The due instant the event is about (for `cancelled`, the one that will no longer fire).
    public var due: Date
    /// When the decision was made.
    public var at: Date
    /// The text a delivery carries, or would have carried.
    public var text: String
    /// For `replaced`, the due instant that was replaced.
    public var previousDue: Date?
    /// For `fired` and `missed`, how long after the due instant the decision came.
    public var lateBy: TimeInterval?

    public init(
        kind: Kind,
        itemID: Int,
        due: Date,
        at: Date,
        text: String,
        previousDue: Date? = nil,
        lateBy: TimeInterval? = nil
    ) {
        self.kind = kind
        self.itemID = itemID
        self.due = due
        self.at = at
        self.text = text
        self.previousDue = previousDue
        self.lateBy = lateBy
    }
}
