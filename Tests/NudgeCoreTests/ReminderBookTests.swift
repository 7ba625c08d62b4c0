import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

@Suite struct ReminderBookTests {
    @Test func anAddedItemDueLaterFiresOnceAtItsInstantAndIsRecordedAsHandled() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        let (item, added) = try book.addItem(NewItem(text: "call mum", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        #expect(item.itemID == 1)
        #expect(added.events.map(\.kind) == [.scheduled])
        #expect(added.actions == [.armTimer(at: t0 + 60)])

        clock.advance(by: 60)
        let fired = book.advance()
        #expect(
            fired.deliveries.map(\.reminder) == [Reminder(itemID: 1, text: "call mum", listName: "Inbox", due: t0 + 60)]
        )
        #expect(book.library.item(id: 1)?.lastFiredAt == t0 + 60)
        #expect(fired.changes.count == 1)

        clock.advance(by: 60)
        #expect(book.advance().events.isEmpty)
    }

    @Test func anItemDueThisMomentFiresAtOnceInTheSameOperationAndOnlyOnce() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        // `--due now`, read on the client's clock 0.4 s before nudged's.
        let (item, added) = try book.addItem(NewItem(text: "stretch", listID: 1, dueDate: t0 - 0.4, shouldRemind: true))
        #expect(added.events.map(\.kind) == [.scheduled, .fired])
        #expect(added.events.map(\.id) == [1, 2])
        #expect(added.deliveries.map(\.isLate) == [false])
        #expect(item.lastFiredAt == t0 - 0.4, "the answer shows the item as it is after the fire")
        #expect(book.scheduler.pendingCount == 0)

        // An edit in the same second does not fire it again.
        clock.advance(by: 0.3)
        let (_, edited) = try book.editItem(itemID: 1, ItemEdit(text: "stretch again"))
        #expect(edited.events.isEmpty && edited.deliveries.isEmpty)

        // A due date further back is kept, and nothing fires for it, now or at a restart.
        let (_, old) = try book.addItem(NewItem(text: "taxes", listID: 1, dueDate: t0 - 5, shouldRemind: true))
        #expect(old.events.isEmpty)
        var restarted = ReminderBook(library: book.library, clock: clock)
        #expect(restarted.start().events.isEmpty)
    }

    @Test func checkingOffCancelsAndWithdraws() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        _ = try book.addItem(NewItem(text: "a", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        let (_, checked) = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(checked.events.map(\.kind) == [.cancelled])
        #expect(checked.actions.contains(.withdraw(itemID: 1)))
        clock.advance(by: 120)
        #expect(book.advance().deliveries.isEmpty)
    }

    @Test func deletingAListCancelsEveryReminderInIt() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        let (list, _) = try book.addList(name: "Trips", iconName: .trips)
        _ = try book.addItem(NewItem(text: "passport", listID: list.listID, dueDate: t0 + 60, shouldRemind: true))
        _ = try book.addItem(NewItem(text: "tickets", listID: list.listID, dueDate: t0 + 90, shouldRemind: true))
        _ = try book.addItem(NewItem(text: "stays", listID: 1, dueDate: t0 + 90, shouldRemind: true))
        let removed = try book.removeList(listID: list.listID)
        #expect(removed.events.map(\.kind) == [.cancelled, .cancelled])
        #expect(Set(removed.events.map(\.itemID)) == [1, 2])
        clock.advance(by: 100)
        #expect(book.advance().deliveries.map(\.reminder.itemID) == [3])
    }

    @Test func renamingAListChangesTheNameItsRemindersCarry() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        _ = try book.addItem(NewItem(text: "a", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        _ = try book.updateList(listID: 1, name: "Chores")
        clock.advance(by: 60)
        #expect(book.advance().deliveries.map(\.reminder.listName) == ["Chores"])
    }

    @Test func startFiresWhatFellDueDuringDowntimeOnceAndRecordsIt() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        _ = try book.addItem(NewItem(text: "late", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        _ = try book.addItem(NewItem(text: "missed", listID: 1, dueDate: t0 + 120, shouldRemind: true))
        _ = try book.addItem(NewItem(text: "ahead", listID: 1, dueDate: t0 + 200_000, shouldRemind: true))
        let saved = book.library

        // Down from t0 until 30 s inside the 24 h window of "missed", so "late" is just outside it.
        clock.set(t0 + 120 + 24 * 3600 - 30)
        var restarted = ReminderBook(library: saved, clock: clock)
        let started = restarted.start()
        #expect(started.events.map(\.kind) == [.missed, .fired])
        #expect(started.events.map(\.text) == ["late", "missed"])  // handled in due order
        #expect(started.deliveries.first?.isLate == true)
        #expect(started.actions.last == .armTimer(at: t0 + 200_000))
        #expect(restarted.library.item(id: 1)?.lastFiredAt == t0 + 60)
        #expect(restarted.library.item(id: 2)?.lastFiredAt == t0 + 120)

        // A second restart from what the first one recorded handles nothing again.
        var again = ReminderBook(library: restarted.library, clock: clock)
        #expect(again.start().events.isEmpty)
    }

    /// A start that fires what fell due while nudged was down records it in the library in place: the walk over the
    /// items is gone by then, so its list is not copied (at a million items, 184 MB more).
    @Test func aStartThatFiresRecordsItInPlaceWithoutCopyingTheList() throws {
        func library() throws -> ChecklistLibrary {
            var library = ChecklistLibrary()
            for index in 0..<2_000 {
                try library.apply(
                    library.makeAddItem(
                        NewItem(text: "item \(index)", listID: 1, dueDate: t0 + 60 + Double(index), shouldRemind: true),
                        now: t0,
                        zones: zones
                    )
                )
            }
            library.makeRoomToGrow()
            return library
        }
        let clock = ManualWallClock(t0 + 61)
        var book = ReminderBook(library: try library(), clock: clock)
        let address = book.library.lists[0].items.withUnsafeBufferPointer { $0.baseAddress }
        let started = book.start()
        #expect(started.deliveries.count == 2, "items 1 and 2 fell due")
        #expect(book.library.item(id: 1)?.lastFiredAt == t0 + 60)
        #expect(book.library.lists[0].items.withUnsafeBufferPointer { $0.baseAddress } == address)
    }
}
