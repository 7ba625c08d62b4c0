import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

private let berlin = TimeZone(identifier: "Europe/Berlin")!
/// Sat 2027-03-27 07:00:00Z, 08:00 in Berlin; Berlin springs forward the next night (02:00 CET to 03:00 CEST).
private let saturdayEight = Date(timeIntervalSince1970: 1_806_130_800)
/// 09:00 in Berlin on Saturday (CET) and on Sunday (CEST): an hour less than a day apart.
private let saturdayNine = Date(timeIntervalSince1970: 1_806_134_400)  // 2027-03-27T08:00:00Z
private let sundayNine = Date(timeIntervalSince1970: 1_806_217_200)  // 2027-03-28T07:00:00Z

/// The daily digest of items due on a day: at `digestTime` in nudged's zone, one delivery bringing every item the day
/// lists; after it, a follow-up at once for an item added to the day; never the same item twice a day, across
/// restarts too; exact across DST on the manual clock.
@Suite struct DigestTests {
    private func day(_ iso: String) throws -> CalendarDay { try #require(CalendarDay(iso: iso)) }

    private func digests(_ outcome: ReminderBook.Outcome) -> [DigestDelivery] {
        outcome.actions.compactMap { if case .deliverDigest(let digest) = $0 { digest } else { nil } }
    }

    private func add(_ text: String, due: String, to book: inout ReminderBook) throws -> (Int, ReminderBook.Outcome) {
        let (item, outcome) = try book.addItem(NewItem(text: text, listID: 1, dueDay: try day(due), shouldRemind: true))
        return (item.itemID, outcome)
    }

    @Test func theDigestComesAtNineInNudgedsZoneExactlyAcrossTheChange() throws {
        let clock = ManualWallClock(saturdayEight)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        #expect(digests(book.start()).isEmpty)
        let (taxes, added) = try add("taxes", due: "2027-03-27", to: &book)
        let (rent, _) = try add("rent", due: "2027-03-28", to: &book)
        // No reminder of its own: the digest brings it.
        #expect(added.events.isEmpty && book.scheduler.pendingReminder(for: taxes) == nil)
        #expect(book.scheduler.nextDue == saturdayNine)

        clock.set(saturdayNine - 1)
        #expect(book.advance().events.isEmpty)
        clock.set(saturdayNine)
        let saturday = book.advance()
        let first = try #require(digests(saturday).only)
        #expect(first.itemIDs == [taxes] && !first.isFollowUp && first.lateBy == 0)
        #expect(first.digest.dueToday.map(\.text) == ["taxes"] && first.digest.overdueCount == 0)
        let event = try #require(saturday.events.only)
        let saturdayDay = try day("2027-03-27")
        #expect(event.kind == .digest && event.itemIDs == [taxes] && event.day == saturdayDay)
        #expect(event.text == "digest of 2027-03-27: 1 due today: taxes" && event.id > 0)
        // Recorded: the list's digest of the day went out, in a change the store keeps.
        #expect(saturday.changes == [.markDigestSent(listID: 1, day: saturdayDay)])
        #expect(book.library.item(id: taxes)?.lastFiredAt == nil)

        // 09:00 on Sunday is 07:00Z: 23 hours later, not 24.
        #expect(book.scheduler.nextDue == sundayNine)
        clock.set(sundayNine)
        let sunday = try #require(digests(book.advance()).only)
        #expect(sunday.itemIDs == [taxes, rent])
        #expect(sunday.digest.dueToday.map(\.itemID) == [rent] && sunday.digest.overdue.map(\.itemID) == [taxes])
        #expect(book.scheduler.nextDue == sundayNine + 86_400)
    }

    @Test func anItemAddedToTheDayAfterTheDigestFollowsAtOnceAndOnlyOnce() throws {
        let clock = ManualWallClock(sundayNine - 3600)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        let (rent, early) = try add("rent", due: "2027-03-28", to: &book)
        #expect(digests(early).isEmpty)  // Before 09:00: the digest will bring it.
        clock.set(sundayNine)
        #expect(digests(book.advance()).map(\.itemIDs) == [[rent]])

        clock.set(sundayNine + 3600)
        let (sweep, added) = try add("sweep", due: "2027-03-28", to: &book)
        let followUp = try #require(digests(added).only)
        #expect(followUp.isFollowUp && followUp.itemIDs == [sweep] && followUp.summary == "sweep")
        #expect(followUp.digest.dueTodayCount == 2)
        #expect(
            added.events.map(\.kind) == [.digest] && added.events[0].text == "added to the digest of 2027-03-28: sweep"
        )
        // An edit of an item already brought today, or one due later, brings nothing.
        #expect(digests(try book.editItem(itemID: sweep, ItemEdit(text: "sweep the hall")).1).isEmpty)
        #expect(digests(try add("later", due: "2027-03-29", to: &book).1).isEmpty)
        // Moved to today, it follows.
        let (later, _) = try book.addItem(
            NewItem(text: "call", listID: 1, dueDay: try day("2027-03-30"), shouldRemind: true)
        )
        let moved = try book.editItem(itemID: later.itemID, ItemEdit(dueDay: try day("2027-03-28"))).1
        #expect(digests(moved).map(\.itemIDs) == [[later.itemID]])

        // A restart brings nothing again: the list says its digest of the day went out.
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: berlin)
        #expect(digests(restarted.start()).isEmpty)
        #expect(restarted.scheduler.nextDue == sundayNine + 86_400)
    }

    /// nudged down at 09:00: the start brings the day's digest, late; the next day's start, before 09:00, does not
    /// bring yesterday's (today's lists it as overdue).
    @Test func aDigestMissedWhileDownComesLateOnItsOwnDayOnly() throws {
        let clock = ManualWallClock(saturdayEight)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        let (taxes, _) = try add("taxes", due: "2027-03-27", to: &book)

        clock.set(saturdayNine + 5400)
        var late = ReminderBook(library: book.library, clock: clock, timeZone: berlin)
        let started = try #require(digests(late.start()).only)
        #expect(started.itemIDs == [taxes] && !started.isFollowUp && started.isLate && started.lateBy == 5400)

        clock.set(sundayNine - 60)
        var nextDay = ReminderBook(library: book.library, clock: clock, timeZone: berlin)
        #expect(digests(nextDay.start()).isEmpty && nextDay.scheduler.nextDue == sundayNine)
        clock.set(sundayNine)
        let sunday = try #require(digests(nextDay.advance()).only)
        #expect(sunday.digest.overdue.map(\.itemID) == [taxes] && sunday.digest.dueTodayCount == 0)
    }

    /// A clock moved back finds the digest instant of the day it is now; `digestTime` is nudged's.
    @Test func theDigestFollowsTheClockAndTheDigestTime() throws {
        let clock = ManualWallClock(sundayNine + 3600)
        var book = ReminderBook(
            library: ChecklistLibrary(),
            clock: clock,
            timeZone: berlin,
            digestTime: 7 * 3600 + 1800
        )
        _ = book.start()
        // Nothing a digest may list: nudged does not wake for one.
        #expect(book.scheduler.nextDue == nil)
        let (taxes, _) = try add("taxes", due: "2027-04-01", to: &book)
        #expect(book.scheduler.nextDue == sundayNine + 86_400 - 5400)  // Monday 07:30 CEST.
        clock.set(saturdayEight)
        #expect(book.advance().events.isEmpty)
        #expect(book.scheduler.nextDue == sundayNine - 5400)  // Saturday 07:30 CET has passed: Sunday's.
        _ = try book.editItem(itemID: taxes, ItemEdit(checked: true))
        #expect(book.scheduler.nextDue == nil)
    }

    /// A list may have a digest time of its own: each list's digest goes out at its time, the notification showing
    /// every list sent that day; a time changed after the list's digest went out sends nothing again, one moved to
    /// before now sends it at once.
    @Test func aListsOwnDigestTimeSendsItsDigestThen() throws {
        let clock = ManualWallClock(saturdayEight - 3600)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        let (work, _) = try book.addList(name: "Work")
        let (home, _) = try book.addList(name: "Home")
        _ = try book.updateList(listID: work.listID, digestTime: .some(7 * 3600 + 1800))
        let (taxes, _) = try add("taxes", due: "2027-03-27", to: &book)
        let (report, _) = try book.addItem(
            NewItem(text: "report", listID: work.listID, dueDay: try day("2027-03-27"), shouldRemind: true)
        )
        let (garden, _) = try book.addItem(
            NewItem(text: "garden", listID: home.listID, dueDay: try day("2027-03-27"), shouldRemind: true)
        )
        #expect(book.scheduler.nextDue == saturdayNine - 5400)  // Work's 07:30 CET.
        clock.set(saturdayNine - 5400)
        let early = try #require(digests(book.advance()).only)
        #expect(early.itemIDs == [report.itemID] && early.digest.dueToday.map(\.text) == ["report"])
        #expect(book.scheduler.nextDue == saturdayNine)
        // Work's time moved after its digest went out: nothing again. Home's moved to before now: at once.
        clock.set(saturdayEight)
        #expect(digests(try book.updateList(listID: work.listID, digestTime: .some(8 * 3600 + 1800))).isEmpty)
        let moved = try #require(digests(try book.updateList(listID: home.listID, digestTime: .some(7 * 3600))).only)
        #expect(moved.itemIDs == [garden.itemID] && moved.lateBy == 3600)
        #expect(moved.digest.dueToday.map(\.text) == ["report", "garden"])
        clock.set(saturdayNine)
        let nine = try #require(digests(book.advance()).only)
        #expect(nine.itemIDs == [taxes] && nine.digest.dueTodayCount == 3)
    }

    /// An item moved from a list whose digest has not gone out to one whose has comes in a follow-up; a list added
    /// after the others' digests went out gets its own at its time; a clock set back past a digest sends it not again.
    @Test func movesNewListsAndAClockSetBackKeepOneDigestADay() throws {
        let clock = ManualWallClock(saturdayEight - 3600)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        let (work, _) = try book.addList(name: "Work")
        _ = try book.updateList(listID: work.listID, digestTime: .some(7 * 3600 + 1800))
        _ = try book.updateList(listID: 1, digestTime: .some(7 * 3600 + 1800))
        let (report, _) = try book.addItem(
            NewItem(text: "report", listID: work.listID, dueDay: try day("2027-03-27"), shouldRemind: true)
        )
        clock.set(saturdayNine - 5400)
        #expect(digests(book.advance()).map(\.itemIDs) == [[report.itemID]])
        // Both lists went out at 07:30; Home, added at 08:00 with nudged's 09:00, goes out at 09:00.
        clock.set(saturdayEight)
        let (home, _) = try book.addList(name: "Home")
        let (garden, _) = try book.addItem(
            NewItem(text: "garden", listID: home.listID, dueDay: try day("2027-03-27"), shouldRemind: true)
        )
        #expect(book.scheduler.nextDue == saturdayNine)
        let (taxes, _) = try book.addItem(
            NewItem(text: "taxes", listID: home.listID, dueDay: try day("2027-03-27"), shouldRemind: true)
        )
        // Moved from Home (not out yet) to Work (out): it follows up.
        let moved = try book.editItem(itemID: taxes.itemID, ItemEdit(listID: work.listID)).1
        #expect(digests(moved).map(\.itemIDs) == [[taxes.itemID]])
        clock.set(saturdayNine)
        #expect(digests(book.advance()).map(\.itemIDs) == [[garden.itemID]])

        clock.set(sundayNine + 3600)
        #expect(digests(book.advance()).count == 1)
        clock.set(saturdayNine + 3600)
        #expect(digests(book.advance()).isEmpty)
        // Sunday's wake-up finds Sunday's digests gone out already.
        #expect(book.scheduler.nextDue == sundayNine - 5400)
        clock.set(sundayNine - 5400)
        #expect(digests(book.advance()).isEmpty)
    }

    /// An import that puts several items on a day whose digest went out makes one follow-up, not one each.
    @Test func anImportFollowsUpOnceForAllItPutOnTheDay() throws {
        let clock = ManualWallClock(saturdayNine + 600)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        _ = try add("taxes", due: "2027-03-27", to: &book)
        _ = book.advance()
        let file =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
            + (1...12).map {
                "BEGIN:VTODO\r\nUID:t\($0)\r\nSUMMARY:task \($0)\r\nDUE;VALUE=DATE:20270327\r\n"
                    + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:PT9H\r\nEND:VALARM\r\nEND:VTODO\r\n"
            }
            .joined() + "END:VCALENDAR\r\n"
        let (tasks, _) = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: ZoneRulesStore())
        let imported = digests(try book.importTasks(tasks, into: 1).1)
        let followUp = try #require(imported.only)
        #expect(followUp.addedCount == 12 && followUp.added.count == DigestDelivery.entryLimit)
        #expect(followUp.itemIDs == Array(2...13) && followUp.summary.hasSuffix("task 10, 2 more"))
    }

    /// A day item snoozed to an instant reminds alone then, as any snoozed item.
    @Test func aSnoozedDayItemRemindsAlone() throws {
        let clock = ManualWallClock(saturdayEight)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        let (taxes, _) = try add("taxes", due: "2027-03-29", to: &book)
        _ = try book.snoozeItem(itemID: taxes, until: saturdayEight + 600)
        #expect(book.scheduler.pendingReminder(for: taxes)?.due == saturdayEight + 600)
        clock.set(saturdayEight + 600)
        #expect(book.advance().deliveries.map(\.reminder.itemID) == [taxes])
        #expect(book.scheduler.pendingReminder(for: taxes) == nil)
    }
}

extension Array {
    /// The one element, or nil if there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
