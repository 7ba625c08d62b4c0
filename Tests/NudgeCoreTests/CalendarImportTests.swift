import Foundation
import Testing

@testable import NudgeCalendar
@testable import NudgeCore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
private let berlin = TimeZone(identifier: "Europe/Berlin")!

@Suite struct CalendarImportTests {
    private func tasks(_ body: String) throws -> (tasks: [CalendarTask], skipped: [CalendarImportResult]) {
        try CalendarInterchange.tasks(
            in: "BEGIN:VCALENDAR\r\n" + body + "END:VCALENDAR\r\n",
            timeZone: berlin,
            zones: zones
        )
    }

    @Test func aByteOrderMarkAtTheStartIsSkipped() throws {
        let file = "\u{FEFF}BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:from Windows\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let read = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones)
        #expect(read.tasks.map(\.text) == ["from Windows"])
    }

    @Test func aTaskWithNoCalendarAroundItIsReadAsIfInsideOne() throws {
        // As Evolution writes one (evolution-task-1.ics of the corpus).
        let file = "BEGIN:VTODO\nUID:task-1\nSUMMARY:Simple task\nEND:VTODO\nBEGIN:VTODO\nSUMMARY:two\nEND:VTODO\n"
        let read = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones)
        #expect(read.tasks.map(\.text) == ["Simple task", "two"])
        #expect(read.tasks.first?.uid == "task-1" && read.tasks.last?.line == 5)
    }

    @Test func aMisspeltEndClosesWhatIsOpenAndOneNamingAnotherComponentIsRefused() throws {
        // recurring-ical-events-issue_201_test_matrix.ics of the corpus.
        let read = try tasks(
            "BEGIN:VTODO\r\nUID:a\r\nSUMMARY:x\r\nEND:VTOOD\r\nBEGIN:VTODO\r\nSUMMARY:y\r\nEND:VTODO\r\n"
        )
        #expect(read.tasks.map(\.text) == ["x", "y"])
        #expect(read.tasks[0].notes == ["line 5: END:VTOOD, no component's name, read as END:VTODO"])
        for (body, refusal) in [
            ("BEGIN:VTODO\r\nSUMMARY:x\r\nEND:VALARM\r\n", "line 4: END:VALARM closes BEGIN:VTODO of line 2"),
            ("BEGIN:VTODO\r\nSUMMARY:x\r\nEND:VCALENDAR\r\n", "line 4: END:VCALENDAR closes BEGIN:VTODO of line 2"),
            ("BEGIN:VTODO\r\nSUMMARY:x\r\nEND:X-TODO\r\n", "line 4: END:X-TODO closes BEGIN:VTODO of line 2"),
        ] {
            do {
                _ = try tasks(body)
                Issue.record("read, though it should be refused: \(body)")
            } catch {
                #expect("\(error)".contains(refusal), "\(error)")
            }
        }
    }

    @Test func anUnreadableStartIsLeftOutAndAnAlarmTimeWithoutZoneIsLocal() throws {
        // ical4android-utf8.ics and libical-3.ics of the corpus.
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:© äö\r\nDTSTART:20131009T170000T\r\nEND:VTODO\r\n"
                + "BEGIN:VTODO\r\nSUMMARY:taxes\r\nDUE:19980415T235959\r\nBEGIN:VALARM\r\nACTION:AUDIO\r\n"
                + "TRIGGER;VALUE=DATE-TIME:19980403T120000\r\nEND:VALARM\r\nEND:VTODO\r\n"
        ).tasks
        #expect(read.map(\.text) == ["© äö", "taxes"])
        #expect(read[0].notes.count == 1 && read[0].notes[0].hasSuffix("left out, and the task read without a start"))
        #expect(read[1].warnings == [1_079_999], "12 days and 11:59:59 before, both in Berlin's summer time")
        #expect(
            read[1].notes == [
                "line 11: the alarm's TRIGGER has no zone, where RFC 5545 asks for UTC: read as local time"
            ]
        )
    }

    @Test func aPropertyNameTheGrammarForbidsIsLeftOutAndSaid() throws {
        // Synology's exports (tasksorg-synology-*.ics of the corpus).
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:Date Time\r\nSTATUS:NEEDS-ACTION\r\nPERCENT_COMPLETE:100\r\nEND:VTODO\r\n"
        )
        let task = try #require(read.tasks.first)
        #expect(!task.checked)
        #expect(
            task.notes == [
                #"line 5: "PERCENT_COMPLETE" is not a property name RFC 5545 allows (letters, digits and dashes): "#
                    + "left out"
            ]
        )
    }

    @Test func aParameterWithoutAValueIsLeftOutAndSaidAndAnEmptyPriorityIsNone() throws {
        // evolution-task-3.ics and ical4android-empty-priority.ics of the corpus.
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:With completed\r\nSTATUS:COMPLETED\r\n"
                + "COMPLETED;America/New_York:20170221T000000\r\nPRIORITY:\r\nDUE;X-A;TZID=Europe/Berlin:20270301T090000\r\n"
                + "END:VTODO\r\n"
        )
        let task = try #require(read.tasks.first)
        #expect(task.checked && task.priority == .normal)
        #expect(task.dueDate == Date(timeIntervalSince1970: 1_803_888_000))  // 09:00 in Berlin: TZID was read
        #expect(
            task.notes == [
                #"line 5: a parameter of COMPLETED, "America/New_York", has no "=": left out"#,
                #"line 7: a parameter of DUE, "X-A", has no "=": left out"#,
            ]
        )
    }

    @Test(arguments: [
        ("BEGIN:VCALENDAR\r\nSUM\u{200B}MARY x\r\n", #"line 2: "SUM\u{200B}MARY x" has no ":""#),
        ("BEGIN:VCALENDAR\r\nSUM\u{1}MARY:x\r\n", #"line 2: "SUM\u{1}MARY" is not a property name"#),
        (
            "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:x\r\nDUE:2027\u{FEFF}0301\r\nEND:VTODO\r\n",
            #"line 4: DUE "2027\u{FEFF}0301" is not"#
        ),
        ("BEGIN:VCALENDAR\r\nEND:V\u{202E}TODO\r\n", #"line 2: END:V\u{202E}TODO closes BEGIN:VCALENDAR"#),
    ])
    func aRefusalShowsWhatCannotBeSeenEscaped(file: String, expected: String) {
        do {
            _ = try CalendarInterchange.tasks(in: file + "END:VCALENDAR\r\n", timeZone: berlin, zones: zones)
            Issue.record("\(file.debugDescription) was read")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func alarmsBeforeTheDueDateAreWarningsAndAnyAlarmSwitchesRemindingOn() throws {
        let read = try tasks(
            """
            BEGIN:VTODO\r
            SUMMARY:Report\r
            DTSTART:20270301T080000Z\r
            DUE;TZID=Europe/Berlin:20270301T120000\r
            PRIORITY:3\r
            BEGIN:VALARM\r
            TRIGGER:PT2H\r
            END:VALARM\r
            BEGIN:VALARM\r
            TRIGGER;VALUE=DATE-TIME:20270301T105000Z\r
            END:VALARM\r
            BEGIN:VALARM\r
            TRIGGER;RELATED=END:PT5M\r
            END:VALARM\r
            END:VTODO\r

            """
        )
        let task = try #require(read.tasks.first)
        #expect(task.dueDate == Date(timeIntervalSince1970: 1_803_898_800))  // 2027-03-01T11:00:00Z
        #expect(task.shouldRemind && task.priority == .high)
        // 08:00Z + 2h is an hour before the due date; 10:50Z is 10 minutes before; 5 minutes after is left out.
        #expect(task.warnings == [3600, 600])
        #expect(
            task.notes == ["an alarm after the due date left out: nudge reminds at the due date and warns before it"]
        )
    }

    @Test func aDayWithoutATimeIsKeptAsADayAndAZoneNudgeDoesNotKnowIsLocalTimeSaidSo() throws {
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:A\r\nDUE;VALUE=DATE:20270302\r\nEND:VTODO\r\nBEGIN:VTODO\r\nSUMMARY:B\r\n"
                + "DUE;TZID=W. Europe Standard Time:20270302T100000\r\nEND:VTODO\r\n"
        )
        #expect(read.tasks.map(\.dueDay) == [CalendarDay(year: 2027, month: 3, day: 2), nil])
        // A's reminder: 09:00 that day in Berlin (08:00Z).
        #expect(read.tasks.map(\.dueDate) == [1_803_974_400, 1_803_978_000].map(Date.init(timeIntervalSince1970:)))
        #expect(read.tasks[0].notes == [])
        #expect(read.tasks[1].notes.first?.contains("\"W. Europe Standard Time\" is not a zone name") == true)
    }

    /// RFC 5545 §3.8.6.3: an alarm counts from a DATE's start. nudge keeps a day's alarms as warnings before 09:00 of
    /// it (where it sorts), so an alarm at the start is a warning 9 hours before, and one at 09:00 (`PT9H`) is the
    /// reminder; an export says the same, and reads back unchanged. (The day's digest brings the item; its warnings
    /// are kept, not sent.)
    @Test func aDaysAlarmsCountFromItsStartAndItsExportKeepsTheDay() throws {
        let read = try tasks(
            "BEGIN:VTODO\r\nUID:day@example\r\nSUMMARY:taxes\r\nDUE;VALUE=DATE:20270302\r\nBEGIN:VALARM\r\n"
                + "ACTION:DISPLAY\r\nTRIGGER;RELATED=END:PT0S\r\nEND:VALARM\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
                + "TRIGGER;RELATED=END:-PT15H\r\nEND:VALARM\r\nEND:VTODO\r\n"
        )
        let task = try #require(read.tasks.first)
        #expect(task.shouldRemind && task.warnings == [86_400, 9 * 3600])

        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.importTasks(read.tasks, into: 1)
        let item = try #require(book.library.item(id: 1))
        #expect(item.dueDay == CalendarDay(year: 2027, month: 3, day: 2))
        #expect(
            item.dueDate == Date(timeIntervalSince1970: 1_803_974_400) && book.scheduler.pendingReminder(for: 1) == nil
        )
        let file = book.calendarDocument()
        #expect(file.contains("DUE;VALUE=DATE:20270302\r\n"))
        #expect(file.contains("TRIGGER;RELATED=END:-PT15H\r\n") && file.contains("TRIGGER;RELATED=END:PT0S\r\n"))
        #expect(file.contains("TRIGGER;RELATED=END:PT9H\r\n"))

        let (exported, _) = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones)
        let (results, outcome) = try book.importTasks(exported, into: 1)
        #expect(results.map(\.outcome) == [.unchanged] && outcome.isEmpty, "\(results)")

        // The same task due at a time is a change of the item, and back to the day again.
        let timed = try tasks(
            "BEGIN:VTODO\r\nUID:day@example\r\nSUMMARY:taxes\r\nDUE:20270302T080000Z\r\nEND:VTODO\r\n"
        )
        #expect(try book.importTasks(timed.tasks, into: 1).0.map(\.outcome) == [.updated])
        #expect(book.library.item(id: 1)?.dueDay == nil)
        #expect(try book.importTasks(read.tasks, into: 1).0.map(\.outcome) == [.updated])
        #expect(book.library.item(id: 1)?.dueDay == CalendarDay(year: 2027, month: 3, day: 2))
    }

    /// On the day Berlin springs forward, 09:00 is eight hours after the day's start and on the day it falls back,
    /// ten: the export says so, and reads back with the same reminder and warnings.
    @Test(arguments: ["2027-03-28", "2027-10-31"])
    func aDaysExportIsExactOnTheDaysTheClocksChange(iso: String) throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        let day = try #require(CalendarDay(iso: iso))
        _ = try book.addItem(NewItem(text: "taxes", listID: 1, dueDay: day, shouldRemind: true, warnings: [3600]))
        let hours = iso.hasSuffix("03-28") ? 8 : 10
        let file = book.calendarDocument()
        #expect(file.contains("TRIGGER;RELATED=END:PT\(hours)H\r\n"), "\(file)")
        #expect(file.contains("TRIGGER;RELATED=END:PT\(hours - 1)H\r\n"), "\(file)")
        let (exported, _) = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones)
        #expect(exported.first?.shouldRemind == true && exported.first?.warnings == [3600], "\(exported)")
        let (results, outcome) = try book.importTasks(exported, into: 1)
        #expect(results.map(\.outcome) == [.unchanged] && outcome.isEmpty, "\(results)")
    }

    @Test func aRepeatingTaskDueOnADayRepeatsAt9AndSaysSo() throws {
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:water\r\nDUE;VALUE=DATE:20270302\r\nRRULE:FREQ=WEEKLY\r\nEND:VTODO\r\n"
        )
        let task = try #require(read.tasks.first)
        #expect(task.dueDay == nil && task.repeatRule != nil)
        #expect(task.notes.contains("DUE is a day without a time: the repeat is due at 09:00 on its days"))
    }

    @Test func eventsTasksWithoutASummaryAndRepeatedUIDsAreSkippedWithWhy() throws {
        let read = try tasks(
            "BEGIN:VEVENT\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nBEGIN:VTODO\r\nUID:a\r\nEND:VTODO\r\n"
                + "BEGIN:VTODO\r\nUID:b\r\nSUMMARY:x\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:b\r\nSUMMARY:y\r\nEND:VTODO\r\n"
        )
        #expect(read.tasks.map(\.text) == ["x"])
        #expect(read.skipped.map(\.line) == [2, 5, 12])
        #expect(
            read.skipped.map { $0.notes.first ?? "" }.map { $0.prefix(20) } == [
                "an event (VEVENT): n", "it has no SUMMARY, a", "its UID was already ",
            ]
        )
    }

    @Test func importingTwiceChangesNothingAndAnExportImportsUnchanged() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.addItem(NewItem(text: "plain", listID: 1))
        _ = try book.addItem(
            NewItem(text: "due", listID: 1, dueDate: t0 + 86_400.25, shouldRemind: true, warnings: [600])
        )
        _ = try book.addItem(NewItem(text: "weekly", listID: 1, shouldRemind: true, repeatRule: "Mon 09:00"))
        _ = try book.addItem(NewItem(text: "odd, rule", listID: 1, repeatRule: "*-*~01 12:00", priority: .low))
        _ = try book.editItem(itemID: 1, ItemEdit(checked: true))
        let file = book.calendarDocument()

        let (exported, _) = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones)
        let (results, outcome) = try book.importTasks(exported, into: 1)
        #expect(results.map(\.outcome) == Array(repeating: .unchanged, count: 4), "\(results)")
        #expect(results.map(\.itemID) == [1, 2, 3, 4])
        #expect(outcome.isEmpty)

        // A task from elsewhere: created once, then matched by its UID.
        let other = try tasks("BEGIN:VTODO\r\nUID:x-1@example\r\nSUMMARY:other\r\nEND:VTODO\r\n").tasks
        let (created, added) = try book.importTasks(other, into: 1)
        #expect(created.map(\.outcome) == [.created] && added.changes.count == 1)
        #expect(book.library.item(id: 5)?.calendarUID == "x-1@example")
        let (again, none) = try book.importTasks(other, into: 1)
        #expect(again.map(\.outcome) == [.unchanged] && none.isEmpty)
    }

    @Test func tasksWithoutUIDMatchItemsByTextOneEachTheSameAtEveryImport() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:water\r\nPRIORITY:1\r\nEND:VTODO\r\nBEGIN:VTODO\r\nSUMMARY:water\r\nEND:VTODO\r\n"
        ).tasks
        #expect(try book.importTasks(read, into: 1).0.map(\.outcome) == [.created, .created])
        let (second, outcome) = try book.importTasks(read, into: 1)
        #expect(second.map(\.outcome) == [.unchanged, .unchanged] && second.map(\.itemID) == [1, 2])
        #expect(outcome.isEmpty)
        #expect(book.library.item(id: 1)?.priority == .high && book.library.item(id: 2)?.priority == .normal)
    }

    @Test func anEditedTaskUpdatesItsItemAndAnItemRemovedComesBackUnderItsOldUID() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        _ = try book.addItem(NewItem(text: "pack", listID: 1, dueDate: t0 + 3600, shouldRemind: true))
        let uid = "1-\(book.library.storeID)@nudge"
        let edited = try tasks(
            "BEGIN:VTODO\r\nUID:\(uid)\r\nSUMMARY:pack bags\r\nSTATUS:COMPLETED\r\nEND:VTODO\r\n"
        ).tasks
        let (updated, outcome) = try book.importTasks(edited, into: 1)
        #expect(updated.map(\.outcome) == [.updated] && updated.first?.itemID == 1)
        #expect(outcome.events.map(\.kind) == [.cancelled], "checking it off withdrew its reminder")
        let item = try #require(book.library.item(id: 1))
        #expect(item.text == "pack bags" && item.checked && item.dueDate == nil)

        _ = try book.removeItem(itemID: 1)
        let (back, _) = try book.importTasks(edited, into: 1)
        #expect(back.map(\.outcome) == [.created] && back.first?.itemID == 2)
        #expect(book.library.item(id: 2)?.calendarUID == uid)
        #expect(try book.importTasks(edited, into: 1).0.map(\.outcome) == [.unchanged])
    }

    @Test func theCompletionInstantIsKeptExportedAndReadBackUnchanged() throws {
        // tasksorg-apple-basic_completed.ics of the corpus, and Evolution's COMPLETED with a zone.
        let file =
            "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:apple-1\r\nSUMMARY:Basic completed\r\nSTATUS:COMPLETED\r\n"
            + "COMPLETED:20180417T184302Z\r\nEND:VTODO\r\nBEGIN:VTODO\r\nSUMMARY:zoned\r\n"
            + "COMPLETED;TZID=Europe/Paris:20130920T180000\r\nEND:VTODO\r\nBEGIN:VTODO\r\nSUMMARY:unreadable\r\n"
            + "STATUS:COMPLETED\r\nCOMPLETED:yesterday\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let read = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones).tasks
        #expect(
            read.map(\.completedAt) == [
                Date(timeIntervalSince1970: 1_523_990_582), Date(timeIntervalSince1970: 1_379_692_800), nil,
            ]
        )
        #expect(read[2].checked && read[2].notes.count == 1)
        #expect(read[2].notes.first?.hasSuffix("left out, so it counts as completed when imported") == true)

        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.importTasks(read, into: 1)
        #expect(book.library.item(id: 1)?.completedAt == read[0].completedAt)
        #expect(book.library.item(id: 3)?.completedAt == t0, "no readable COMPLETED: completed at the import")
        let exported = book.calendarDocument()
        #expect(
            exported.contains("COMPLETED:20180417T184302Z\r\n") && exported.contains("COMPLETED:20130920T160000Z\r\n")
        )

        clock.advance(by: 3600)
        #expect(try book.importTasks(read, into: 1).0.map(\.outcome) == [.unchanged, .unchanged, .unchanged])
        let again = try CalendarInterchange.tasks(in: exported, timeZone: berlin, zones: zones).tasks
        #expect(try book.importTasks(again, into: 1).0.map(\.outcome) == [.unchanged, .unchanged, .unchanged])

        // Completed elsewhere at another time: the item takes it.
        var moved = read
        moved[0].completedAt = Date(timeIntervalSince1970: 1_524_000_000)
        #expect(try book.importTasks(moved, into: 1).0.map(\.outcome) == [.updated, .unchanged, .unchanged])
        #expect(book.library.item(id: 1)?.completedAt == moved[0].completedAt)
    }

    @Test func aRepeatInANamedZoneIsExportedWithItsZoneAndReadBack() throws {
        // tasksorg-apple-repeat_daily.ics of the corpus: DTSTART;TZID=America/Chicago and FREQ=DAILY.
        let read = try tasks(
            "BEGIN:VTODO\r\nUID:chicago\r\nSUMMARY:daily\r\nDTSTART;TZID=America/Chicago:20270115T090000\r\n"
                + "DUE;TZID=America/Chicago:20270115T090000\r\nRRULE:FREQ=DAILY\r\nEND:VTODO\r\n"
                + "BEGIN:VTODO\r\nSUMMARY:also there\r\nDUE;TZID=America/Chicago:20270118T070000\r\n"
                + "RRULE:FREQ=WEEKLY\r\nEND:VTODO\r\n"
        ).tasks
        #expect(read.map(\.repeatRule) == ["*-*-* 09:00:00 America/Chicago", "Mon *-*-* 07:00:00 America/Chicago"])
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        _ = try book.importTasks(read, into: 1)
        let exported = book.calendarDocument()
        let lines = exported.components(separatedBy: "\r\n")
        #expect(lines.contains("DTSTART;TZID=America/Chicago:20270115T090000"))
        #expect(
            lines.contains("DUE;TZID=America/Chicago:20270118T070000")
                && lines.contains("RRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0")
        )
        // One VTIMEZONE for both, before the tasks: today's rules, from their first onset in 1970.
        #expect(lines.filter { $0 == "BEGIN:VTIMEZONE" }.count == 1)
        let zone = try #require(lines.firstIndex(of: "BEGIN:VTIMEZONE"))
        #expect(zone < lines.firstIndex(of: "BEGIN:VTODO")!)
        #expect(
            Array(lines[zone..<lines.firstIndex(of: "END:VTIMEZONE")! + 1]) == [
                "BEGIN:VTIMEZONE", "TZID:America/Chicago",
                "BEGIN:STANDARD", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0600", "TZNAME:CST", "DTSTART:19701101T020000",
                "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD",
                "BEGIN:DAYLIGHT", "TZOFFSETFROM:-0600", "TZOFFSETTO:-0500", "TZNAME:CDT", "DTSTART:19700308T020000",
                "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "END:DAYLIGHT", "END:VTIMEZONE",
            ]
        )
        let again = try CalendarInterchange.tasks(in: exported, timeZone: berlin, zones: zones).tasks
        #expect(again.map(\.repeatRule) == read.map(\.repeatRule) && again.allSatisfy(\.notes.isEmpty))
        #expect(try book.importTasks(again, into: 1).0.map(\.outcome) == [.unchanged, .unchanged])
    }

    /// The days a shifted onset falls on, by month, as BYMONTHDAY values, checked against every year's date.
    @Test(arguments: [
        // Cairo: 24:00 of October's last Thursday, into November.
        (ZoneSeasons.Onset(month: 10, week: 5, weekday: 4, dayShift: 1, secondsAfterMidnight: 0), [10, 11]),
        // -1:00 of March's first Sunday: the last day of February, 28th or 29th, counted back.
        (ZoneSeasons.Onset(month: 3, week: 1, weekday: 0, dayShift: -1, secondsAfterMidnight: 82_800), [2, 3]),
        // 24:00 of February's last Saturday: its days counted back, and 1 March.
        (ZoneSeasons.Onset(month: 2, week: 5, weekday: 6, dayShift: 1, secondsAfterMidnight: 0), [2, 3]),
        // 50:00 of December's last Thursday: a Saturday, the last ones into January.
        (ZoneSeasons.Onset(month: 12, week: 5, weekday: 4, dayShift: 2, secondsAfterMidnight: 7200), [12, 1]),
    ])
    func aShiftedOnsetsDaysByMonthAreTheDaysItFallsOn(onset: ZoneSeasons.Onset, months: [Int]) throws {
        let parts = try #require(onset.daysByMonth)
        #expect(parts.map(\.month) == months)
        // The week's seven days, no more: each year's one among them is the onset (below).
        #expect(parts.reduce(0) { $0 + $1.days.count } == 7)
        for year in 2000...2060 {
            let date = onset.date(in: year)
            let length = Calendar(identifier: .gregorian).range(
                of: .day,
                in: .month,
                for: DateComponents(calendar: Calendar(identifier: .gregorian), year: date.year, month: date.month)
                    .date!
            )!.count
            let matching = parts.filter { part in
                part.month == date.month && part.days.contains { $0 == date.day || $0 == date.day - length - 1 }
            }
            #expect(matching.count == 1, "\(year): \(date) is not among \(parts)")
        }
        // February's fourth week moved past the 28th: the 29th in a leap year, 1 March in others.
        #expect(
            ZoneSeasons.Onset(month: 2, week: 4, weekday: 4, dayShift: 1, secondsAfterMidnight: 0).daysByMonth == nil
        )
    }

    @Test func aZonesSeasonsAreItsClosingRuleWhereThatRuleGovernsAndNothingElsewhere() throws {
        // Last Sunday of March and of October (week 5: -1SU), at 02:00 and 03:00 of the time before.
        let berlinSeasons = try #require(zones.seasons(named: "Europe/Berlin", from: t0))
        #expect(
            berlinSeasons.standard.start
                == ZoneSeasons.Onset(month: 10, week: 5, weekday: 0, secondsAfterMidnight: 10_800)
        )
        #expect(berlinSeasons.daylight?.utcOffset == 7200 && berlinSeasons.daylight?.utcOffsetBefore == 3600)
        // Half an hour of daylight time.
        let lordHowe = try #require(zones.seasons(named: "Australia/Lord_Howe", from: t0))
        #expect(lordHowe.standard.utcOffset == 37_800 && lordHowe.daylight?.utcOffset == 39_600)
        // Ramadan's changes are in the file to 2087, not in its closing rule.
        #expect(zones.seasons(named: "Africa/Casablanca", from: t0) == nil)
        // Santiago changes at 24:00 of the first Saturday of September: 00:00 of the Sunday after it.
        #expect(
            zones.seasons(named: "America/Santiago", from: t0)?.daylight?.start
                == ZoneSeasons.Onset(month: 9, week: 1, weekday: 6, dayShift: 1, secondsAfterMidnight: 0)
        )
        #expect(zones.seasons(named: "Asia/Kolkata", from: t0)?.daylight == nil)
        // Gaza's file lists Ramadan's changes to 2086, then its closing rule keeps daylight time.
        #expect(zones.seasons(named: "Asia/Gaza", from: t0) == nil)
        #expect(zones.changes(named: "Asia/Gaza", from: t0)?.closingSeasons?.daylight != nil)
        #expect(try #require(zones.changes(named: "Africa/Casablanca", from: t0)).closingSeasons == nil)

        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        _ = try book.addItem(
            NewItem(text: "berlin", listID: 1, shouldRemind: true, repeatRule: "*-*-* 09:00 Europe/Berlin")
        )
        // Exported first, a repeat due later in the year: the zone's one VTIMEZONE still starts early enough for the
        // daily one due tomorrow (Casablanca's says each change from the one in force at the earliest due date on).
        _ = try book.addItem(
            NewItem(text: "march", listID: 1, shouldRemind: true, repeatRule: "*-03-20 09:00 Africa/Casablanca")
        )
        _ = try book.addItem(
            NewItem(text: "rabat", listID: 1, shouldRemind: true, repeatRule: "*-*-* 09:00 Africa/Casablanca")
        )
        let lines = book.calendarDocument().components(separatedBy: "\r\n")
        let casablanca = try #require(lines.firstIndex(of: "TZID:Africa/Casablanca"))
        let firstOnset = try #require(lines[casablanca...].first { $0.hasPrefix("DTSTART:") })
        #expect(firstOnset < "DTSTART:20270116", "\(firstOnset)")
        #expect(lines.filter { $0 == "TZID:Africa/Casablanca" }.count == 1)
        #expect(lines.contains("DTSTART:19701025T030000") && lines.contains("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"))
        #expect(lines.contains("DTSTART:19700329T020000") && lines.contains("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"))
        // Casablanca's file lists each change to 2087 and its rule none: each is an onset of the VTIMEZONE.
        #expect(
            lines.contains("TZID:Africa/Casablanca") && lines.filter { $0.hasPrefix("RRULE:FREQ=DAILY") }.count == 2
        )
        #expect(lines.contains { $0.hasPrefix("RDATE:") } && lines.contains("TZOFFSETFROM:+0000"))
        #expect(lines.contains("X-NUDGE-ONCALENDAR:*-*-* 09:00:00 Africa/Casablanca"))
    }

    /// Every zone of the database that a repeat can name, exported with its VTIMEZONE, must mean there what the
    /// database says: Python's icalendar builds each zone from the component alone, and its offsets are compared with
    /// zoneinfo's at every change from 2027 to 2040 and at noon of every fifth day (`Tests/Tools/vtimezone_oracle.py`).
    /// Among them the zones whose changes come at a time outside the day: Santiago (24:00), Jerusalem (26:00 of a
    /// Thursday), Nuuk (-1:00 of a Sunday), Cairo (24:00 of October's last Thursday, some years in November); Dublin,
    /// whose tzdata saving is negative (its winter is "daylight"); Casablanca, whose changes are listed one by one;
    /// and Gaza and Hebron, whose listed changes to 2086 come before a closing rule with daylight time.
    @Test func everyZonesVTimezoneMeansWhatTheZoneDatabaseSays() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        var named: [String] = []
        for name in TimeZone.knownTimeZoneIdentifiers.sorted() {
            let added = try? book.addItem(
                NewItem(text: name, listID: 1, shouldRemind: true, repeatRule: "*-*-* 12:00 \(name)")
            )
            if added != nil { named.append(name) }
        }
        let document = book.calendarDocument()
        #expect(named.count > 300)
        let without = named.filter { !document.contains("TZID:\($0)\r\n") }
        #expect(without == [], "no VTIMEZONE for \(without)")
        #expect(document.contains("RRULE:FREQ=YEARLY;BYMONTH=9;BYDAY=SU;BYMONTHDAY=2,3,4,5,6,7,8\r\n"))
        // Cairo's 24:00 of October's last Thursday: a Friday from 26 October to 1 November, a rule per month.
        #expect(document.contains("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=FR;BYMONTHDAY=26,27,28,29,30,31\r\n"))
        #expect(document.contains("RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=FR;BYMONTHDAY=1\r\n"))
        let report = try Self.vtimezoneOracle(document, years: 2027...2040)
        #expect(report.zones > 300)
        #expect(report.problems == [], "\(report.problems)")
        // The zones whose VTIMEZONE lists changes (then says a closing rule), to past the list's end (2087).
        var listed = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        for name in ["Africa/Cairo", "Africa/Casablanca", "Asia/Gaza", "Asia/Hebron"] {
            _ = try listed.addItem(
                NewItem(text: name, listID: 1, shouldRemind: true, repeatRule: "*-*-* 12:00 \(name)")
            )
        }
        let far = try Self.vtimezoneOracle(listed.calendarDocument(), years: 2027...2100)
        #expect(far.zones == 4 && far.changes > 400)
        #expect(far.problems == [], "\(far.problems)")
    }

    /// What `Tests/Tools/vtimezone_oracle.py` finds comparing the VTIMEZONEs of `document` with zoneinfo in `years`.
    private static func vtimezoneOracle(
        _ document: String,
        years: ClosedRange<Int>
    ) throws -> (zones: Int, changes: Int, problems: [String]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nudge-vtimezones-\(UUID()).ics")
        try document.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RecurrenceOracleTests.python)
        process.arguments = [
            RecurrenceOracleTests.packageRoot + "/Tests/Tools/vtimezone_oracle.py", file.path,
            String(years.lowerBound), String(years.upperBound),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "vtimezone_oracle.py failed (scripts/install-deps --tests)")
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let zones = report["zones"] as? Int ?? 0
        let changes = report["changes"] as? Int ?? 0
        print("VTIMEZONE oracle \(years): \(zones) zones, \(changes) changes compared with zoneinfo")
        return (zones, changes, report["problems"] as? [String] ?? ["no problems list in \(report)"])
    }

    @Test func whatHangsOnAnUnreadableStartIsLeftOutAndSaid() throws {
        let task = try #require(
            try tasks(
                "BEGIN:VTODO\r\nSUMMARY:x\r\nDTSTART:2027011T0900\r\nDUE:20270118T090000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=MO\r\n"
                    + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"
                    + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT5M\r\nEND:VALARM\r\nEND:VTODO\r\n"
            ).tasks.first
        )
        #expect(task.repeatRule == nil && task.warnings == [300] && task.shouldRemind)
        #expect(task.notes.count == 3)
        #expect(task.notes[1] == "line 9: an alarm counted from the start nudge cannot read: left out")
        #expect(
            task.notes[2] == "imported without repeat: its RRULE repeats its start (DTSTART), which nudge cannot read"
        )
    }

    @Test func anItemCheckedOffBeforeCompletionsWereKeptReadsItsOwnExportBackUnchanged() throws {
        let done = ChecklistItem(itemID: 1, text: "old", checked: true, createdAt: t0 - 7200, updatedAt: t0 - 3600)
        let library = try ChecklistLibrary(
            nextItemID: 2,
            nextListID: 2,
            lists: [Checklist(listID: 1, name: "Inbox", items: [done])]
        )
        var book = ReminderBook(library: library, clock: ManualWallClock(t0), timeZone: berlin)
        let exported = try CalendarInterchange.tasks(in: book.calendarDocument(), timeZone: berlin, zones: zones).tasks
        #expect(exported.first?.completedAt == t0 - 3600, "its last change stands for when")
        #expect(try book.importTasks(exported, into: 1).0.map(\.outcome) == [.unchanged])
    }

    @Test func checkingOffRecordsWhenAndReopeningForgetsIt() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.addItem(NewItem(text: "pack", listID: 1))
        clock.advance(by: 60)
        _ = try book.editItem(itemID: 1, ItemEdit(checked: true))
        #expect(book.library.item(id: 1)?.completedAt == t0 + 60)
        clock.advance(by: 60)
        _ = try book.editItem(itemID: 1, ItemEdit(text: "pack bags"))
        #expect(book.library.item(id: 1)?.completedAt == t0 + 60, "an edit of a checked item keeps when it was done")
        _ = try book.editItem(itemID: 1, ItemEdit(checked: false))
        #expect(book.library.item(id: 1)?.completedAt == nil)

        // A series checked off for good records its end; an occurrence checked off leaves the item open.
        _ = try book.addItem(NewItem(text: "twice", listID: 1, repeatRule: "2027-01-16,17 09:00"))
        _ = try book.editItem(itemID: 2, ItemEdit(checked: true))
        #expect(book.library.item(id: 2)?.checked == false && book.library.item(id: 2)?.completedAt == nil)
        clock.advance(by: 60)
        _ = try book.editItem(itemID: 2, ItemEdit(checked: true))
        #expect(book.library.item(id: 2)?.checked == true && book.library.item(id: 2)?.completedAt == t0 + 180)
    }

    @Test func aRecurringTaskWhoseOccurrencePassedOrWasCheckedOffSinceTheExportIsUnchanged() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        // Not reminding: never moved on.
        _ = try book.addItem(NewItem(text: "weekly", listID: 1, repeatRule: "Mon 09:00"))
        _ = try book.addItem(NewItem(text: "daily", listID: 1, shouldRemind: true, repeatRule: "*-*-* 07:00"))
        let file = book.calendarDocument()
        let exported = try CalendarInterchange.tasks(in: file, timeZone: berlin, zones: zones).tasks

        clock.advance(by: 8 * 86_400)  // both series passed occurrences since the file was written
        _ = book.advance()
        _ = try book.editItem(itemID: 2, ItemEdit(checked: true))  // and one of the daily ones was checked off
        let (results, outcome) = try book.importTasks(exported, into: 1)
        #expect(results.map(\.outcome) == [.unchanged, .unchanged], "\(results)")
        #expect(outcome.isEmpty)
    }

    @Test func anRRuleChangedElsewhereWinsOverTheExpressionNudgeWroteBesideIt() throws {
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:gym\r\nDTSTART:20270118T180000\r\nDUE:20270118T180000\r\n"
                + "RRULE:BYDAY=MO,WE;FREQ=WEEKLY;BYHOUR=18;BYMINUTE=0;BYSECOND=0\r\n"
                + "X-NUDGE-ONCALENDAR:Mon *-*-* 18:00:00\r\nEXDATE:20270125T180000\r\nEND:VTODO\r\n"
                + "BEGIN:VTODO\r\nSUMMARY:same\r\nDTSTART:20270118T180000\r\nDUE:20270118T180000\r\n"
                + "RRULE:BYDAY=MO;BYSECOND=0;FREQ=WEEKLY;BYMINUTE=0;BYHOUR=18\r\n"
                + "X-NUDGE-ONCALENDAR:Mon *-*-* 18:00:00\r\nEND:VTODO\r\n"
        ).tasks
        // The occurrence taken out is kept: the rule is kept as the recurrence it is.
        #expect(
            read.map(\.repeatRule) == [
                "DTSTART:20270118T180000 RRULE:BYDAY=MO,WE;FREQ=WEEKLY;BYHOUR=18;BYMINUTE=0;BYSECOND=0 "
                    + "EXDATE:20270125T180000",
                "Mon *-*-* 18:00:00",
            ]
        )
        #expect(read[0].notes == ["its RRULE is not the one X-NUDGE-ONCALENDAR was written with: the RRULE is used"])
        #expect(read[1].notes.isEmpty, "the same rule, its parts in another order: \(read[1].notes)")
    }

    @Test func aRepeatIsReadFromTheDueDateNotTheStart() throws {
        // recurring-ical-events-issue_97_simple_todo.ics of the corpus: every year's instance is due on 16 May
        // (RFC 5545 §3.8.5.3), not on the start's 15 April.
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:Yearly Income Tax Preparation\r\nDTSTART:19920415T133000Z\r\n"
                + "DUE:19920516T045959Z\r\nRRULE:FREQ=YEARLY\r\nEND:VTODO\r\n"
        ).tasks
        #expect(read.first?.repeatRule == "*-05-16 04:59:59 UTC", "\(read)")
        #expect(read.first?.notes == [])
    }

    @Test func aRepeatNoDueDateFollowsIsLeftOutAndSaid() throws {
        let read = try tasks(
            // tasksorg-thunderbird-repeat_daily.ics of the corpus: a start, no due date.
            "BEGIN:VTODO\r\nSUMMARY:New Task\r\nRRULE:FREQ=DAILY\r\nDTSTART;TZID=America/Chicago:20180417T170000\r\n"
                + "END:VTODO\r\n"
                // Starts placed on Mondays, each due two days later: no calendar expression of due dates says it.
                + "BEGIN:VTODO\r\nSUMMARY:placed\r\nDTSTART:20270118T090000Z\r\nDUE:20270120T090000Z\r\n"
                + "RRULE:FREQ=WEEKLY;BYDAY=MO\r\nEND:VTODO\r\n"
        ).tasks
        #expect(read.map(\.repeatRule) == [nil, nil])
        #expect(read.map(\.dueDate) == [nil, Date(timeIntervalSince1970: 1_800_435_600)])
        #expect(
            read.map(\.notes) == [
                [
                    "imported without repeat: its RRULE repeats its start (DTSTART), and it has no due date (DUE) "
                        + "for nudge to repeat"
                ],
                [
                    "imported without repeat: its RRULE places its starts (BYDAY=MO), and its due date is 2d away "
                        + "from its start, which no calendar expression of due dates says"
                ],
            ]
        )
    }

    @Test func aDurationFromTheStartGivesTheDueDateAndAGapTimeTakesTheOffsetBeforeIt() throws {
        let read = try tasks(
            "BEGIN:VTODO\r\nSUMMARY:a\r\nDTSTART:20270110T080000Z\r\nDURATION:PT1H30M\r\nEND:VTODO\r\n"
                + "BEGIN:VTODO\r\nSUMMARY:b\r\nDUE;TZID=Europe/Berlin:20270328T023000\r\nEND:VTODO\r\n"
        ).tasks
        #expect(read[0].dueDate == Date(timeIntervalSince1970: 1_799_573_400))  // 2027-01-10T09:30:00Z
        // 02:30 does not exist in Berlin that night; read with CET's offset it is 01:30Z, 03:30 CEST.
        #expect(read[1].dueDate == Date(timeIntervalSince1970: 1_806_197_400))  // 2027-03-28T01:30:00Z
    }

    @Test func aTaskWithoutUIDDoesNotTakeAnItemAnotherTaskOfTheFileNames() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        _ = try book.addItem(NewItem(text: "water", listID: 1))
        let uid = "1-\(book.library.storeID)@nudge"
        let read = try tasks(
            "BEGIN:VTODO\r\nUID:\(uid)\r\nSUMMARY:water\r\nPRIORITY:1\r\nEND:VTODO\r\n"
                + "BEGIN:VTODO\r\nSUMMARY:water\r\nPRIORITY:9\r\nEND:VTODO\r\n"
        ).tasks
        #expect(try book.importTasks(read, into: 1).0.map(\.outcome) == [.updated, .created])
        let (again, outcome) = try book.importTasks(read, into: 1)
        #expect(again.map(\.outcome) == [.unchanged, .unchanged] && outcome.isEmpty, "\(again)")
    }
}
