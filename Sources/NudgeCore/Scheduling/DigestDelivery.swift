import Foundation

/// The day's digest handed to the sinks: what it lists (the day's `Digest` of the lists whose digest time has come, as
/// `nudge today` prints it), or, in a follow-up, what a change added to a day whose digest went out. The sinks show
/// one digest a day: a follow-up and the next day's digest replace it.
public struct DigestDelivery: Sendable, Equatable {
    /// What the day's digest lists now, at most `entryLimit` entries of each group.
    public var digest: Digest
    /// What this delivery brings, as one line: the digest's summary of the lists it sends, or what a follow-up adds
    /// (`pay rent, sweep the hall`). What the journal entry, the log line and the command's NUDGE_TEXT say.
    public var summary: String
    /// A follow-up's items, added to the day after its digest went out (at most `entryLimit` of them; `addedCount`
    /// says how many); empty for the digest itself.
    public var added: [Digest.Entry]
    public var addedCount: Int
    /// The items it brings, by ID, ascending: every item of the lists the digest sends, or a follow-up's added ones;
    /// at most `itemIDLimit` of them.
    public var itemIDs: [Int]
    /// The digest instant it is about: the latest list's digest time that came (a follow-up: its list's).
    public var instant: Date
    public var firedAt: Date

    /// How many entries of each group a delivery names; the counts say how many there are in all.
    public static let entryLimit = 10
    /// How many item IDs a delivery carries (into its event, the journal, the command's environment): the rest is
    /// in the counts, and `GET /v1/digest` lists them.
    public static let itemIDLimit = 1_000

    public init(
        digest: Digest,
        summary: String,
        added: [Digest.Entry] = [],
        addedCount: Int = 0,
        itemIDs: [Int],
        instant: Date,
        firedAt: Date
    ) {
        self.digest = digest
        self.summary = summary
        self.added = added
        self.addedCount = addedCount
        self.itemIDs = itemIDs
        self.instant = instant
        self.firedAt = firedAt
    }

    /// A follow-up: the day's digest went out before, and this brings what was added to it since.
    public var isFollowUp: Bool { addedCount > 0 }

    /// How long after the digest instant it was delivered.
    public var lateBy: TimeInterval { firedAt.timeIntervalSince(instant) }

    /// Late means noticeably after the digest instant: after downtime, sleep, or a clock jump (a follow-up is late
    /// by nature and never counts as late).
    public var isLate: Bool { !isFollowUp && lateBy >= ReminderScheduler.lateThreshold }
}
