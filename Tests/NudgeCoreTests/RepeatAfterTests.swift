import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

/// Fri 2027-01-15 08:00:00 UTC, 09:00 in Berlin.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let berlin = TimeZone(identifier: "Europe/Berlin")!
private let zones = ZoneRulesStore()
private let twoWeeks: TimeInterval = 14 * 86_400

/// Repeat after completion (`--repeat-after`): a check-off leaves the item open, due again that long after it was
/// done (an item due on a day: that many days after the day), on the manual clock.
@Suite struct RepeatAfterTests {
    private func book(at instant: Date = t0) -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(instant)
        return (ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin), clock)
    }

    private func day(_ iso: String) throws -> CalendarDay { try #require(CalendarDay(iso: iso)) }

    @Test func aCheckOffMakesItDueAgainThatLongAfterTheMomentItWasDone() throws {
        var (book, clock) = book()
        let due = t0 + 3600
        let (item, _) = try book.addItem(
            NewItem(text: "haircut", listID: 1, dueDate: due, shouldRemind: true, repeatAfter: twoWeeks)
        )
        #expect(item.repeatAfter == twoWeeks && book.scheduler.pendingReminder(for: item.itemID)?.due == due)

        // It fires, and stays due and then overdue until it is done, as any item.
        clock.set(due)
        #expect(book.advance().events.map(\.kind) == [.fired])
        clock.set(due + 3 * 86_400)
        let (done, outcome) = try book.editItem(itemID: item.itemID, ItemEdit(checked: true))
        #expect(!done.checked && done.completedAt == nil)
        #expect(done.dueDate == due + 3 * 86_400 + twoWeeks && done.completedThrough == due)
        #expect(outcome.events.map(\.kind) == [.completed, .scheduled])
        #expect(outcome.events[0].due == due)
        #expect(book.scheduler.pendingReminder(for: item.itemID)?.due == due + 3 * 86_400 + twoWeeks)

        // Done early, before it fell due: the next round counts from then too, and the pending reminder is replaced.
        clock.set(due + 4 * 86_400)
        let (early, replaced) = try book.editItem(itemID: item.itemID, ItemEdit(checked: true))
        #expect(early.dueDate == due + 4 * 86_400 + twoWeeks && early.completedThrough == done.dueDate)
        #expect(replaced.events.map(\.kind) == [.completed, .replaced])
    }

    @Test func anItemDueOnADayComesBackThatManyDaysAfterTheDayItWasDoneRoundedUp() throws {
        // Sat 2027-03-27 23:30 in Berlin; the clocks go forward that night.
        let lateSaturday = Date(timeIntervalSince1970: 1_806_186_600)
        var (book, _) = book(at: lateSaturday)
        let (item, _) = try book.addItem(
            NewItem(
                text: "filter",
                listID: 1,
                dueDay: try day("2027-03-20"),
                shouldRemind: true,
                repeatAfter: 36 * 3600
            )
        )
        let (done, outcome) = try book.editItem(itemID: item.itemID, ItemEdit(checked: true))
        // 36 hours is 2 days: the day it was done (Saturday in Berlin, whatever UTC says) plus 2, at 09:00 CEST.
        #expect(done.dueDay == (try day("2027-03-29")) && !done.checked)
        #expect(done.dueDate == Date(timeIntervalSince1970: 1_806_303_600))  // 2027-03-29T07:00:00Z
        #expect(outcome.events.map(\.kind) == [.completed])
        // The day's digest brings it, not a reminder of its own.
        #expect(book.scheduler.pendingReminder(for: item.itemID) == nil)
    }

    @Test func anItemWithoutADueDateGetsOneAtItsFirstCheckOff() throws {
        var (book, _) = book()
        let (item, _) = try book.addItem(
            NewItem(text: "backup the NAS", listID: 1, shouldRemind: true, repeatAfter: 7 * 86_400)
        )
        #expect(item.dueDate == nil && book.scheduler.pendingReminder(for: item.itemID) == nil)
        let (done, outcome) = try book.editItem(itemID: item.itemID, ItemEdit(checked: true))
        #expect(done.dueDate == t0 + 7 * 86_400 && done.completedThrough == t0)
        #expect(outcome.events.map(\.kind) == [.completed, .scheduled])
    }

    @Test func itIsOneWayToRepeatOrTheOther() throws {
        var (book, _) = book()
        let both = NewItem(text: "x", listID: 1, dueDate: t0 + 60, repeatRule: "daily", repeatAfter: twoWeeks)
        #expect(throws: ModelError.repeatTwice("daily", after: twoWeeks)) { try book.addItem(both) }
        #expect(ModelError.repeatTwice("daily", after: twoWeeks).code == .conflictingRepeat)

        let (ruled, _) = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        #expect(throws: ModelError.self) {
            try book.editItem(itemID: ruled.itemID, ItemEdit(repeatRule: "weekly", repeatAfter: twoWeeks))
        }
        // Each takes the place of the other.
        let (after, _) = try book.editItem(itemID: ruled.itemID, ItemEdit(repeatAfter: twoWeeks))
        #expect(after.repeatRule == nil && after.repeatAfter == twoWeeks && after.completedThrough == nil)
        // A round done, then a rule again: the round it completed is no occurrence of the rule.
        let (round, _) = try book.editItem(itemID: ruled.itemID, ItemEdit(checked: true))
        #expect(round.completedThrough != nil && !round.checked)
        let (ruledAgain, _) = try book.editItem(itemID: ruled.itemID, ItemEdit(repeatRule: "weekly"))
        #expect(ruledAgain.repeatRule != nil && ruledAgain.repeatAfter == nil && ruledAgain.completedThrough == nil)

        // Removing the due date leaves a repeat after completion; ending the repeating ends it, and checks it off
        // for good (`done --stop`).
        let (item, _) = try book.addItem(NewItem(text: "y", listID: 1, dueDate: t0 + 60, repeatAfter: twoWeeks))
        let (undated, _) = try book.editItem(itemID: item.itemID, ItemEdit(clearsDueDate: true))
        #expect(undated.repeatAfter == twoWeeks && undated.dueDate == nil)
        let (stopped, _) = try book.editItem(itemID: item.itemID, ItemEdit(checked: true, clearsRepeat: true))
        #expect(stopped.checked && stopped.repeatAfter == nil && stopped.completedAt == t0)
    }

    @Test(
        arguments: [
            ("2w", twoWeeks), ("36h", 36 * 3600), ("1h", 3600), ("P2W", twoWeeks), ("3660d", 3660 * 86_400),
        ] as [(String, TimeInterval)]
    )
    func aLengthIsAnHourToTenYears(text: String, seconds: TimeInterval) throws {
        #expect(try RepeatAfter.parse(text) == seconds)
    }

    @Test(arguments: ["59m", "0", "3661d", "fortnight", "", "-1h"])
    func aLengthOutsideThemIsRefusedSayingWhatToGive(text: String) {
        #expect {
            try RepeatAfter.parse(text)
        } throws: { error in
            let error = error as? ModelError
            return error?.code == .invalidRepeat && error?.description.contains("like 2w, 10d or 36h") == true
                && error?.description.contains("\"\(text)\"") == true
        }
    }

    @Test func doneOnItsNotificationIsReportedOnce() throws {
        var (book, clock) = book()
        let (item, _) = try book.addItem(
            NewItem(text: "haircut", listID: 1, dueDate: t0 + 60, shouldRemind: true, repeatAfter: twoWeeks)
        )
        clock.set(t0 + 60)
        _ = book.advance()
        clock.set(t0 + 120)
        let outcome = try book.respond(to: .done, itemID: item.itemID, due: t0 + 60, snoozeLength: 600)
        #expect(outcome.events.map(\.kind) == [.completed, .scheduled])
        #expect(outcome.events.allSatisfy { $0.source == .notification })
        #expect(book.library.item(id: item.itemID)?.dueDate == t0 + 120 + twoWeeks)

        // Done again on the same notification (a second click, or after 'nudge done'): that round is done already.
        clock.set(t0 + 180)
        #expect(try book.respond(to: .done, itemID: item.itemID, due: t0 + 60, snoozeLength: 600).isEmpty)
        #expect(book.library.item(id: item.itemID)?.dueDate == t0 + 120 + twoWeeks)
    }

    /// Exported as `X-NUDGE-REPEAT-AFTER`, read back unchanged; another program that checks the task off (a
    /// one-off to it) completes the round once, counted from its COMPLETED, and the same file again changes nothing.
    @Test func itRoundTripsAndAnotherProgramsCheckOffCompletesTheRoundOnce() throws {
        var (book, _) = book()
        let due = t0 + 86_400
        _ = try book.addItem(
            NewItem(text: "haircut", listID: 1, dueDate: due, shouldRemind: true, repeatAfter: twoWeeks)
        )
        let file = book.calendarDocument()
        #expect(file.contains("X-NUDGE-REPEAT-AFTER:P14D\r\n") && !file.contains("RRULE"))
        let read = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones)
        #expect(read.tasks.first?.repeatAfter == twoWeeks)
        let (again, changes) = try book.importTasks(read.tasks, into: 1)
        #expect(again.map(\.outcome) == [.unchanged] && changes.isEmpty)

        let completedAt = t0 + 2 * 86_400
        let checkedElsewhere = file.replacingOccurrences(
            of: "STATUS:NEEDS-ACTION\r\n",
            with: "STATUS:COMPLETED\r\nCOMPLETED:20270117T080000Z\r\n"
        )
        let done = try CalendarInterchange.tasks(in: checkedElsewhere, timeZone: berlin, zones: zones).tasks
        let (results, outcome) = try book.importTasks(done, into: 1)
        #expect(results.map(\.outcome) == [.updated] && results[0].notes.contains { $0.contains("open again") })
        #expect(outcome.events.map(\.kind) == [.completed, .replaced])
        let item = try #require(book.library.item(id: 1))
        #expect(!item.checked && item.dueDate == completedAt + twoWeeks && item.completedThrough == due)
        let (twice, nothing) = try book.importTasks(done, into: 1)
        #expect(twice.map(\.outcome) == [.unchanged] && nothing.isEmpty)
        // The file from before that round, open, says nothing of the round the item is in now.
        let (older, same) = try book.importTasks(read.tasks, into: 1)
        #expect(older.map(\.outcome) == [.unchanged] && same.isEmpty, "\(older)")
        #expect(book.library.item(id: 1)?.dueDate == completedAt + twoWeeks)

        // A new task, completed, with the property: imported open, its next round counted from its completion.
        var (fresh, _) = self.book()
        let (created, _) = try fresh.importTasks(done, into: 1)
        #expect(created.map(\.outcome) == [.created])
        #expect(fresh.library.item(id: 1)?.dueDate == completedAt + twoWeeks)
    }

    @Test func aLengthItCannotUseOrARuleBesideItIsLeftOutSayingWhy() throws {
        func task(_ extra: String) throws -> CalendarTask {
            let file =
                "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:a@b\r\nSUMMARY:x\r\nDUE:20270120T080000Z\r\n" + extra
                + "END:VTODO\r\nEND:VCALENDAR\r\n"
            return try #require(try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones).tasks.first)
        }
        let short = try task("X-NUDGE-REPEAT-AFTER:PT5M\r\n")
        #expect(short.repeatAfter == nil && short.notes.contains { $0.contains("X-NUDGE-REPEAT-AFTER was left out") })
        let ruled = try task("RRULE:FREQ=DAILY\r\nX-NUDGE-REPEAT-AFTER:P2W\r\n")
        #expect(ruled.repeatAfter == nil && ruled.repeatRule != nil)
        #expect(ruled.notes.contains("line 7: X-NUDGE-REPEAT-AFTER was left out: the task repeats by a rule"))
        // Cancelled elsewhere: checked off for good, not one more round.
        let cancelled = try task("STATUS:CANCELLED\r\nX-NUDGE-REPEAT-AFTER:P2W\r\n")
        #expect(cancelled.checked && cancelled.repeatAfter == nil)
        #expect(cancelled.notes.contains("line 7: X-NUDGE-REPEAT-AFTER was left out: the task was cancelled"))
    }
}
