import Foundation
import Testing

@testable import NudgeCore

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let midnight = Date(timeIntervalSince1970: 1_800_057_600)
private let day: TimeInterval = 86_400
private let utc = TimeZone(identifier: "UTC")!

/// A reminder that fired awaits acknowledgement (`unacknowledgedSince`) until Done, Snooze, an edit, an undo or an
/// ack; one reported missed awaits nothing, and the next fire replaces what an earlier one awaited.
@Suite struct AcknowledgementTests {
    private func book(catchUpWindow: TimeInterval = 3600) -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(t0)
        let book = ReminderBook(library: ChecklistLibrary(), clock: clock, catchUpWindow: catchUpWindow, timeZone: utc)
        return (book, clock)
    }

    /// A book with item 1 due at t0 + 60, fired then, and the clock a minute after.
    private func fired() throws -> (ReminderBook, ManualWallClock) {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        clock.set(t0 + 60)
        #expect(book.advance().events.map(\.kind) == [.fired])
        clock.set(t0 + 120)
        return (book, clock)
    }

    private func awaiting(_ book: ReminderBook) -> Date? { book.library.item(id: 1)?.unacknowledgedSince }

    @Test func aFireAwaitsAcknowledgementFromTheMomentItWasDecided() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        #expect(awaiting(book) == nil, "nothing fired yet")
        // Found 30 s late: the wait counts from the fire, not the due instant.
        clock.set(t0 + 90)
        let outcome = book.advance()
        #expect(outcome.events.map(\.kind) == [.fired])
        #expect(awaiting(book) == t0 + 90)
        #expect(
            outcome.changes.contains {
                if case .putItem(let item, _) = $0 { item.unacknowledgedSince != nil } else { false }
            },
            "the change the fire persists carries it"
        )
    }

    @Test func anAckClearsItReportsItAndTakesTheNotificationDown() throws {
        var (book, _) = try fired()
        let outcome = try book.acknowledgeItem(itemID: 1)
        #expect(awaiting(book) == nil)
        #expect(outcome.events.map(\.kind) == [.acknowledged])
        #expect(outcome.events[0].due == t0 + 60 && outcome.events[0].at == t0 + 120 && outcome.events[0].id > 0)
        #expect(outcome.actions == [.withdraw(itemID: 1)])
        #expect(outcome.changes.count == 1)
        // Not an edit: the item is as it was, its update time too.
        let item = try #require(book.library.item(id: 1))
        #expect(item.updatedAt == t0 && item.lastFiredAt == t0 + 60 && !item.checked)
        #expect(try book.acknowledgeItem(itemID: 1).isEmpty, "a second ack finds nothing to acknowledge")
        #expect(throws: ModelError.self) { try book.acknowledgeItem(itemID: 9) }
    }

    @Test func doneSnoozeAndAnEditAcknowledge() throws {
        var (done, _) = try fired()
        _ = try done.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(awaiting(done) == nil)

        var (snoozed, _) = try fired()
        _ = try snoozed.snoozeItem(itemID: 1, until: t0 + 600)
        #expect(awaiting(snoozed) == nil)

        var (edited, _) = try fired()
        _ = try edited.editItem(itemID: 1, ItemEdit(text: "green tea"))
        #expect(awaiting(edited) == nil)

        var (button, _) = try fired()
        _ = try button.respond(to: .done, itemID: 1, due: t0 + 60, snoozeLength: 600)
        #expect(awaiting(button) == nil)
    }

    @Test func closingTheNotificationIsNoAcknowledgement() throws {
        var (book, _) = try fired()
        _ = try book.respond(to: .dismissed, itemID: 1, due: t0 + 60, snoozeLength: 600)
        _ = try book.respond(to: .expired, itemID: 1, due: t0 + 60, snoozeLength: 600)
        #expect(awaiting(book) == t0 + 60)
    }

    @Test func anUndoPutsTheItemBackAcknowledged() throws {
        var (book, _) = try fired()
        let (_, step) = try book.recordingUndo { book throws(ModelError) in
            try book.editItem(itemID: 1, ItemEdit(text: "green tea"))
        }
        // Put back as an edit at now would: acknowledged.
        _ = try book.undo(step)
        let item = try #require(book.library.item(id: 1))
        #expect(item.text == "tea" && item.unacknowledgedSince == nil)
    }

    @Test func aMissedReminderAwaitsNothing() throws {
        var (book, clock) = book(catchUpWindow: 60)
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        clock.set(t0 + 60 + 3600)
        #expect(book.advance().events.map(\.kind) == [.missed])
        #expect(awaiting(book) == nil)
        #expect(try book.acknowledgeItem(itemID: 1).isEmpty)
    }

    @Test func eachOccurrenceOfARecurringItemAwaitsItsOwn() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        clock.set(midnight)
        #expect(book.advance().events.map(\.kind) == [.fired, .scheduled])
        #expect(awaiting(book) == midnight)
        // Not acknowledged: the next occurrence's fire replaces what the first awaited.
        clock.set(midnight + day)
        _ = book.advance()
        #expect(awaiting(book) == midnight + day)
        // An ack leaves the series as it is.
        _ = try book.acknowledgeItem(itemID: 1)
        #expect(awaiting(book) == nil)
        #expect(book.scheduler.pendingReminder(for: 1)?.due == midnight + 2 * day)
    }

    @Test func itIsKeptAcrossARestart() throws {
        let (book, clock) = try fired()
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        #expect(restarted.start().events.isEmpty)
        #expect(awaiting(restarted) == t0 + 60)
    }
}
