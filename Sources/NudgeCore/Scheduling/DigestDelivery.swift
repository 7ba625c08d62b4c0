import Foundation

/// The day's digest handed to the sinks: what it lists (the day's `Digest`, as `nudge today` prints it) and which of
/// those items this delivery brings. At `digestTime` it brings every item listed; after it, a follow-up brings an item
/// a change has added to the day (the sinks replace the day's digest with it, as one notification).
public struct DigestDelivery: Sendable, Equatable {
    /// Everything the day's digest lists now, at most `entryLimit` entries of each group.
    public var digest: Digest
    /// The items this delivery brings, by ID, ascending: all of the day's at `digestTime`, the new ones in a
    /// follow-up.
    public var brought: [Int]
    /// A follow-up: the day's digest went out before, and this brings what was added to it since.
    public var isFollowUp: Bool
    /// The day's digest instant: `digestTime` on `digest.day` in nudged's zone.
    public var instant: Date
    public var firedAt: Date

    /// How many entries of each group a delivery names; the counts say how many there are in all.
    public static let entryLimit = 10

    public init(digest: Digest, brought: [Int], isFollowUp: Bool, instant: Date, firedAt: Date) {
        self.digest = digest
        self.brought = brought
        self.isFollowUp = isFollowUp
        self.instant = instant
        self.firedAt = firedAt
    }

    /// How long after the day's digest instant it was delivered.
    public var lateBy: TimeInterval { firedAt.timeIntervalSince(instant) }

    /// Late means noticeably after the digest instant: after downtime, sleep, or a clock jump (a follow-up is late
    /// by nature and never counts as late).
    public var isLate: Bool { !isFollowUp && lateBy >= ReminderScheduler.lateThreshold }

    /// What a follow-up brings, as one line: the texts of those the digest names, and how many more.
    public var broughtSummary: String {
        let ids = Set(brought)
        let named = (digest.dueToday + digest.overdue).filter { ids.contains($0.itemID) }
        let more = brought.count - named.count
        return (named.map { $0.text.escapingControlCharacters() } + (more > 0 ? ["\(more) more"] : []))
            .joined(separator: ", ")
    }
}
