import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

private let now = Date(timeIntervalSince1970: 1_800_000_000)

/// Pages of items (ID order) and of pending reminders (due order): walked to the end, every entry comes once, in
/// order, whatever the page size, the gaps or a filter.
@Suite struct PagingTests {
    /// 60 items over two lists, every third one removed.
    private func library() throws -> ChecklistLibrary {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddList(name: "Other"))
        for number in 1...60 {
            try library.apply(
                library.makeAddItem(NewItem(text: "item \(number)", listID: number % 2 + 1), now: now, zones: zones)
            )
        }
        for itemID in stride(from: 3, through: 60, by: 3) { try library.apply(library.makeRemoveItem(itemID: itemID)) }
        return library
    }

    private func walk(_ library: ChecklistLibrary, limit: Int, where matches: (ChecklistItem, Checklist) -> Bool)
        -> [[Int]]
    {
        var pages: [[Int]] = []
        var after = 0
        while true {
            let (items, more) = library.itemPage(after: after, limit: limit, where: matches)
            pages.append(items.map(\.item.itemID))
            guard more, let last = items.last else { return pages }
            after = last.item.itemID
        }
    }

    @Test(arguments: [1, 7, 40, 1000])
    func itemPagesHoldEveryItemOnceInIDOrder(limit: Int) throws {
        let library = try library()
        let expected = (1...60).filter { !$0.isMultiple(of: 3) }
        let pages = walk(library, limit: limit) { _, _ in true }
        #expect(Array(pages.joined()) == expected)
        #expect(pages.dropLast().allSatisfy { $0.count == limit })
        let odd = walk(library, limit: limit) { _, list in list.listID == 2 }
        #expect(Array(odd.joined()) == expected.filter { $0 % 2 == 1 })
    }

    /// A hand-edited store may hold IDs far apart: the page sorts the candidates instead of stepping through the gap.
    @Test func sparseIDsArePagedInOrderWithoutSteppingThroughTheGap() throws {
        var library = try library()
        for itemID in [ChecklistLibrary.maximumID, 1 << 40, 1 << 30] {
            try library.apply(.putItem(ChecklistItem(itemID: itemID, text: "far", createdAt: now), listID: 1))
        }
        let pages = walk(library, limit: 5) { _, _ in true }
        let expected = (1...60).filter { !$0.isMultiple(of: 3) } + [1 << 30, 1 << 40, ChecklistLibrary.maximumID]
        #expect(Array(pages.joined()) == expected)
    }

    @Test(arguments: [1, 4, 100])
    func reminderPagesHoldEveryReminderOnceSoonestFirst(limit: Int) {
        var scheduler = ReminderScheduler()
        // Dues repeat, so the order falls back on the item ID.
        for itemID in 1...30 {
            let item = ChecklistItem(
                itemID: itemID,
                text: "r\(itemID)",
                dueDate: now + Double((itemID * 7) % 10 + 1) * 60,
                shouldRemind: true,
                createdAt: now
            )
            _ = scheduler.itemChanged(item, listName: "List", now: now)
        }
        let expected = scheduler.pendingReminders.map(\.itemID)
        #expect(expected.count == 30)
        var walked: [Int] = []
        var cursor: (due: Date, itemID: Int)?
        while true {
            let (reminders, more) = scheduler.pendingPage(after: cursor, limit: limit)
            walked += reminders.map(\.itemID)
            guard more, let last = reminders.last else { break }
            cursor = (last.due, last.itemID)
        }
        #expect(walked == expected)
        let dues = scheduler.pendingReminders.map { ($0.due, $0.itemID) }
        #expect(zip(dues, dues.dropFirst()).allSatisfy { $0 < $1 })
    }
}
