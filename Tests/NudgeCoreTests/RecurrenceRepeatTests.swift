import Foundation
import NudgeCalendar
import NudgeRecurrence
import NudgeTestSupport
import Testing

@testable import NudgeCore

/// Fri 2027-01-15 08:00:00 UTC.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
/// Tue 2027-01-19 19:00:00 UTC.
private let tuesday = Date(timeIntervalSince1970: 1_800_385_200)
private let day: TimeInterval = 86_400
private let week = 7 * day
private let utc = TimeZone(identifier: "UTC")!
private let zones = ZoneRulesStore()

/// Items that repeat by an RFC 5545 recurrence (`Recurrence`): kept with their start, evaluated by libical, and
/// fired, snoozed, warned, caught up and coalesced as items that repeat by a calendar expression are.
@Suite struct RecurrenceRepeatTests {
    private func book(at now: Date = t0, library: ChecklistLibrary = ChecklistLibrary(), zone: TimeZone = utc)
        -> (ReminderBook, ManualWallClock)
    {
        let clock = ManualWallClock(now)
        return (ReminderBook(library: library, clock: clock, catchUpWindow: day, timeZone: zone), clock)
    }

    /// Adds a reminding item repeating by `rule`, due at `due` (where the rule is counted from without a DTSTART).
    @discardableResult
    private func add(
        _ rule: String,
        to book: inout ReminderBook,
        due: Date? = tuesday,
        warnings: [TimeInterval] = []
    ) throws -> ChecklistItem {
        try book.addItem(
            NewItem(text: "t", listID: 1, dueDate: due, shouldRemind: true, repeatRule: rule, warnings: warnings)
        ).0
    }

    private func biweekly(_ book: inout ReminderBook, warnings: [TimeInterval] = []) throws -> ChecklistItem {
        try add("RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", to: &book, warnings: warnings)
    }

    @Test func anRRuleIsCountedFromTheDueDateAndKeptWithItsStart() throws {
        var (book, clock) = book()
        let item = try biweekly(&book)
        #expect(item.repeatRule == "DTSTART:20270119T190000 RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU")
        #expect(item.dueDate == tuesday)
        for round in 0..<3 {
            let due = tuesday + Double(round) * 2 * week
            clock.set(due)
            let fired = book.advance()
            #expect(fired.events.map(\.kind) == [.fired, .scheduled])
            #expect(fired.events.map(\.due) == [due, due + 2 * week])
        }
    }

    @Test func aRuleWithoutAStartStartsNowAndOneGivenWholeKeepsItsOwn() throws {
        var (book, _) = book()
        let (now, _) = try book.addItem(
            NewItem(text: "hourly", listID: 1, shouldRemind: true, repeatRule: "RRULE:FREQ=HOURLY;INTERVAL=5")
        )
        #expect(now.repeatRule == "DTSTART:20270115T080000 RRULE:FREQ=HOURLY;INTERVAL=5")
        #expect(now.dueDate == t0 + 5 * 3600)
        let whole = "DTSTART:20270101T120000Z RRULE:FREQ=DAILY;INTERVAL=3"
        let (own, _) = try book.addItem(NewItem(text: "own", listID: 1, shouldRemind: true, repeatRule: whole))
        #expect(own.repeatRule == whole)
        // 1 Jan, 4, 7, 10, 13, 16: the first after now.
        #expect(own.dueDate == Date(timeIntervalSince1970: 1_800_100_800))
    }

    @Test func aDueDateTheRuleDoesNotMatchIsNoOccurrence() throws {
        var (book, _) = book()
        // Monday 18 January at 19:00, for a rule of Tuesdays: the series starts the next day.
        let item = try add("RRULE:FREQ=WEEKLY;BYDAY=TU", to: &book, due: tuesday - day)
        #expect(item.dueDate == tuesday)
    }

    @Test func aSeriesWithACountEndsAndItsLastCheckOffChecksTheItemOff() throws {
        var (book, clock) = book()
        try add("RRULE:FREQ=DAILY;COUNT=3", to: &book)
        var kinds: [[ReminderEvent.Kind]] = []
        for round in 0..<3 {
            clock.set(tuesday + Double(round) * day)
            kinds.append(book.advance().events.map(\.kind))
        }
        #expect(kinds == [[.fired, .scheduled], [.fired, .scheduled], [.fired]])
        #expect(book.scheduler.pendingReminder(for: 1) == nil)
        let (done, _) = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(done.checked, "no occurrence after the third")
    }

