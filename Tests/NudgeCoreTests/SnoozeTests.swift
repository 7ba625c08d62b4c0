import Foundation
import Testing

@testable import NudgeCore

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let midnight = Date(timeIntervalSince1970: 1_800_057_600)
private let day: TimeInterval = 86_400
private let utc = TimeZone(identifier: "UTC")!

/// Snooze: the pending reminder moves to the snoozed instant, the due date stays, and a `snoozed` event says both.
@Suite struct SnoozeTests {
    private func book() -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(t0)
        return (ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: utc), clock)
    }

    @Test func snoozingMovesThePendingReminderAndKeepsTheDueDate() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        let (item, snoozed) = try book.snoozeItem(itemID: 1, until: t0 + 600)
        #expect(item.dueDate == t0 + 60 && item.snoozedUntil == t0 + 600)
        #expect(snoozed.events.map(\.kind) == [.snoozed])
        #expect(snoozed.events[0].due == t0 + 600 && snoozed.events[0].previousDue == t0 + 60)
        #expect(snoozed.events[0].id > 0)
        clock.set(t0 + 60)
        #expect(book.advance().events.isEmpty, "the due instant no longer fires")
        clock.set(t0 + 600)
        let fired = book.advance()
        #expect(fired.events.map(\.kind) == [.fired])
        #expect(fired.deliveries.map(\.reminder.due) == [t0 + 600])
        let after = try #require(book.library.item(id: 1))
        #expect(after.snoozedUntil == nil && after.lastFiredAt == t0 + 600 && after.dueDate == t0 + 60)
    }

    @Test func snoozingAReminderThatFiredSchedulesItAgain() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        clock.set(t0 + 60)
        #expect(book.advance().events.map(\.kind) == [.fired])
        // Snooze in the very instant it fired: the fire stands, and a new reminder is scheduled.
        let (_, snoozed) = try book.snoozeItem(itemID: 1, until: t0 + 660)
        #expect(snoozed.events.map(\.kind) == [.snoozed])
        #expect(book.scheduler.pendingReminder(for: 1)?.due == t0 + 660)
        clock.set(t0 + 660)
        #expect(book.advance().deliveries.count == 1)
    }

    @Test func aNewDueDateEndsTheSnooze() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        _ = try book.snoozeItem(itemID: 1, until: t0 + 600)
        let (item, edited) = try book.editItem(itemID: 1, ItemEdit(dueDate: t0 + 300))
        #expect(item.snoozedUntil == nil)
        #expect(edited.events.map(\.kind) == [.replaced])
        #expect(book.scheduler.pendingReminder(for: 1)?.due == t0 + 300)
        // Other edits keep it.
        _ = try book.snoozeItem(itemID: 1, until: t0 + 900)
        let (renamed, _) = try book.editItem(itemID: 1, ItemEdit(text: "green tea"))
        #expect(renamed.snoozedUntil == t0 + 900)
        #expect(book.scheduler.pendingReminder(for: 1)?.due == t0 + 900)
    }

    @Test func onARecurringItemASnoozeMovesOnlyTheCurrentOccurrence() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        // Snoozed before it fires: the first occurrence moves to 00:30, the second stays at midnight next day.
        _ = try book.snoozeItem(itemID: 1, until: midnight + 1800)
        clock.set(midnight)
        #expect(book.advance().events.isEmpty)
        clock.set(midnight + 1800)
        let fired = book.advance()
        #expect(fired.events.map(\.kind) == [.fired, .scheduled])
        #expect(fired.events.map(\.due) == [midnight + 1800, midnight + day])
        #expect(fired.events[0].coalesced == nil)

        // Snoozed after it fired: the fired occurrence comes back at 00:10; the next one still comes at midnight.
        clock.set(midnight + day)
        _ = book.advance()
        _ = try book.snoozeItem(itemID: 1, until: midnight + day + 600)
        clock.set(midnight + day + 600)
        let again = book.advance()
        #expect(again.events.map(\.kind) == [.fired, .scheduled])
        #expect(again.events.map(\.due) == [midnight + day + 600, midnight + 2 * day])
    }

    @Test func aSnoozeToBeforeTheDueDateFiresThereAndTheDueDateStillFires() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 3600, shouldRemind: true))
        _ = try book.snoozeItem(itemID: 1, until: t0 + 600)
        clock.set(t0 + 600)
        #expect(book.advance().events.map(\.kind) == [.fired, .scheduled])
        clock.set(t0 + 3600)
        #expect(book.advance().events.map(\.kind) == [.fired])
    }

    @Test func aCheckedItemOrAnInstantNotAheadIsRefused() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        #expect(throws: ModelError.self) { try book.snoozeItem(itemID: 1, until: t0) }
        _ = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(throws: ModelError.itemChecked(1)) { try book.snoozeItem(itemID: 1, until: t0 + 600) }
        #expect(throws: ModelError.unknownItem(9)) { try book.snoozeItem(itemID: 9, until: t0 + 600) }
    }

    @Test func aSnoozeSurvivesARestart() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        _ = try book.snoozeItem(itemID: 1, until: t0 + 600)
        var again = ReminderBook(library: book.library, clock: ManualWallClock(t0 + 120), timeZone: utc)
        #expect(again.start().events.isEmpty, "the due instant passed, but it was snoozed past it")
        #expect(again.scheduler.pendingReminder(for: 1)?.due == t0 + 600)
    }

    /// A snooze left behind must never hide the due date: switching reminding off and on again brings it back.
    @Test func switchingRemindingOffEndsTheSnooze() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 3600, shouldRemind: true))
        _ = try book.snoozeItem(itemID: 1, until: t0 + 600)
        let (off, _) = try book.editItem(itemID: 1, ItemEdit(shouldRemind: false))
        #expect(off.snoozedUntil == nil)
        clock.set(t0 + 1200)
        _ = try book.editItem(itemID: 1, ItemEdit(shouldRemind: true))
        #expect(book.scheduler.pendingReminder(for: 1)?.due == t0 + 3600)
    }

    /// A snoozed occurrence of a recurring item found late (the machine slept past it): one decision, and the
    /// series goes on from the first occurrence after now rather than stalling behind the clock.
    @Test func aSnoozedOccurrenceFoundLateLeavesTheSeriesGoingOn() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        _ = try book.snoozeItem(itemID: 1, until: midnight + 3 * 3600)
        let now = midnight + 2 * day + 6 * 3600
        var again = ReminderBook(library: book.library, clock: ManualWallClock(now), timeZone: utc)
        let started = again.start()
        #expect(started.events.map(\.kind) == [.missed, .scheduled])
        #expect(started.events.last?.due == midnight + 3 * day)
        #expect(again.scheduler.pendingReminder(for: 1)?.due == midnight + 3 * day)
    }
}
