import Foundation
import Testing

@testable import NudgeCore

/// Fri 2027-01-15 08:00:00 UTC, 09:00 in Berlin.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let berlin = TimeZone(identifier: "Europe/Berlin")!

/// Items due on a day, without a time: the day is kept (the daily digest brings them: `DigestTests`).
@Suite struct DueDayTests {
    private func book() -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(t0)
        return (ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin), clock)
    }

    private func day(_ iso: String) throws -> CalendarDay { try #require(CalendarDay(iso: iso)) }

    /// A day's `dueDate`, where it sorts and exports, is 09:00 of it in nudged's zone: on 2027-03-28, when Berlin
    /// springs forward (02:00 CET to 03:00 CEST), 07:00Z, not 08:00Z. It reminds through the digest, not alone.
    @Test func aDaySortsAt9InNudgedsZoneAcrossTheChangeAndHasNoReminderOfItsOwn() throws {
        var (book, _) = book()
        let sunday = try day("2027-03-28")
        let (item, added) = try book.addItem(NewItem(text: "taxes", listID: 1, dueDay: sunday, shouldRemind: true))
        let nine = Date(timeIntervalSince1970: 1_806_217_200)  // 2027-03-28T07:00:00Z
        #expect(item.dueDay == sunday && item.dueDate == nine)
        #expect(added.events.isEmpty && book.scheduler.pendingReminder(for: item.itemID) == nil)
    }

    @Test func anInstantAndADayTogetherAreRefused() throws {
        var (book, _) = book()
        let both = #expect(throws: ModelError.self) {
            try book.addItem(NewItem(text: "x", listID: 1, dueDate: t0 + 60, dueDay: try day("2027-01-16")))
        }
        #expect(both?.code == .invalidDue)
        #expect(both?.description.contains("give one: a day alone is due all that day") == true)
        let (item, _) = try book.addItem(NewItem(text: "x", listID: 1))
        let edit = #expect(throws: ModelError.self) {
            try book.editItem(itemID: item.itemID, ItemEdit(dueDate: t0 + 60, dueDay: try day("2027-01-16")))
        }
        #expect(edit?.code == .invalidDue)
    }

    @Test func anEditMovesBetweenAnInstantAndADay() throws {
        var (book, _) = book()
        let (item, _) = try book.addItem(NewItem(text: "x", listID: 1, dueDate: t0 + 3600, shouldRemind: true))
        let id = item.itemID
        let saturday = try day("2027-01-16")
        _ = try book.editItem(itemID: id, ItemEdit(dueDay: saturday))
        #expect(book.library.item(id: id)?.dueDay == saturday)
        #expect(book.scheduler.pendingReminder(for: id) == nil)
        _ = try book.editItem(itemID: id, ItemEdit(dueDate: t0 + 7200))
        #expect(book.library.item(id: id)?.dueDay == nil && book.library.item(id: id)?.dueDate == t0 + 7200)
        _ = try book.editItem(itemID: id, ItemEdit(dueDay: saturday))
        _ = try book.editItem(itemID: id, ItemEdit(clearsDueDate: true))
        #expect(book.library.item(id: id)?.dueDay == nil && book.library.item(id: id)?.dueDate == nil)
        #expect(book.scheduler.pendingReminder(for: id) == nil)
    }

    /// A series is due at its occurrences: a day given with a rule is where it starts, and the item keeps no day.
    @Test func aDayWithARepeatIsWhereTheSeriesStarts() throws {
        var (book, _) = book()
        let (item, _) = try book.addItem(
            NewItem(text: "water", listID: 1, dueDay: try day("2027-01-20"), shouldRemind: true, repeatRule: "08:00")
        )
        #expect(item.dueDay == nil && item.repeatRule == "*-*-* 08:00:00")
        #expect(item.dueDate == (try day("2027-01-20")).instant(at: 8 * 3600, in: berlin))
        let (timed, _) = try book.addItem(NewItem(text: "tea", listID: 1, dueDay: try day("2027-01-20")))
        _ = try book.editItem(itemID: timed.itemID, ItemEdit(repeatRule: "08:00"))
        #expect(book.library.item(id: timed.itemID)?.dueDay == nil)
    }

    @Test func aDayReadsItsISOTextOnlyWhenTheDateExists() {
        #expect(CalendarDay(iso: "2028-02-29")?.iso == "2028-02-29")
        for bad in ["2027-02-29", "2027-13-01", "2027-1-01", "27-01-01", "2027-01-01T09:00", "１０２７-01-01", ""] {
            #expect(CalendarDay(iso: bad) == nil, "\(bad)")
        }
        #expect(CalendarDay(containing: t0, in: TimeZone(identifier: "Pacific/Kiritimati")!).iso == "2027-01-15")
        #expect(CalendarDay(containing: t0, in: TimeZone(identifier: "Pacific/Pago_Pago")!).iso == "2027-01-14")
    }

    /// The digest lists open, reminding items due on a day: on the day itself, or overdue; not those due later, at a
    /// time, checked off or not reminding. Oldest first, then by ID, at most `limit` of each group, counts of all.
    @Test func theDigestListsWhatIsDueOnTheDayAndOverdueOldestFirst() throws {
        var (book, _) = book()
        let friday = try day("2027-01-15")
        let plan: [(String, String?, Bool)] = [
            ("rent", "2027-01-15", true), ("taxes", "2027-01-13", true), ("bills", "2027-01-14", true),
            ("later", "2027-01-16", true), ("quiet", "2027-01-15", false), ("done", "2027-01-14", true),
            ("timed", nil, true), ("sweep\nfloor", "2027-01-15", true), ("old", "2027-01-13", true),
        ]
        for (text, due, remind) in plan {
            _ = try book.addItem(
                NewItem(
                    text: text,
                    listID: 1,
                    dueDate: due == nil ? t0 + 60 : nil,
                    dueDay: try due.map(day),
                    shouldRemind: remind
                )
            )
        }
        _ = try book.editItem(itemID: 6, ItemEdit(checked: true))
        let digest = book.library.digest(on: friday, limit: 2)
        #expect(digest.overdue.map(\.itemID) == [2, 9] && digest.overdueCount == 3)
        #expect(digest.dueToday.map(\.itemID) == [1, 8] && digest.dueTodayCount == 2 && digest.count == 5)
        let wednesday = try day("2027-01-13")
        #expect(digest.dueToday.first?.listName == "Inbox" && digest.overdue.first?.dueDay == wednesday)
        #expect(digest.summary == "2 due today: rent, sweep\\nfloor; 3 overdue: taxes, old, 1 more")
        #expect(book.library.digest(on: try day("2027-01-12"), limit: 10).summary == "nothing due today")
    }
}
