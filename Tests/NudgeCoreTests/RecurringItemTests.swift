import Foundation
import Testing

@testable import NudgeCore

/// Fri 2027-01-15 08:00:00 UTC.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
/// Sat 2027-01-16 00:00:00 UTC: the first midnight after t0.
private let midnight = Date(timeIntervalSince1970: 1_800_057_600)
private let day: TimeInterval = 86_400
private let utc = TimeZone(identifier: "UTC")!

/// Items with a repeat rule: one pending reminder, the next occurrence; firing schedules the one after; checking off
/// completes one occurrence; occurrences that passed unwatched make one late decision.
@Suite struct RecurringItemTests {
    private func book(at now: Date = t0, library: ChecklistLibrary = ChecklistLibrary(), window: TimeInterval = day)
        -> (ReminderBook, ManualWallClock)
    {
        let clock = ManualWallClock(now)
        return (ReminderBook(library: library, clock: clock, catchUpWindow: window, timeZone: utc), clock)
    }

    @Test func aRecurringItemIsDueAtItsNextOccurrenceAndStoresTheNormalizedRule() throws {
        var (book, _) = book()
        let (item, added) = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        #expect(item.repeatRule == "*-*-* 00:00:00")
        #expect(item.dueDate == midnight)
        #expect(added.events.map(\.kind) == [.scheduled])
        #expect(book.scheduler.pendingReminder(for: 1)?.due == midnight)
    }

    @Test func aDueDateStartsTheSeriesAtTheFirstOccurrenceAtOrAfterIt() throws {
        var (book, _) = book()
        let start = midnight + 3 * day
        let (item, _) = try book.addItem(
            NewItem(text: "w", listID: 1, dueDate: start, shouldRemind: true, repeatRule: "daily")
        )
        #expect(item.dueDate == start)
        let (later, _) = try book.addItem(
            NewItem(text: "w", listID: 1, dueDate: start + 1, shouldRemind: true, repeatRule: "daily")
        )
        #expect(later.dueDate == start + day)
    }

