import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let fire = t0 + 60
private let every: TimeInterval = 600
private let utc = TimeZone(identifier: "UTC")!

/// A nagging item: its fire, while not acknowledged, is delivered again every `every`, at most `times` times, at
/// exact instants, as the one pending reminder of the item; repeats that passed unwatched are one late repeat.
@Suite struct NagTests {
    /// A book holding item 1, due at `fire` with `nag`, started at t0.
    private func book(_ nag: Nag, repeatRule: String? = nil) throws -> (ReminderBook, ManualWallClock) {
        let clock = ManualWallClock(t0)
        var library = ChecklistLibrary()
        let new = NewItem(text: "tea", listID: 1, dueDate: fire, shouldRemind: true, repeatRule: repeatRule)
        guard case .putItem(var item, let listID) = try library.makeAddItem(new, now: t0, zones: ZoneRulesStore())
        else { preconditionFailure("an add puts an item") }
        item.nag = nag
        try library.apply(.putItem(item, listID: listID))
        var book = ReminderBook(library: library, clock: clock, timeZone: utc)
        _ = book.start()
        return (book, clock)
    }

    private func kinds(_ outcome: ReminderBook.Outcome) -> [ReminderEvent.Kind] {
        outcome.events.map(\.kind).filter { $0 != .scheduled }
    }

    @Test func aFireRepeatsExactlyTimesAtExactInstantsThenIsExhausted() throws {
        var (book, clock) = try book(Nag(every: every, times: 3))
        clock.set(fire)
        #expect(kinds(book.advance()) == [.fired])
        #expect(book.scheduler.pendingReminder(for: 1)?.due == fire + every, "the repeat is the item's pending one")
        for number in 1...3 {
            let instant = fire + every * Double(number)
            clock.set(instant - 1)
            #expect(book.advance().events.isEmpty, "nothing before repeat \(number)'s instant")
            clock.set(instant)
            let outcome = book.advance()
            #expect(kinds(outcome) == (number == 3 ? [.renotified, .exhausted] : [.renotified]))
            // About the due instant that fired, as the sinks show it, on time by the repeat's own instant.
            #expect(outcome.events[0].repeatNumber == number && outcome.events[0].due == fire)
            #expect(outcome.events[0].at == instant && outcome.events[0].lateBy == 0)
            #expect(outcome.deliveries.map(\.reminder.repeating?.number) == [number])
            #expect(outcome.deliveries.map(\.reminder.due) == [fire])
            #expect(book.library.item(id: 1)?.repeatCount == number)
        }
        #expect(book.scheduler.pendingReminder(for: 1) == nil)
        clock.set(fire + 10 * every)
        #expect(book.advance().events.isEmpty, "no repeat after the last")
        #expect(book.library.item(id: 1)?.unacknowledgedSince == fire, "exhausted, it still awaits acknowledgement")
    }

    @Test(arguments: ["ack", "done", "snooze", "edit"])
    func anAcknowledgementStopsTheRepeats(by way: String) throws {
        var (book, clock) = try book(Nag(every: every))
        clock.set(fire)
        _ = book.advance()
        clock.set(fire + every)
        #expect(kinds(book.advance()) == [.renotified])
        clock.set(fire + every + 30)
        switch way {
        case "ack": _ = try book.acknowledgeItem(itemID: 1)
        case "done": _ = try book.editItem(itemID: 1, ItemEdit(checked: true))
        case "snooze": _ = try book.snoozeItem(itemID: 1, until: fire + 100 * every)
        default: _ = try book.editItem(itemID: 1, ItemEdit(text: "green tea"))
        }
        #expect(book.scheduler.pendingReminder(for: 1)?.repeating == nil, "\(way)")
        clock.set(fire + 5 * every)
        #expect(!book.advance().events.contains { $0.kind == .renotified }, "\(way)")
    }

    @Test func closingTheNotificationAcknowledgesOnlyWhatNagsUntilSeen() throws {
        for untilSeen in [false, true] {
            var (book, clock) = try book(Nag(every: every, untilSeen: untilSeen))
            clock.set(fire)
            _ = book.advance()
            clock.set(fire + 30)
            _ = try book.respond(to: .expired, itemID: 1, due: fire, snoozeLength: 600)
            #expect(book.library.item(id: 1)?.unacknowledgedSince == fire, "the server took it down: not seen")
            let closed = try book.respond(to: .dismissed, itemID: 1, due: fire, snoozeLength: 600)
            #expect(book.library.item(id: 1)?.unacknowledgedSince == (untilSeen ? nil : fire))
            #expect(closed.events.map(\.kind) == (untilSeen ? [.dismissed, .acknowledged, .cancelled] : [.dismissed]))
            #expect(closed.events.allSatisfy { $0.source == .notification })
            #expect((book.scheduler.pendingReminder(for: 1)?.repeating == nil) == untilSeen)
        }
    }

