import Foundation
import Testing

@testable import NudgeCore

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

/// What the user does with a reminder's desktop notification, as the book records it.
@Suite struct NotificationResponseTests {
    /// A book whose item 1 fired at t0 + 60; the clock reads t0 + 90.
    private func bookWithAFiredItem(repeating rule: String? = nil) throws -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: TimeZone(identifier: "UTC")!)
        _ = try book.addItem(
            NewItem(text: "call mum", listID: 1, dueDate: t0 + 60, shouldRemind: true, repeatRule: rule)
        )
        let due = book.scheduler.nextDue!
        clock.set(due)
        #expect(book.advance().deliveries.count == 1)
        clock.set(due + 30)
        return (book, clock)
    }

    @Test func doneChecksAOneShotItemOffAndSaysSoFromTheNotification() throws {
        var (book, _) = try bookWithAFiredItem()
        let before = book.library.nextEventID
        let done = try book.respond(to: .done, itemID: 1, due: t0 + 60, snoozeLength: 600)
        #expect(book.library.item(id: 1)?.checked == true)
        #expect(done.events.map(\.kind) == [.completed])
        #expect(done.events.map(\.source) == [.notification])
        #expect(done.events.map(\.due) == [t0 + 60])
        #expect(done.events.map(\.id) == [before])
        #expect(!done.changes.isEmpty)
        // Pressed twice (two servers, or a slow click): the second finds it checked and reports nothing more.
        #expect(try book.respond(to: .done, itemID: 1, due: t0 + 60, snoozeLength: 600).events.isEmpty)
    }

    @Test func doneOnARecurringItemCompletesTheOccurrenceShownOnce() throws {
        var (book, _) = try bookWithAFiredItem(repeating: "*-*-* 00/1:00:00")
        let shown = try #require(book.library.item(id: 1)?.lastFiredAt)
        let next = try #require(book.library.item(id: 1)?.dueDate)
        let done = try book.respond(to: .done, itemID: 1, due: shown, snoozeLength: 600)
        // The pending reminder is replaced by itself, as after any edit of a pending item.
        #expect(done.events.map(\.kind) == [.completed, .replaced])
        #expect(done.events.first?.due == shown)
        #expect(done.events.allSatisfy { $0.source == .notification })
        #expect(book.library.item(id: 1)?.checked == false, "the series goes on")
        #expect(book.library.item(id: 1)?.completedThrough == shown)
        #expect(book.library.item(id: 1)?.dueDate == next, "the next occurrence is not skipped")
        #expect(try book.respond(to: .done, itemID: 1, due: shown, snoozeLength: 600).events.isEmpty)
    }

    /// `nudge done` first completes the occurrence on screen; Done on the notification then changes nothing, where
    /// checking off would have completed the next occurrence too.
    @Test func doneOnAnOccurrenceCheckedOffAlreadySkipsNothing() throws {
        var (book, _) = try bookWithAFiredItem(repeating: "*-*-* 00/1:00:00")
        let shown = try #require(book.library.item(id: 1)?.lastFiredAt)
        let next = try #require(book.library.item(id: 1)?.dueDate)
        _ = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(book.library.item(id: 1)?.dueDate == next)
        #expect(try book.respond(to: .done, itemID: 1, due: shown, snoozeLength: 600).events.isEmpty)
        #expect(book.library.item(id: 1)?.dueDate == next)
    }

    /// A warning shows the pending occurrence: Done on it completes that one, and the series moves past it, even
    /// with an earlier occurrence left open.
    @Test func doneOnAWarningCompletesThePendingOccurrence() throws {
        var (book, _) = try bookWithAFiredItem(repeating: "*-*-* 00/1:00:00")
        let pending = try #require(book.library.item(id: 1)?.dueDate)
        let done = try book.respond(to: .done, itemID: 1, due: pending, snoozeLength: 600)
        #expect(done.events.first?.kind == .completed)
        #expect(book.library.item(id: 1)?.completedThrough == pending)
        #expect(book.library.item(id: 1)?.dueDate == pending + 3600)
        #expect(book.scheduler.nextDue == pending + 3600)
    }

    @Test func snoozeSnoozesForTheLengthFromNow() throws {
        var (book, _) = try bookWithAFiredItem()
        let snoozed = try book.respond(to: .snooze, itemID: 1, due: t0 + 60, snoozeLength: 600)
        #expect(snoozed.events.map(\.kind) == [.snoozed])
        #expect(snoozed.events.map(\.due) == [t0 + 90 + 600])
        #expect(snoozed.events.map(\.source) == [.notification])
        #expect(book.scheduler.nextDue == t0 + 90 + 600)
    }

    @Test func closingOrExpiringIsRecordedAndChangesNothing() throws {
        var (book, _) = try bookWithAFiredItem()
        let item = book.library.item(id: 1)
        for (response, kind) in [(NotificationResponse.dismissed, ReminderEvent.Kind.dismissed), (.expired, .expired)] {
            let noted = try book.respond(to: response, itemID: 1, due: t0 + 60, snoozeLength: 600)
            #expect(noted.events.map(\.kind) == [kind])
            #expect(noted.events.map(\.source) == [.notification])
            #expect(noted.changes.isEmpty && noted.actions.isEmpty)
        }
        #expect(book.library.item(id: 1) == item)
    }

    @Test func anItemDeletedSinceIsRefused() throws {
        var (book, _) = try bookWithAFiredItem()
        _ = try book.removeItem(itemID: 1)
        #expect(throws: ModelError.unknownItem(1)) {
            try book.respond(to: .done, itemID: 1, due: t0 + 60, snoozeLength: 600)
        }
    }
}