    @Test func firingSchedulesTheNextOccurrenceAndRecordsTheFiredOne() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        for occurrence in 0..<3 {
            let due = midnight + Double(occurrence) * day
            clock.set(due)
            let fired = book.advance()
            #expect(fired.events.map(\.kind) == [.fired, .scheduled])
            #expect(fired.events.map(\.due) == [due, due + day])
            #expect(fired.deliveries.map(\.reminder.due) == [due])
            #expect(fired.events[0].coalesced == nil)
            #expect(fired.actions.last == .armTimer(at: due + day))
            let item = try #require(book.library.item(id: 1))
            #expect(item.lastFiredAt == due)
            #expect(item.dueDate == due + day)
            #expect(!item.checked)
        }
    }

    @Test func occurrencesThatPassedWhileDownFireOnceSayingHowMany() throws {
        var (first, _) = book()
        _ = try first.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        // Down from before the first occurrence until 6 h after the fourth.
        let now = midnight + 3 * day + 6 * 3600
        var (restarted, _) = book(at: now, library: first.library)
        let started = restarted.start()
        #expect(started.events.map(\.kind) == [.fired, .scheduled])
        #expect(started.deliveries.count == 1)
        let fired = started.events[0]
        #expect(fired.due == midnight + 3 * day)
        #expect(abs((fired.lateBy ?? 0) - 6 * 3600) < 0.001)
        #expect(fired.coalesced == 4)
        #expect(started.deliveries.first?.coalesced == 4)
        #expect(started.events[1].due == midnight + 4 * day)
        #expect(restarted.library.item(id: 1)?.lastFiredAt == midnight + 3 * day)

        // Restarting again fires nothing more.
        var (again, _) = book(at: now + 60, library: restarted.library)
        #expect(again.start().deliveries.isEmpty)
    }

    @Test func aCoalescedOccurrenceOlderThanTheCatchUpWindowIsMissedAndTheSeriesGoesOn() throws {
        var (first, _) = book(window: 3600)
        _ = try first.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let now = midnight + 2 * day + 6 * 3600
        var (restarted, _) = book(at: now, library: first.library, window: 3600)
        let started = restarted.start()
        #expect(started.events.map(\.kind) == [.missed, .scheduled])
        #expect(started.deliveries.isEmpty)
        #expect(started.events[0].coalesced == 3)
        #expect(started.events[1].due == midnight + 3 * day)
    }

    @Test func checkingOffBeforeItFiresCompletesThePendingOccurrenceAndTheItemStaysOpen() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let (item, done) = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(!item.checked)
        #expect(item.completedThrough == midnight)
        #expect(item.dueDate == midnight + day)
        #expect(done.events.map(\.kind) == [.completed, .replaced])
        #expect(done.events[0].due == midnight)
        #expect(done.events[1].previousDue == midnight)
        #expect(done.events.map(\.id) == [done.events[0].id, done.events[0].id + 1])
        #expect(!done.actions.contains(.withdraw(itemID: 1)))
    }

    @Test func checkingOffAfterItFiredCompletesTheFiredOccurrenceAndKeepsTheNextOne() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        clock.set(midnight + 60)
        _ = book.advance()
        let (item, done) = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(item.completedThrough == midnight)
        #expect(item.dueDate == midnight + day)
        #expect(done.events.map(\.kind) == [.completed, .replaced])
        // A second check-off now completes the pending one.
        let (again, _) = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(again.completedThrough == midnight + day)
        #expect(again.dueDate == midnight + 2 * day)
    }

    @Test func checkingOffWhileEndingTheSeriesChecksTheItemOff() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let (item, done) = try book.editItem(itemID: 1, ItemEdit(checked: true, clearsRepeat: true))
        #expect(item.checked)
        #expect(item.repeatRule == nil)
        #expect(done.events.map(\.kind) == [.cancelled])
        #expect(done.actions.contains(.withdraw(itemID: 1)))
    }

    @Test func clearingTheRuleLeavesTheNextOccurrenceAsAOneOff() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let (item, _) = try book.editItem(itemID: 1, ItemEdit(clearsRepeat: true))
        #expect(item.repeatRule == nil)
        #expect(item.dueDate == midnight)
        clock.set(midnight)
        #expect(book.advance().events.map(\.kind) == [.fired])
        clock.set(midnight + day)
        #expect(book.advance().events.isEmpty)
    }

    @Test func clearingTheDueDateEndsTheSeries() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let (item, edited) = try book.editItem(itemID: 1, ItemEdit(clearsDueDate: true))
        #expect(item.repeatRule == nil && item.dueDate == nil)
        #expect(edited.events.map(\.kind) == [.cancelled])
    }

    /// Found by generated requests (it was refused 400): a rule set as the due date is removed starts the series at
    /// the rule's next occurrence, as the rule alone would.
    @Test func aRuleSetAsTheDueDateIsRemovedStartsTheSeriesAfresh() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let (item, edited) = try book.editItem(itemID: 1, ItemEdit(clearsDueDate: true, repeatRule: "hourly"))
        #expect(item.repeatRule == "*-*-* *:00:00")
        #expect(item.dueDate == t0 + 3600)
        #expect(edited.events.map(\.kind) == [.replaced])
    }

    @Test func editingTheRuleReplacesThePendingReminder() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "daily"))
        let (item, edited) = try book.editItem(itemID: 1, ItemEdit(repeatRule: "hourly"))
        #expect(item.repeatRule == "*-*-* *:00:00")
        #expect(item.dueDate == t0 + 3600)
        #expect(edited.events.map(\.kind) == [.replaced])
        #expect(edited.events[0].previousDue == midnight)
    }

    @Test func aRuleSystemdRefusesIsRefusedNamingThePart() throws {
        var (book, _) = book()
        #expect {
            _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: "*-*-* 25:00"))
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .invalidRepeat && error.description.contains("*-*-* 25:00")
        }
        #expect(book.library.itemCount == 0)
    }

    /// Found by generated requests: `*:*:0/0.000001` was taken, and a tenth of a second of manual clock then took
    /// nudged 51 s and 220,001 events. Occurrences closer than a second are refused; a second apart are not.
    @Test(arguments: [
        ("*:*:0/0.000001", false), ("*:*:0/0.5", false), ("*:*:0.25,0.5", false), ("*:*:10,10.999", false),
        ("*:*:0..59/0.9", false), ("*:*:59.5,0", false), ("*:*:*", true), ("*:*:0/1", true), ("*:*:0.5/1", true),
        ("*:*:00,59", true), ("*:*:0/0.5,30", false), ("*:*:30/0.5", false),
        ("Mon..Fri 09:30", true), ("minutely", true),
    ])
    func occurrencesLessThanASecondApartAreRefused(_ rule: String, _ taken: Bool) {
        var (book, _) = book()
        let added = Result { try book.addItem(NewItem(text: "tick", listID: 1, shouldRemind: true, repeatRule: rule)) }
        switch added {
        case .success: #expect(taken, "\(rule) was taken")
        case .failure(let error as ModelError):
            #expect(!taken, "\(rule): \(error)")
            #expect(error.code == .invalidRepeat)
            #expect(error.description.contains("less than 1 second apart"))
        case .failure(let error): Issue.record("\(rule): \(error)")
        }
    }

    @Test func switchingRemindingOnForASeriesThatFellBehindSchedulesItsNextOccurrence() throws {
        var (book, clock) = book()
        _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: false, repeatRule: "daily"))
        clock.set(midnight + 2 * day + 3600)
        let (item, edited) = try book.editItem(itemID: 1, ItemEdit(shouldRemind: true))
        #expect(item.dueDate == midnight + 3 * day)
        #expect(edited.events.map(\.kind) == [.scheduled])
    }

    @Test func aRuleLongerThanALineIsRefusedWithoutBeingParsed() throws {
        var (book, _) = book()
        let long = "Mon..Fri " + Array(repeating: "09:00", count: 300).joined(separator: ",")
        #expect {
            _ = try book.addItem(NewItem(text: "water", listID: 1, shouldRemind: true, repeatRule: long))
        } throws: { error in
            (error as? ModelError)?.description.contains("at most 1000 bytes") == true
        }
    }

    /// The daemon's zone applies to a rule without one; a rule that names a zone keeps it whatever the daemon's.
    @Test func aRuleIsEvaluatedInItsOwnZoneOrElseTheDaemons() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(
            library: ChecklistLibrary(),
            clock: clock,
            timeZone: TimeZone(identifier: "America/New_York")!
        )
        let (local, _) = try book.addItem(NewItem(text: "a", listID: 1, shouldRemind: true, repeatRule: "*-*-* 09:00"))
        let (berlin, _) = try book.addItem(
            NewItem(text: "b", listID: 1, shouldRemind: true, repeatRule: "*-*-* 09:00 Europe/Berlin")
        )
        #expect(local.dueDate == Date(timeIntervalSince1970: 1_800_021_600))  // 2027-01-15T14:00:00Z, 09:00 EST
        #expect(berlin.dueDate == Date(timeIntervalSince1970: 1_800_086_400))  // 2027-01-16T08:00:00Z, 09:00 CET
    }
}
