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
    /// It is a repeat of a fire awaiting acknowledgement (`Nag`): pending, `due` is the repeat's instant; delivered,
    /// the due instant that fired (`Repeat.firedDue`).
    public var repeating: Repeat?

    /// A repeat of a fire awaiting acknowledgement: its number (1, 2, …), its nag, and the fire's instants. A class,
    /// so that the many reminders that are no repeat carry a pointer's worth of it, not its fields.
    public final class Repeat: Sendable, Equatable {
        public let number: Int
        public let nag: Nag
        /// When the fire it repeats was decided: repeats count from there.
        public let firedAt: Date
        /// The due instant that fired.
        public let firedDue: Date

        public init(number: Int, nag: Nag, firedAt: Date, firedDue: Date) {
            self.number = number
            self.nag = nag
            self.firedAt = firedAt
            self.firedDue = firedDue
        }

        public static func == (a: Repeat, b: Repeat) -> Bool {
            (a.number, a.nag, a.firedAt, a.firedDue) == (b.number, b.nag, b.firedAt, b.firedDue)
        }
    }

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
