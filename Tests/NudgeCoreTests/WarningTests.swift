import Foundation
import Testing

@testable import NudgeCore

/// Fri 2027-01-15 08:00:00 UTC.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let hour: TimeInterval = 3600
private let utc = TimeZone(identifier: "UTC")!

/// Advance warnings: part of the item's pending reminder, sent at their leads before the due date, replaced by every
/// edit, cancelled by a check-off, never sent twice, and sent late after downtime only while the due date is ahead.
@Suite struct WarningTests {
    private func book(window: TimeInterval = 24 * hour) -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(t0)
        return (ReminderBook(library: ChecklistLibrary(), clock: clock, catchUpWindow: window, timeZone: utc), clock)
    }

    /// Moves the clock to each instant in turn and collects what the book decided.
    private func run(_ book: inout ReminderBook, _ clock: ManualWallClock, through instants: [Date])
        -> ReminderBook.Outcome
    {
        var all = ReminderBook.Outcome()
        for instant in instants {
            clock.set(instant)
            all.append(contentsOf: book.advance())
        }
        return all
    }

    @Test func warningsComeAtTheirLeadsSoonestFirstThenTheReminder() throws {
        var (book, clock) = book()
        let due = t0 + 2 * hour
        let (item, added) = try book.addItem(
            NewItem(text: "dentist", listID: 1, dueDate: due, shouldRemind: true, warnings: [600, hour])
        )
        #expect(item.warnings == [hour, 600], "stored longest lead first")
        #expect(added.events.map(\.kind) == [.scheduled])
        #expect(added.actions.contains(.armTimer(at: due - hour)), "the timer is armed for the first warning")
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [due - hour, due - 600])

        clock.set(due - hour - 1)
        #expect(book.advance().events.isEmpty, "a warning came early")
        var all = run(&book, clock, through: [due - hour, due - 600])
        #expect(book.library.item(id: 1)?.warnedThrough == due - 600, "the sent warnings are settled")
        all.append(contentsOf: run(&book, clock, through: [due]))
        #expect(all.events.map(\.kind) == [.warned, .warned, .fired])
        #expect(all.events.map(\.warning) == [hour, 600, nil])
        #expect(all.events.map(\.due) == [due, due, due])
        #expect(all.events.map(\.lateBy) == [0, 0, 0])
        #expect(all.deliveries.map(\.warning) == [hour, 600, nil])
        #expect(all.events.map(\.kind).filter { $0 == .scheduled || $0 == .replaced }.isEmpty)
        let after = try #require(book.library.item(id: 1))
        #expect(after.warnedThrough == due && after.lastFiredAt == due, "the fire settles the warnings before it")
        clock.set(due + hour)
        #expect(book.advance().events.isEmpty)
    }

    @Test func aWarningAlreadyPastWhenSetDoesNotFire() throws {
        var (book, clock) = book()
        let due = t0 + 30 * 60
        _ = try book.addItem(NewItem(text: "call", listID: 1, dueDate: due, shouldRemind: true, warnings: [hour, 600]))
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [due - 600])
        let all = run(&book, clock, through: [due - 600, due])
        #expect(all.events.map(\.kind) == [.warned, .fired])
        #expect(all.events.first?.warning == 600)
    }

    @Test func anEditReplacesWarningsAndReminderTogether() throws {
        var (book, clock) = book()
        let due = t0 + 2 * hour
        _ = try book.addItem(
            NewItem(text: "train", listID: 1, dueDate: due, shouldRemind: true, warnings: [hour, 600])
        )
        clock.set(due - hour)
        #expect(book.advance().events.map(\.kind) == [.warned])

        // Later by an hour: both leads lie ahead again, from the new due date.
        let later = due + hour
        let (_, edited) = try book.editItem(itemID: 1, ItemEdit(dueDate: later))
        #expect(edited.events.map(\.kind) == [.replaced])
        #expect(edited.actions.contains(.withdraw(itemID: 1)), "the warning on show spoke of the old due date")
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [later - hour, later - 600])
        let all = run(&book, clock, through: [due - 600, later - hour, later - 600, later])
        #expect(all.events.map(\.kind) == [.warned, .warned, .fired], "the old 10-minute warning still came")
        #expect(all.events.map(\.due) == [later, later, later])

        // New leads replace the old ones; an empty list removes them.
        let next = later + 4 * hour
        _ = try book.editItem(itemID: 1, ItemEdit(dueDate: next, warnings: [2 * hour]))
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [next - 2 * hour])
        let (cleared, _) = try book.editItem(itemID: 1, ItemEdit(warnings: []))
        #expect(cleared.warnings.isEmpty)
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [])
    }

    @Test func checkingOffBetweenAWarningAndTheDueDateCancelsTheRest() throws {
        var (book, clock) = book()
        let due = t0 + 2 * hour
        _ = try book.addItem(NewItem(text: "bins", listID: 1, dueDate: due, shouldRemind: true, warnings: [hour, 600]))
        clock.set(due - hour)
        #expect(book.advance().events.map(\.kind) == [.warned])
        clock.set(due - 30 * 60)
        let (_, checked) = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(checked.events.map(\.kind) == [.cancelled])
        #expect(checked.actions.contains(.withdraw(itemID: 1)), "the warning on screen is withdrawn")
        #expect(run(&book, clock, through: [due - 600, due, due + hour]).events.isEmpty)
    }

    @Test func aSentWarningIsNotSentAgainAfterARestart() throws {
        var (book, clock) = book()
        let due = t0 + 2 * hour
        _ = try book.addItem(NewItem(text: "meds", listID: 1, dueDate: due, shouldRemind: true, warnings: [hour, 600]))
        clock.set(due - hour)
        #expect(book.advance().events.map(\.kind) == [.warned])

        // Restarted a minute later, with the library as the store holds it.
        clock.set(due - hour + 60)
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        #expect(restarted.start().events.isEmpty)
        #expect(restarted.scheduler.pendingReminder(for: 1)?.warnings == [due - 600])
    }

    @Test func warningsThatPassedWhileDownMakeOneLateWarningWhileTheDueDateIsAhead() throws {
        var (book, clock) = book()
        let due = t0 + 3 * hour
        _ = try book.addItem(
            NewItem(text: "flight", listID: 1, dueDate: due, shouldRemind: true, warnings: [2 * hour, hour, 600])
        )

        // Down through the 2 h and 1 h warnings: one late warning, the latest (1 h); the 10-minute one stays.
        clock.set(due - hour + 120)
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        let started = restarted.start()
        #expect(started.events.map(\.kind) == [.warned])
        #expect(started.events.first?.warning == hour && started.events.first?.lateBy == 120)
        #expect(started.deliveries.first?.isLate == true)
        #expect(started.deliveries.first?.warningTimeLeft == hour - 120, "a late warning tells the time left")
        #expect(started.events.first?.warningTimeLeft == hour - 120)
        #expect(restarted.scheduler.pendingReminder(for: 1)?.warnings == [due - 600])

        // Down through the due date as well: the reminder fires late, and no warning comes after it.
        clock.set(due + 60)
        var again = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        #expect(again.start().events.map(\.kind) == [.fired])
    }

    @Test func aWarningFoundLaterThanTheCatchUpWindowIsMissedSayingItWasAWarning() throws {
        var (book, clock) = book(window: 60)
        let due = t0 + 3 * hour
        _ = try book.addItem(NewItem(text: "flight", listID: 1, dueDate: due, shouldRemind: true, warnings: [2 * hour]))
        clock.set(due - hour)
        var restarted = ReminderBook(library: book.library, clock: clock, catchUpWindow: 60, timeZone: utc)
        let started = restarted.start()
        #expect(started.events.map(\.kind) == [.missed])
        #expect(started.events.first?.warning == 2 * hour && started.events.first?.catchUp == .within(60))
        #expect(started.deliveries.isEmpty)
        #expect(restarted.library.item(id: 1)?.warnedThrough == due - 2 * hour)
        #expect(restarted.library.item(id: 1)?.lastFiredAt == nil, "the reminder itself is still to come")
        clock.set(due)
        #expect(restarted.advance().events.map(\.kind) == [.fired])
    }

    @Test func aWarningPassedOverByALateFireIsSettledAtARestartAsWhileRunning() throws {
        var (book, clock) = book()
        // Daily at 09:00 UTC, warned an hour ahead; t0 is Fri 08:00.
        _ = try book.addItem(
            NewItem(text: "standup", listID: 1, shouldRemind: true, repeatRule: "*-*-* 09:00", warnings: [hour])
        )
        let saturday = t0 + 25 * hour
        // Down (or asleep) from 08:30 until Sat 08:30: Friday's fires late, and Saturday's 08:00 warning has passed.
        clock.set(saturday - 1800)
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        #expect(restarted.start().events.map(\.kind) == [.fired, .scheduled])
        #expect(restarted.scheduler.pendingReminder(for: 1)?.warnings == [])
        // Restarted again a minute later: the same warning is not sent now either.
        clock.set(saturday - 1740)
        var again = ReminderBook(library: restarted.library, clock: clock, timeZone: utc)
        #expect(again.start().events.isEmpty)
        #expect(again.scheduler.pendingReminder(for: 1)?.warnings == [])
    }

    @Test func aSnoozedFireSettlesTheWarningsItPassedOver() throws {
        var (book, clock) = book()
        let due = t0 + 3 * hour
        _ = try book.addItem(NewItem(text: "call", listID: 1, dueDate: due, shouldRemind: true, warnings: [2 * hour]))
        _ = try book.snoozeItem(itemID: 1, until: t0 + 600)
        // Asleep until past the warning's instant: the snoozed reminder fires late; the warning is passed over.
        clock.set(t0 + 1.5 * hour)
        #expect(book.advance().events.map(\.kind) == [.fired, .scheduled])
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [])
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        #expect(restarted.start().events.isEmpty, "a restart must not send the warning the fire passed over")
    }

    @Test func warningsHeldInAnyOrderComeSoonestFirst() throws {
        var library = ChecklistLibrary()
        let due = t0 + 2 * hour
        var item = ChecklistItem(itemID: 1, text: "x", dueDate: due, shouldRemind: true, createdAt: t0 - 60)
        item.warnings = [600, hour]  // as a hand-edited store may hold them
        try library.apply(.putItem(item, listID: 1))
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: library, clock: clock, timeZone: utc)
        _ = book.start()
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [due - hour, due - 600])
        let all = run(&book, clock, through: [due - hour, due - 600])
        #expect(all.events.map(\.warning) == [hour, 600])
    }

    @Test func eachOccurrenceOfARecurringItemIsWarned() throws {
        var (book, clock) = book()
        // Daily at 09:00 UTC; t0 is 08:00, so the first occurrence is an hour away.
        _ = try book.addItem(
            NewItem(text: "standup", listID: 1, shouldRemind: true, repeatRule: "*-*-* 09:00", warnings: [600])
        )
        let first = t0 + hour
        let second = first + 24 * hour
        let all = run(&book, clock, through: [first - 600, first, second - 600, second])
        #expect(all.events.map(\.kind) == [.warned, .fired, .scheduled, .warned, .fired, .scheduled])
        #expect(all.events.filter { $0.kind == .warned }.map(\.due) == [first, second])
    }

    @Test func aSnoozedReminderHasNoWarnings() throws {
        var (book, clock) = book()
        let due = t0 + hour
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: due, shouldRemind: true, warnings: [600]))
        clock.set(due)
        #expect(book.advance().events.map(\.kind) == [.fired])
        _ = try book.snoozeItem(itemID: 1, until: due + 3 * hour)
        #expect(book.scheduler.pendingReminder(for: 1)?.warnings == [])
        #expect(run(&book, clock, through: [due + 3 * hour - 600, due + 3 * hour]).events.map(\.kind) == [.fired])
    }

    @Test func leadsReadAsPeopleAndProgramsWriteThemAndBadOnesAreRefused() throws {
        #expect(try Warnings.parse("1h,10m") == [hour, 600])
        #expect(try Warnings.parse("10m, 1h, 10m") == [hour, 600])
        #expect(try Warnings.parse(["PT10M", "P1D"]) == [86_400, 600])
        let nineAlike = Array(repeating: "1m", count: 9).joined(separator: ",")
        for bad in ["", "1h,", "soon", "0m", "367d", "1s,2s,3s,4s,5s,6s,7s,8s,9s", nineAlike, "1mo"] {
            let error = #expect(throws: ModelError.self) { try Warnings.parse(bad) }
            #expect(error?.code == .invalidWarning, "\(bad)")
            #expect(error?.description.contains("1h,10m") == true)
        }
        var (book, _) = book()
        #expect(throws: ModelError.self) {
            try book.addItem(NewItem(text: "x", listID: 1, dueDate: t0 + hour, shouldRemind: true, warnings: [-5]))
        }
        #expect(book.library.itemCount == 0)
    }
}
