import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

private let now = Date(timeIntervalSince1970: 1_800_000_000)

@Suite struct ChecklistLibraryTests {
    /// `library` made again from what the store keeps of it.
    static func asStored(_ library: ChecklistLibrary) throws -> ChecklistLibrary {
        try ChecklistLibrary(
            nextItemID: library.nextItemID,
            nextListID: library.nextListID,
            nextEventID: library.nextEventID,
            defaultListID: library.chosenDefaultListID,
            storeID: library.storeID,
            lists: library.lists
        )
    }

    @Test func aNewLibraryHoldsOneListInboxTheDefault() {
        let library = ChecklistLibrary()
        #expect(library.lists.map(\.name) == ["Inbox"])
        #expect(library.lists.first?.iconName == .inbox)
        #expect(library.defaultList.name == "Inbox")
    }

    @Test func theDefaultListStaysPutAsListsComeAndGoUntilAnotherIsChosen() throws {
        var library = ChecklistLibrary()
        // "Archive" sorts before "Inbox": the default must not follow the sort order.
        try library.apply(library.makeAddList(name: "Archive"))
        try library.apply(library.makeAddList(name: "Groceries"))
        #expect(library.defaultList.name == "Inbox")

        let groceries = try #require(library.list(named: "Groceries"))
        try library.apply(library.makeSetDefaultList(listID: groceries.listID))
        try library.apply(library.makeUpdateList(listID: groceries.listID, name: "Shopping"))
        #expect(library.defaultList.name == "Shopping")

        // The chosen default is kept in a library as the store holds it.
        #expect(try Self.asStored(library).defaultList.name == "Shopping")

        // Removing it falls back to the oldest list.
        try library.apply(library.makeRemoveList(listID: groceries.listID))
        #expect(library.defaultList.name == "Inbox")
        #expect(library.chosenDefaultListID == nil)
        #expect(throws: ModelError.unknownList(groceries.listID)) {
            try library.makeSetDefaultList(listID: groceries.listID)
        }
    }

    @Test func aStoreWrittenBeforeDefaultsKeepsItsOldestListAsTheDefault() throws {
        let library = try ChecklistLibrary(
            nextItemID: 1,
            nextListID: 4,
            lists: [Checklist(listID: 3, name: "Archive"), Checklist(listID: 1, name: "List")]
        )
        #expect(library.chosenDefaultListID == nil)
        #expect(library.defaultList.name == "List")
    }

    @Test func listsSortByNameCaseInsensitivelyAndNumberAware() throws {
        var library = ChecklistLibrary()
        for name in ["List 10", "groceries", "List 2", "Birthdays", "list 1"] {
            try library.apply(library.makeAddList(name: name))
        }
        #expect(library.lists.map(\.name) == ["Birthdays", "groceries", "Inbox", "list 1", "List 2", "List 10"])
    }

    @Test func renamingAListKeepsTheOrder() throws {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddList(name: "B"))
        try library.apply(library.makeUpdateList(listID: 1, name: "C"))
        #expect(library.lists.map(\.name) == ["B", "C"])
    }

    @Test func listNamesAreUniqueIgnoringCase() throws {
        let library = ChecklistLibrary()
        #expect(throws: ModelError.duplicateListName("inbox")) { try library.makeAddList(name: "inbox") }
        #expect(throws: ModelError.emptyText("list name")) { try library.makeAddList(name: "  ") }
    }

    @Test func statusCountsUncheckedItems() throws {
        var library = ChecklistLibrary()
        #expect(library.lists[0].statusText == "All Done")
        try library.apply(library.makeAddItem(NewItem(text: "a", listID: 1), now: now, zones: zones))
        try library.apply(library.makeAddItem(NewItem(text: "b", listID: 1), now: now, zones: zones))
        #expect(library.lists[0].uncheckedCount == 2)
        #expect(library.lists[0].statusText == "2 Remaining")
        try library.apply(library.makeEditItem(itemID: 1, ItemEdit(checked: true), now: now, zones: zones))
        try library.apply(library.makeEditItem(itemID: 2, ItemEdit(checked: true), now: now, zones: zones))
        #expect(library.lists[0].statusText == "All Done")
    }

    @Test(arguments: ["Groceries", "groceries", "no icon", " Trips "])
    func iconNamesAreReadIgnoringCase(name: String) throws {
        let icon = try IconName(validating: name)
        #expect(icon.rawValue.lowercased() == name.trimmingCharacters(in: .whitespaces).lowercased())
    }

    @Test func anUnknownIconIsAnErrorListingTheValidOnes() {
        #expect {
            try IconName(validating: "Rockets")
        } throws: { error in
            let message = (error as? ModelError)?.description ?? ""
            return message.contains("\"Rockets\"") && message.contains("No Icon, Appointments, Birthdays, Chores")
                && message.contains("Trips")
        }
    }

    @Test func itemIDsAreNeverReusedAfterDeletingTheNewestItem() throws {
        var library = ChecklistLibrary()
        for text in ["a", "b", "c"] {
            try library.apply(library.makeAddItem(NewItem(text: text, listID: 1), now: now, zones: zones))
        }
        try library.apply(library.makeRemoveItem(itemID: 3))
        let change = try library.makeAddItem(NewItem(text: "d", listID: 1), now: now, zones: zones)
        try library.apply(change)
        #expect(library.lists[0].items.map(\.itemID) == [1, 2, 4])
    }

    @Test func listIDsAreNeverReusedAfterDeletingTheNewestList() throws {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddList(name: "Two"))
        try library.apply(library.makeRemoveList(listID: 2))
        try library.apply(library.makeAddList(name: "Three"))
        #expect(library.lists.map(\.listID) == [1, 3])
    }

    @Test func theLastListCannotBeRemoved() {
        let library = ChecklistLibrary()
        #expect(throws: ModelError.lastList("Inbox")) { try library.makeRemoveList(listID: 1) }
    }

    @Test func removingAListRemovesItsItemsButNotTheirIDs() throws {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddList(name: "Other"))
        try library.apply(library.makeAddItem(NewItem(text: "a", listID: 2), now: now, zones: zones))
        try library.apply(library.makeRemoveList(listID: 2))
        #expect(library.item(id: 1) == nil)
        #expect(library.nextItemID == 2)
    }

    @Test func movingAnItemToAnotherListKeepsItsID() throws {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddList(name: "Other"))
        for text in ["a", "b", "c"] {
            try library.apply(library.makeAddItem(NewItem(text: text, listID: 1), now: now, zones: zones))
        }
        try library.apply(library.makeEditItem(itemID: 1, ItemEdit(listID: 2), now: now, zones: zones))
        #expect(library.list(containing: 1)?.name == "Other")
        #expect(library.list(named: "inbox")?.items.map(\.itemID) == [2, 3])
        // Positions of the items left behind are still right.
        #expect(library.item(id: 3)?.text == "c")
    }

    @Test func editingStampsUpdatedAtAndKeepsCreatedAt() throws {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddItem(NewItem(text: "a", listID: 1), now: now, zones: zones))
        try library.apply(library.makeEditItem(itemID: 1, ItemEdit(text: "b"), now: now + 60, zones: zones))
        let item = try #require(library.item(id: 1))
        #expect(item.text == "b")
        #expect(item.createdAt == now)
        #expect(item.updatedAt == now + 60)
    }

    @Test func editsOfUnknownItemsAndListsAreRefused() throws {
        var library = ChecklistLibrary()
        try library.apply(library.makeAddItem(NewItem(text: "a", listID: 1), now: now, zones: zones))
        #expect(throws: ModelError.unknownItem(9)) {
            try library.makeEditItem(itemID: 9, ItemEdit(), now: now, zones: zones)
        }
        #expect(throws: ModelError.unknownList(9)) {
            try library.makeEditItem(itemID: 1, ItemEdit(listID: 9), now: now, zones: zones)
        }
        #expect(throws: ModelError.emptyText("item text")) {
            try library.makeEditItem(itemID: 1, ItemEdit(text: " \n"), now: now, zones: zones)
        }
    }

    @Test func aStoredLibraryRepairsCountersThatLagBehindTheItems() throws {
        var library = ChecklistLibrary()
        for text in ["a", "b"] {
            try library.apply(library.makeAddItem(NewItem(text: text, listID: 1), now: now, zones: zones))
        }
        let decoded = try ChecklistLibrary(nextItemID: 1, nextListID: 1, storeID: library.storeID, lists: library.lists)
        #expect(decoded.nextItemID == 3)
        #expect(decoded.nextListID == 2)
    }

    @Test func applyingTheSameChangesGivesEqualLibraries() throws {
        let start = ChecklistLibrary()
        var first = start
        var changes: [ChecklistChange] = []
        func record(_ change: ChecklistChange) throws {
            try first.apply(change)
            changes.append(change)
        }
        try record(first.makeAddList(name: "Groceries", iconName: .groceries))
        try record(
            first.makeAddItem(
                NewItem(text: "milk", listID: 2, dueDate: now + 60, shouldRemind: true),
                now: now,
                zones: zones
            )
        )
        try record(first.makeEditItem(itemID: 1, ItemEdit(checked: true), now: now, zones: zones))
        try record(first.makeAddItem(NewItem(text: "eggs", listID: 1), now: now, zones: zones))
        try record(first.makeRemoveItem(itemID: 2))
        var second = start
        for change in changes { try second.apply(change) }
        #expect(first == second)
        #expect(try Self.asStored(first) == first)
    }

    /// A large list copied (as nudged's copy of the store's library is) with room to grow takes adds of a quarter
    /// more in place: at a million items, moving the array would hold it twice for a moment.
    @Test func aLibraryGivenRoomToGrowIsItsOwnAndTakesAddsWithoutMovingItsItems() throws {
        var original = ChecklistLibrary()
        for index in 0..<4_000 {
            try original.apply(original.makeAddItem(NewItem(text: "item \(index)", listID: 1), now: now, zones: zones))
        }
        var library = original
        library.makeRoomToGrow()
        let address = { (library: ChecklistLibrary) in library.lists[0].items.withUnsafeBufferPointer { $0.baseAddress }
        }
        #expect(address(library) != address(original), "its own copy, made now")
        let before = address(library)
        for index in 0..<1_000 {
            try library.apply(library.makeAddItem(NewItem(text: "more \(index)", listID: 1), now: now, zones: zones))
        }
        #expect(address(library) == before)
        #expect(library.itemCount == 5_000 && original.itemCount == 4_000)
    }

    /// A large list that outgrows its array grows by a quarter, not to twice its size: a folder of ten thousand tasks
    /// linked at once leaves room for at most 2,500 more, not up to 6,384 (in nudged's copy and in the store's).
    @Test func aLargeListThatOutgrowsItsArrayGrowsByAQuarter() throws {
        var library = ChecklistLibrary()
        func add() throws {
            try library.apply(library.makeAddItem(NewItem(text: "item", listID: 1), now: now, zones: zones))
        }
        var items: [ChecklistItem] { library.lists[0].items }
        while items.count < 1_024 || items.count < items.capacity { try add() }
        let full = items.capacity
        try add()
        // malloc rounds a block this large up to a page: a few items more than asked.
        let slack = 4_096 / MemoryLayout<ChecklistItem>.stride + 1
        #expect(
            items.capacity > full && items.capacity <= ChecklistLibrary.roomToGrow(forCount: full) + slack,
            "\(full) → \(items.capacity)"
        )
    }
}