    @Test func anExceptionIsSkippedAndAnAdditionFires() throws {
        var (book, clock) = book()
        let rule =
            "DTSTART:20270119T190000 RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU EXDATE:20270202T190000 "
            + "RDATE:20270205T120000"
        try add(rule, to: &book)
        // 19 Jan, then the addition on Fri 5 Feb 12:00 (2 Feb is taken out), then 16 Feb.
        let addition = Date(timeIntervalSince1970: 1_801_828_800)
        var dues: [Date?] = []
        for instant in [tuesday, addition] {
            clock.set(instant)
            dues.append(book.advance().events.last?.due)
        }
        #expect(dues == [addition, tuesday + 4 * week])
    }

    @Test func occurrencesMissedWhileDownFireOnceSayingHowMany() throws {
        var (first, _) = book()
        _ = try biweekly(&first)
        // Down until an hour after the third occurrence.
        var (restarted, _) = book(at: tuesday + 4 * week + 3600, library: first.library)
        let started = restarted.start()
        #expect(started.events.map(\.kind) == [.fired, .scheduled])
        #expect(started.events[0].due == tuesday + 4 * week)
        #expect(started.events[0].coalesced == 3)
        #expect(started.events[1].due == tuesday + 6 * week)
    }

    @Test func aSnoozedOccurrenceFiresThenAndTheSeriesGoesOnFromItsRule() throws {
        var (book, clock) = book()
        _ = try biweekly(&book)
        clock.set(tuesday)
        _ = book.advance()
        _ = try book.snoozeItem(itemID: 1, until: tuesday + 3600)
        clock.set(tuesday + 3600)
        let fired = book.advance()
        #expect(fired.events.map(\.kind) == [.fired, .scheduled])
        #expect(fired.events.map(\.due) == [tuesday + 3600, tuesday + 2 * week])
    }

    @Test func eachOccurrenceIsWarnedBefore() throws {
        var (book, clock) = book()
        _ = try biweekly(&book, warnings: [3600])
        var warned: [Date?] = []
        for round in 0..<2 {
            clock.set(tuesday + Double(round) * 2 * week - 3600)
            warned += book.advance().events.filter { $0.kind == .warned }.map(\.due)
            clock.set(tuesday + Double(round) * 2 * week)
            _ = book.advance()
        }
        #expect(warned == [tuesday, tuesday + 2 * week])
    }

    @Test func aStartInAZoneKeepsItsWallTimeAcrossTheZonesDSTChange() throws {
        var (book, _) = book()
        let rule = "DTSTART;TZID=Europe/Berlin:20270316T090000 RRULE:FREQ=WEEKLY"
        let item = try add(rule, to: &book, due: nil)
        let held = try #require(item.repeatRule)
        let recurrence = try #require(try RepeatRule(held, localZone: utc, zones: zones).recurrence)
        let occurrences = recurrence.occurrences(after: t0, limit: 3, in: utc)
        // 08:00 UTC in winter time, 07:00 UTC from 28 March.
        #expect(occurrences.map(\.timeIntervalSince1970) == [1_805_184_000, 1_805_788_800, 1_806_390_000])
    }