    @Test func repeatsAfterTheNthComeAtHighPriority() throws {
        var (book, clock) = try book(Nag(every: every, times: 3, escalateAfter: 1))
        clock.set(fire)
        _ = book.advance()
        var priorities: [Priority] = []
        for number in 1...3 {
            clock.set(fire + every * Double(number))
            let outcome = book.advance()
            priorities += outcome.deliveries.map(\.reminder.priority)
            #expect(outcome.events.first?.priority == priorities.last)
        }
        #expect(priorities == [.normal, .high, .high])
    }

    @Test func repeatsThatPassedWhileNudgedWasDownAreOneLateRepeat() throws {
        var (book, clock) = try book(Nag(every: every, times: 4))
        clock.set(fire)
        _ = book.advance()
        // nudged stops, and starts again two and a half repeats later.
        clock.set(fire + 2.5 * every)
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        let caughtUp = restarted.start()
        #expect(kinds(caughtUp) == [.renotified])
        #expect(caughtUp.events[0].repeatNumber == 2 && caughtUp.events[0].coalesced == 2)
        #expect(caughtUp.events[0].due == fire && caughtUp.events[0].lateBy == every / 2)
        #expect(restarted.scheduler.pendingReminder(for: 1)?.due == fire + 3 * every, "then on time again")
        // Started again at once: nothing repeats twice.
        var again = ReminderBook(library: restarted.library, clock: clock, timeZone: utc)
        #expect(kinds(again.start()).isEmpty)
    }

    @Test func aRecurringItemsNextOccurrenceComesWhenDueAndStartsItsOwnRepeats() throws {
        // Daily at midnight; repeats every 10 minutes, 200 times: more than a day of them.
        var (book, clock) = try book(Nag(every: every, times: 200), repeatRule: "daily")
        let midnight = Date(timeIntervalSince1970: 1_800_057_600)
        clock.set(midnight)
        #expect(kinds(book.advance()) == [.fired])
        clock.set(midnight + 86_400 - every)
        _ = book.advance()
        #expect(book.library.item(id: 1)?.repeatCount == 143, "one repeat decided, folding those before it")
        clock.set(midnight + 86_400)
        let next = book.advance()
        #expect(kinds(next) == [.fired], "the occurrence, not a repeat of the one before")
        #expect(book.library.item(id: 1)?.unacknowledgedSince == midnight + 86_400)
        #expect(book.library.item(id: 1)?.repeatCount == 0)
        #expect(book.scheduler.pendingReminder(for: 1)?.due == midnight + 86_400 + every)
    }

    @Test func aYearOfDailyNaggingRemindersRepeatsEachDayExactlyAndNothingMore() throws {
        // Daily at midnight, never acknowledged: each day one fire, then three repeats an hour apart, then exhausted.
        var (book, clock) = try book(Nag(every: 3600, times: 3), repeatRule: "daily")
        let midnight = Date(timeIntervalSince1970: 1_800_057_600)
        let end = midnight + 365 * 86_400
        var counts: [ReminderEvent.Kind: Int] = [:]
        var instants: [Date] = []
        while let next = book.scheduler.nextDue, next < end {
            clock.set(next)
            for event in book.advance().events where event.kind != .scheduled {
                counts[event.kind, default: 0] += 1
                if event.kind == .renotified, event.lateBy == 0 { instants.append(event.at) }
            }
        }
        #expect(counts == [.fired: 365, .renotified: 3 * 365, .exhausted: 365])
        var expected: [Date] = []
        for day in 0..<365 {
            let fire: Date = midnight + Double(day) * 86_400
            for number in 1...3 { expected.append(fire + Double(number) * 3600) }
        }
        #expect(instants == expected, "every repeat at its exact instant, none late")
    }

    /// Asleep past a repeat and the next occurrence both: the occurrence fires (late), and its fire replaces the
    /// repeat; at a restart as while running.
    @Test(arguments: [false, true])
    func theNextOccurrenceFoundLateWithARepeatFiresAndTheRepeatGoes(restarting: Bool) throws {
        var (book, clock) = try book(Nag(every: every, times: 200), repeatRule: "daily")
        let midnight = Date(timeIntervalSince1970: 1_800_057_600)
        clock.set(midnight)
        _ = book.advance()
        clock.set(midnight + 86_400 + 3600)
        if restarting { book = ReminderBook(library: book.library, clock: clock, timeZone: utc) }
        let woken = restarting ? book.start() : book.advance()
        #expect(kinds(woken) == [.fired], "the occurrence, not a repeat of the day before")
        #expect(woken.events[0].due == midnight + 86_400 && woken.events[0].lateBy == 3600)
        #expect(book.library.item(id: 1)?.unacknowledgedSince == midnight + 86_400 + 3600)
        #expect(book.library.item(id: 1)?.dueDate == midnight + 2 * 86_400, "the series goes on")
        #expect(book.scheduler.pendingReminder(for: 1)?.due == midnight + 86_400 + 3600 + every)
    }

