import Foundation

/// A named list of items. Lists sort by name the way people read them: case-insensitively, "List 2" before
/// "List 10".
public struct Checklist: Sendable, Equatable {
    /// Set only by the store, as it reads a list back.
    public package(set) var listID: Int
    public var name: String
    public var iconName: IconName
    public var items: [ChecklistItem]
    /// When the day's digest brings this list's items due on a day: seconds of wall time after midnight in nudged's
    /// zone. Nil: nudged's `digestTime`.
    public var digestTime: Int?
    /// The last day whose digest of this list went out (or had nothing to bring): no restart sends it again, and an
    /// item added to the day after it comes in a follow-up.
    public var digestSentOn: CalendarDay?
    /// The folder of task files the list is kept in, if it is linked to one (`ListLink`).
    public var link: ListLink?

    public init(
        listID: Int,
        name: String,
        iconName: IconName = .noIcon,
        items: [ChecklistItem] = [],
        digestTime: Int? = nil,
        digestSentOn: CalendarDay? = nil,
        link: ListLink? = nil
    ) {
        self.listID = listID
        self.name = name
        self.iconName = iconName
        self.items = items
        self.digestTime = digestTime
        self.digestSentOn = digestSentOn
        self.link = link
    }

    /// How many items are not checked off yet.
    public var uncheckedCount: Int { items.reduce(0) { $0 + ($1.checked ? 0 : 1) } }

    /// "All Done" when nothing is left, else "N Remaining", as the seed app shows under each list.
    public var statusText: String {
        let remaining = uncheckedCount
        return remaining == 0 ? "All Done" : "\(remaining) Remaining"
    }

    /// The order lists are kept in: by name, case-insensitive and number-aware, then by ID so it is total.
    public static func isOrderedBefore(_ a: Checklist, _ b: Checklist) -> Bool {
        switch a.name.compare(b.name, options: [.caseInsensitive, .numeric]) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: a.listID < b.listID
        }
    }
}