    @Test(arguments: [
        ("RRULE:FREQ=MINUTELY", "it comes up to 1440 times a day, and a repeat by RRULE at most 24 (hourly)"),
        ("RRULE:FREQ=HOURLY;BYMINUTE=0,30", "it comes up to 48 times a day"),
        ("RRULE:FREQ=DAILY;BYHOUR=8,12,17;BYMINUTE=0,10,20,30,40,50;BYSECOND=0,30", "it comes up to 36 times a day"),
        (
            "RRULE:FREQ=HOURLY;INTERVAL=5;BYHOUR=9,10",
            "hours (BYHOUR) on an FREQ=HOURLY rule exactly; say it as FREQ=DAILY"
        ),
        ("RRULE:FREQ=DAILY;BYMONTHDAY=-1", "say it as FREQ=MONTHLY with BYMONTHDAY"),
        ("RRULE:FREQ=WEEKLY;BYMONTHDAY=3", "RFC 5545 forbids it: give FREQ=MONTHLY"),
        ("RRULE:FREQ=WEEKLY;BYDAY=XX", "libical cannot read \"BYDAY=XX\" in it"),
        ("RRULE:FREQ=FORTNIGHTLY", "libical cannot read \"FREQ=FORTNIGHTLY\" in it as an RRULE value"),
        ("RRULE:FREQ=WEEKLY;BYWEEKNO=3", "cannot repeat by week number (BYWEEKNO) exactly"),
        ("RRULE:FREQ=WEEKLY;BYDAY=MO,TH;BYSETPOS=1", "list in BYDAY only the days meant"),
        ("RRULE:FREQ=MONTHLY;BYDAY=MO,TU;BYHOUR=9,17;BYSETPOS=-1", "BYSETPOS with 2 from BYHOUR"),
        ("RRULE:FREQ=MONTHLY;BYMONTHDAY=28,-1;BYSETPOS=1", "two values can both name (BYSETPOS with BYMONTHDAY=28,-1)"),
        ("RRULE:FREQ=YEARLY;BYYEARDAY=365,-1;BYSETPOS=-1", "count all the days from the year's start"),
        ("RRULE:FREQ=DAILY;BYSETPOS=2", "drop BYSETPOS: each period has one occurrence"),
        ("RRULE:FREQ=YEARLY;BYMONTHDAY=1,-1;BYDAY=1FR", "name the months (BYMONTH)"),
        ("DTSTART:20270230T090000 RRULE:FREQ=DAILY", "\"20270230T090000\" is not a date and time of the calendar"),
        ("DTSTART;TZID=Mars/Olympus:20270101T090000 RRULE:FREQ=DAILY", "TZID=Mars/Olympus is not a time zone"),
        ("DTSTART:20270101T090000 RRULE:FREQ=DAILY EXDATE:20270102T090000Z", "in the zone of DTSTART"),
        ("DTSTART:20270101T090000 SUMMARY:x", "\"SUMMARY\" is not a part of a recurrence"),
        ("DTSTART:20270101T090000", "it has no RRULE line"),
    ])
    func aRecurrenceThatCannotRepeatIsRefusedSayingWhy(rule: String, why: String) throws {
        var (book, _) = book()
        let error = try #require(throws: ModelError.self) {
            try book.addItem(NewItem(text: "x", listID: 1, shouldRemind: true, repeatRule: rule))
        }
        #expect(error.code == .invalidRepeat)
        #expect(error.description.contains(why), "\(error.description)")
        let lists = book.library.lists
        #expect(lists.allSatisfy { $0.items.isEmpty })
    }

    /// Rules of every frequency nudge takes, with INTERVAL, COUNT, ordinals, BYSETPOS and hours, from a start in the
    /// night of Berlin's March DST change (02:30 does not exist on 28 March 2027). Seeded.
    private static func generatedRecurrences(seed: UInt64, count: Int) throws -> [Recurrence] {
        var random = SplitMix64(seed: seed)
        let weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
        return try (0..<count).map { _ in
            let frequency = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY"][Int(random.next() % 5)]
            var parts = ["FREQ=" + frequency, "INTERVAL=\(1 + random.next() % 3)"]
            if random.next() % 2 == 0 { parts.append("COUNT=\(20 + random.next() % 30)") }
            switch frequency {
            case "MONTHLY" where random.next() % 2 == 0:
                parts.append("BYDAY=\(1 + random.next() % 4)\(weekdays[Int(random.next() % 7)])")
            case "MONTHLY", "WEEKLY":
                parts.append("BYDAY=\(weekdays[Int(random.next() % 7)]),\(weekdays[Int(random.next() % 7)])")
                // libical picks positions among days only, and not in a week (RecurrenceRule.misreadParts).
                if frequency == "MONTHLY", random.next() % 3 == 0 {
                    parts.append(["BYSETPOS=-1", "BYSETPOS=1,2", "BYSETPOS=2,-1"][Int(random.next() % 3)])
                }
            default: break
            }
            if frequency != "HOURLY", !parts.contains(where: { $0.hasPrefix("BYSETPOS") }), random.next() % 2 == 0 {
                parts.append("BYHOUR=2,9")
            }
            let start = WallTime(
                year: 2027,
                month: 3,
                day: 20 + Int(random.next() % 10),
                hour: 2,
                minute: 30,
                second: 0
            )
            return Recurrence(rule: try RecurrenceRule(parts.joined(separator: ";")), start: start, zone: .floating)
        }
    }

    /// What an export needs: counted from a later occurrence of its own, a recurrence gives the same occurrences,
    /// and an instant that is none of its rule's has no such count.
    @Test(arguments: 0..<4) func countedFromALaterOccurrenceARecurrenceGivesTheSameOnes(seed: UInt64) throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        var random = SplitMix64(seed: seed + 100)
        for recurrence in try Self.generatedRecurrences(seed: seed, count: 100) {
            let before = try #require(recurrence.startInstant(in: berlin)) - 1
            let first = recurrence.occurrences(after: before, limit: 12, in: berlin, resuming: false)
            guard first.count > 2 else { continue }
            let later = first[1 + Int(random.next() % UInt64(first.count - 2))]
            let label = recurrence.text + " counted from \(later)"
            let counted = try #require(recurrence.startingAt(later, in: berlin), Comment(rawValue: label))
            #expect(
                counted.occurrences(after: later - 1, limit: 10, in: berlin, resuming: false)
                    == recurrence.occurrences(after: later - 1, limit: 10, in: berlin, resuming: false),
                Comment(rawValue: label + ": " + counted.text)
            )
            #expect(recurrence.startingAt(later + 1, in: berlin) == nil)
        }
    }

    /// A series asked again later resumes where it was found standing, and finds what counting from its start finds:
    /// questions a few days to a season apart, as fires and check-offs ask them.
    @Test(arguments: 0..<4) func resumingWhereTheSeriesStoodGivesWhatCountingFromTheStartGives(seed: UInt64) throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        var random = SplitMix64(seed: seed + 200)
        for recurrence in try Self.generatedRecurrences(seed: seed + 50, count: 60) {
            var asked = try #require(recurrence.startInstant(in: berlin)) - 86_400
            for _ in 0..<12 {
                asked += Double(3_600 + random.next() % (90 * 86_400))
                #expect(
                    recurrence.occurrences(after: asked, limit: 5, in: berlin)
                        == recurrence.occurrences(after: asked, limit: 5, in: berlin, resuming: false),
                    Comment(rawValue: recurrence.text + " after \(asked)")
                )
            }
        }
    }

    @Test func anExportSaysWhereTheSeriesStandsAndReadsBackUnchanged() throws {
        var (book, clock) = book(zone: TimeZone(identifier: "Europe/Berlin")!)
        let rule =
            "DTSTART;TZID=Europe/Berlin:20270119T200000 RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=10 "
            + "EXDATE;TZID=Europe/Berlin:20270202T200000,20270302T200000"
        try add(rule, to: &book, due: nil)
        for instant in [tuesday, tuesday + 4 * week] {  // 2 Feb is taken out
            clock.set(instant)
            _ = book.advance()
        }
        let document = book.calendarDocument()
        // 19 Jan and 16 Feb fired: the series stands at 2 March, which is taken out, so at 16 March; COUNT less by
        // the four occurrences of the rule before it, and the exceptions before it gone.
        for line in [
            "DTSTART;TZID=Europe/Berlin:20270316T200000", "DUE;TZID=Europe/Berlin:20270316T200000",
            "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=6", "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
        ] {
            #expect(document.contains(line + "\r\n"), "\(line) in\n\(document)")
        }
        #expect(!document.contains("EXDATE") && !document.contains("X-NUDGE-ONCALENDAR"))
        let tasks = try CalendarInterchange.tasks(in: document, timeZone: book.timeZone, zones: zones).tasks
        #expect(tasks.first?.notes == [])
        let (results, outcome) = try book.importTasks(tasks, into: 1)
        #expect(results.map(\.outcome) == [.unchanged], "\(results)")
        #expect(outcome.isEmpty)
    }

    @Test func aPhonesBiweeklyTaskKeepsItsRepeat() throws {
        let file =
            "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:phone-1\r\nSUMMARY:bins\r\n"
            + "DTSTART;TZID=Europe/Berlin:20270119T190000\r\nDUE;TZID=Europe/Berlin:20270119T190000\r\n"
            + "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU\r\nEXDATE;TZID=Europe/Berlin:20270202T190000\r\n"
            + "END:VTODO\r\nEND:VCALENDAR\r\n"
        let task = try #require(CalendarInterchange.tasks(in: file, timeZone: utc, zones: zones).tasks.first)
        #expect(task.notes == [])
        #expect(
            task.repeatRule
                == "DTSTART;TZID=Europe/Berlin:20270119T190000 RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU "
                + "EXDATE;TZID=Europe/Berlin:20270202T190000"
        )
    }

    @Test func anExportOfARuleAnExpressionSaysReadsBackUnchanged() throws {
        var (book, _) = book()
        try add("RRULE:FREQ=WEEKLY;BYDAY=TU", to: &book)
        let tasks = try CalendarInterchange.tasks(in: book.calendarDocument(), timeZone: utc, zones: zones).tasks
        // Read back as the calendar expression that says the same.
        #expect(tasks.first?.repeatRule == "Tue *-*-* 19:00:00")
        let (results, outcome) = try book.importTasks(tasks, into: 1)
        #expect(results.map(\.outcome) == [.unchanged], "\(results)")
        #expect(outcome.isEmpty)
    }

    @Test func aRuleGivenToAnItemWithADueDateIsCountedFromIt() throws {
        var (book, _) = book()
        _ = try book.addItem(NewItem(text: "t", listID: 1, dueDate: tuesday, shouldRemind: true))
        let (item, _) = try book.editItem(itemID: 1, ItemEdit(repeatRule: "RRULE:FREQ=WEEKLY;INTERVAL=2"))
        #expect(item.repeatRule == "DTSTART:20270119T190000 RRULE:FREQ=WEEKLY;INTERVAL=2")
        #expect(item.dueDate == tuesday)
    }

    @Test func aRecurrenceLongerThanARuleMayBeAsKeptIsRefused() throws {
        var (book, _) = book()
        // 60 exceptions: within the length a rule may be given, over it with the DTSTART nudge adds.
        let days = ["02", "03"].flatMap { month in (1...28).map { "2027\(month)\($0 < 10 ? "0" : "")\($0)T190000" } }
        let rule = "RRULE:FREQ=DAILY EXDATE:" + (days + (1...4).map { "2027040\($0)T190000" }).joined(separator: ",")
        #expect(rule.utf8.count <= RepeatRule.maximumLength)
        let error = try #require(throws: ModelError.self) {
            try book.addItem(NewItem(text: "t", listID: 1, dueDate: tuesday, shouldRemind: true, repeatRule: rule))
        }
        #expect(
            error.description.contains(
                "with its DTSTART it is \(rule.utf8.count + 24) bytes, and a repeat at most 1000"
            ),
            "\(error)"
        )
    }

    /// Berlin skips 02:00 to 03:00 on 28 March 2027: 02:15 and 02:45 are placed at 03:15 and 03:45, where 03:15
    /// and 03:45 fall too, the first after 02:45: each instant once, in order.
    @Test func wallTimesADSTGapMovesComeOnceAndInOrder() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let recurrence = try Recurrence(
            parsing: "DTSTART:20270327T021500 RRULE:FREQ=DAILY;BYHOUR=2,3;BYMINUTE=15,45",
            defaultStart: nil
        )
        let found = recurrence.occurrences(after: Date(timeIntervalSince1970: 1_806_192_000), limit: 4, in: berlin)
        // 28 March 01:15Z and 01:45Z; 29 March 00:15Z (02:15 CEST) and 00:45Z.
        #expect(found.map(\.timeIntervalSince1970) == [1_806_196_500, 1_806_198_300, 1_806_279_300, 1_806_281_100])
    }
    /// A due date off the rule (a floating series whose zone changed) counts as one of the passed, as for an
    /// expression: with one occurrence after it, two passed, and the latest fires.
    @Test func aDueDateOffTheRuleCountsAmongThePassed() throws {
        let rule = try RepeatRule("DTSTART:20270101T090000Z RRULE:FREQ=DAILY", localZone: utc, zones: zones)
        let due = Date(timeIntervalSince1970: 1_798_761_600 + 8 * 3600)  // 1 January 08:00 UTC
        let passed = try #require(rule.passed(from: due, upTo: due + 2 * 3600, in: utc))
        #expect(passed.latest == due + 3600 && passed.count == 2)
        let onRule = try #require(rule.passed(from: due + 3600, upTo: due + 2 * 3600 + day, in: utc))
        #expect(onRule.latest == due + 3600 + day && onRule.count == 2)
    }
}