    /// An advance warning of the next reminder ends the repeats of the fire before it, at a restart too.
    @Test func aWarningOfTheNextOccurrenceEndsTheRepeatsOfTheOneBefore() throws {
        var (book, clock) = try book(Nag(every: 3 * 3600, times: 20), repeatRule: "daily")
        _ = try book.editItem(itemID: 1, ItemEdit(warnings: [4 * 3600]))
        let midnight = Date(timeIntervalSince1970: 1_800_057_600)
        clock.set(midnight)
        _ = book.advance()
        _ = try book.acknowledgeItem(itemID: 1)
        // The first day's fire is acknowledged; the next day's is not: walk its repeats to the warning of the day
        // after. (While running, the warning's turn ends them by itself; the restart below is what nextRepeat's rule
        // keeps the same.)
        clock.set(midnight + 86_400)
        _ = book.advance()
        var seen: [ReminderEvent.Kind] = []
        while let next = book.scheduler.nextDue, next < midnight + 2 * 86_400 {
            clock.set(next)
            seen += kinds(book.advance())
        }
        // Repeats at 03:00 … 18:00; the warning at 20:00; none at 21:00, before the fire at 24:00.
        #expect(seen == Array(repeating: .renotified, count: 6) + [.warned])
        var restarted = ReminderBook(library: book.library, clock: clock, timeZone: utc)
        #expect(kinds(restarted.start()).isEmpty)
        #expect(
            restarted.scheduler.pendingReminder(for: 1)?.repeating == nil,
            "the warning ended them at a restart too"
        )
    }

    @Test func aMissAfterAFireNotAcknowledgedEndsItsWait() throws {
        var (book, clock) = try book(Nag(every: every, times: 3), repeatRule: "daily")
        book.setCatchUpWindow(3600)
        let midnight = Date(timeIntervalSince1970: 1_800_057_600)
        clock.set(midnight)
        _ = book.advance()
        // Down until the next day's occurrence is past the catch-up window: it is missed, and nothing awaits the
        // fire before it any more.
        clock.set(midnight + 86_400 + 7200)
        var restarted = ReminderBook(library: book.library, clock: clock, catchUpWindow: 3600, timeZone: utc)
        #expect(kinds(restarted.start()) == [.missed])
        #expect(restarted.library.item(id: 1)?.unacknowledgedSince == nil)
        #expect(restarted.scheduler.pendingReminder(for: 1)?.repeating == nil)
    }

    /// Every pending reminder carries the field: a pointer's worth for the many that are no repeat.
    @Test func aReminderThatIsNoRepeatCarriesAPointersWorthOfIt() {
        #expect(MemoryLayout<Reminder.Repeat?>.size == MemoryLayout<Int>.size)
    }

    @Test func theStoredFormReadsBackAndNothingElseDoes() throws {
        let nag = Nag(every: 600, times: 5, untilSeen: true, escalateAfter: 2)
        #expect(nag.description == "every=PT10M;times=5;until=seen;escalateAfter=2")
        #expect(try Nag(exactly: nag.description) == nag)
        #expect(try Nag(exactly: "times=3;every=PT1H") == Nag(every: 3600, times: 3), "parts in any order")
        #expect(try Nag(parsing: "10m") == Nag(every: 600) && Nag(parsing: " PT1H , 3 ") == Nag(every: 3600, times: 3))
        for bad in ["10m,", "10m,5,1", "-10m", "10s", "often", "10m,0", "10m,1001"] {
            #expect(throws: ModelError.self, "\(bad)") { try Nag(parsing: bad) }
        }
        for bad in [
            "", "every=PT10S", "every=PT10M;times=0", "every=PT10M;every=PT1H", "times=3", "every=PT10M;x=1",
            "every=PT10M;until=never", "every=PT10M;times=2;escalateAfter=3", "every=PT10M;", "every=PT10M;times=-1",
            "every=PT10M;times=99999999999999999999", "every=PT60.5S", "every=P367D", "every=PT10M;escalateAfter=-1",
        ] {
            #expect(throws: ModelError.self, "\(bad)") { try Nag(exactly: bad) }
        }
    }
}
