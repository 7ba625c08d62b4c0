import Foundation
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
        #expect(first.brought == [taxes] && !first.isFollowUp && first.lateBy == 0)
        #expect(first.digest.dueToday.map(\.text) == ["taxes"] && first.digest.overdueCount == 0)
        let event = try #require(saturday.events.only)
        let saturdayDay = try day("2027-03-27")
        #expect(event.kind == .digest && event.itemIDs == [taxes] && event.day == saturdayDay)
        #expect(event.text == "digest of 2027-03-27: 1 due today: taxes" && event.id > 0)
        // Recorded: the item is marked brought, in a change the store keeps.
        #expect(saturday.changes.count == 1 && book.library.item(id: taxes)?.lastFiredAt == saturdayNine)

        // 09:00 on Sunday is 07:00Z: 23 hours later, not 24.
        #expect(book.scheduler.nextDue == sundayNine)
        clock.set(sundayNine)
        let sunday = try #require(digests(book.advance()).only)
        #expect(sunday.brought == [taxes, rent])
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
        #expect(digests(book.advance()).map(\.brought) == [[rent]])

        clock.set(sundayNine + 3600)
        let (sweep, added) = try add("sweep", due: "2027-03-28", to: &book)
        let followUp = try #require(digests(added).only)
        #expect(followUp.isFollowUp && followUp.brought == [sweep] && followUp.broughtSummary == "sweep")
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
        #expect(digests(moved).map(\.brought) == [[later.itemID]])

        // A restart brings nothing again: what was brought is marked in the library.
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
        #expect(started.brought == [taxes] && !started.isFollowUp && started.isLate && started.lateBy == 5400)

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
