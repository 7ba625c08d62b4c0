import Foundation
import HeapModule

/// What a day's digest lists: the items due on a day without a time (`dueDay`) that are still open and remind,
/// those due on the day itself and those overdue (due on an earlier day), each oldest first, then by item ID. What
/// `nudge today` prints, and what the daily digest delivers (`DigestDelivery`).
public struct Digest: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var itemID: Int
        public var listID: Int
        public var listName: String
        public var text: String
        public var dueDay: CalendarDay

        /// `item` of `list`, which is due on a day (`dueDay`); nil for one that is not.
        init?(_ item: ChecklistItem, in list: Checklist) {
            guard let dueDay = item.dueDay else { return nil }
            (itemID, listID, listName, text, self.dueDay) = (item.itemID, list.listID, list.name, item.text, dueDay)
        }
    }

    /// The texts of `entries`, and how many of `count` are not among them: `pay rent, sweep, 2 more`.
    static func texts(_ entries: [Entry], of count: Int) -> String {
        let more = count - entries.count
        return (entries.map { $0.text.escapingControlCharacters() } + (more > 0 ? ["\(more) more"] : []))
            .joined(separator: ", ")
    }

    public var day: CalendarDay
    /// The first `limit` of each group; the counts say how many there are in all.
    public var overdue: [Entry]
    public var dueToday: [Entry]
    public var overdueCount: Int
    public var dueTodayCount: Int
    /// The IDs of the items it lists, ascending: the first `DigestDelivery.itemIDLimit` of them.
    public var itemIDs: [Int] = []

    public var count: Int { overdueCount + dueTodayCount }

    /// One line for a person: `2 due today: pay rent, water the plants; 1 overdue: taxes`, `nothing due today`. The
    /// texts of the entries listed, and how many more there are.
    public var summary: String {
        func group(_ entries: [Entry], count: Int, _ label: String) -> String? {
            guard count > 0 else { return nil }
            return "\(count) \(label): " + Self.texts(entries, of: count)
        }
        let groups = [
            group(dueToday, count: dueTodayCount, "due today"), group(overdue, count: overdueCount, "overdue"),
        ].compactMap(\.self)
        return groups.isEmpty ? "nothing due today" : groups.joined(separator: "; ")
    }
}

extension ChecklistLibrary {
    /// The digest of `day`, of the lists `lists` names (nil: all): at most `limit` entries of each group. One pass
    /// over the items, keeping the `limit` oldest of each group in a heap, so its memory is the digest's, whatever the
    /// count.
    public func digest(on day: CalendarDay, limit: Int, lists listIDs: Set<Int>? = nil) -> Digest {
        struct Ordered: Comparable {
            var entry: Digest.Entry
            static func < (a: Ordered, b: Ordered) -> Bool {
                (a.entry.dueDay, a.entry.itemID) < (b.entry.dueDay, b.entry.itemID)
            }
            static func == (a: Ordered, b: Ordered) -> Bool { a.entry.itemID == b.entry.itemID }
        }
        var overdue = Heap<Ordered>()
        var dueToday = Heap<Ordered>()
        var counts = (overdue: 0, dueToday: 0)
        var itemIDs = Heap<Int>()
        for list in lists where listIDs?.contains(list.listID) ?? true {
            for item in list.items where item.isListed(inDigestOf: day) {
                guard let entry = Digest.Entry(item, in: list) else { continue }
                let dueDay = entry.dueDay
                itemIDs.insert(item.itemID)
                if itemIDs.count > DigestDelivery.itemIDLimit { _ = itemIDs.popMax() }
                if dueDay < day {
                    counts.overdue += 1
                    overdue.insert(Ordered(entry: entry))
                    if overdue.count > limit { _ = overdue.popMax() }
                } else {
                    counts.dueToday += 1
                    dueToday.insert(Ordered(entry: entry))
                    if dueToday.count > limit { _ = dueToday.popMax() }
                }
            }
        }
        func sorted(_ heap: Heap<Ordered>) -> [Digest.Entry] { heap.unordered.sorted().map(\.entry) }
        return Digest(
            day: day,
            overdue: sorted(overdue),
            dueToday: sorted(dueToday),
            overdueCount: counts.overdue,
            dueTodayCount: counts.dueToday,
            itemIDs: itemIDs.unordered.sorted()
        )
    }
}

extension ChecklistItem {
    /// Whether the digest of `day` lists it: open, reminding, and due on that day or an earlier one, without a time.
    public func isListed(inDigestOf day: CalendarDay) -> Bool {
        guard mayBeListedInDigest, let dueDay else { return false }
        return dueDay <= day
    }

    /// Whether the digest of some day lists it: open, reminding, and due on a day.
    var mayBeListedInDigest: Bool { !checked && shouldRemind && dueDay != nil }
}
