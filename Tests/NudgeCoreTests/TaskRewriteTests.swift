import Foundation
import NudgeCalendar
import Testing

@testable import NudgeCore

/// What nudge writes back to a task file another program keeps: only the properties it owns change, and every other
/// byte stays as that program wrote it.
@Suite struct TaskRewriteTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
    let zones = ZoneRulesStore()

    /// A file as another program might write it: a zone before the task, CRLF, a long folded line, an X- property
    /// with parameters, an alarm with lines of names the task has too, and an X- component after it.
    static let file = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Other//App//EN", "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
        "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
        "END:VTIMEZONE", "BEGIN:VTODO", "UID:abc@other", "DTSTAMP:20260101T000000Z", "SEQUENCE:4",
        "SUMMARY;LANGUAGE=en:Pay rent", "DESCRIPTION:A long description that goes on past the seventy-five octets",
        " of a line, folded as RFC 5545 says", "X-OTHER-APP;X-FLAVOUR=\"a;b\":keep me", "STATUS:NEEDS-ACTION",
        "DUE;TZID=Europe/Berlin:20270120T090000", "BEGIN:VALARM", "ACTION:DISPLAY", "SUMMARY:alarm's own",
        "STATUS:ALARM-OWN", "TRIGGER:-PT15M", "END:VALARM", "END:VTODO", "BEGIN:X-OTHER", "SUMMARY:not the task's",
        "END:X-OTHER", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    func rewritten(_ rewrite: TaskRewrite, _ file: String = file) throws -> String {
        String(decoding: try rewrite.applied(to: Array(file.utf8), now: now), as: UTF8.self)
    }

    /// The lines of `text` but those of the named properties, each with its line end.
    func lines(of text: String, without names: Set<String>) -> [Substring] {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).filter {
            !names.contains(TaskRewrite.name(of: $0))
        }
    }

    @Test func checkingOffChangesTheCompletionAndTheStampsAndKeepsEveryOtherByte() throws {
        let text = try rewritten(.completing(at: now))
        let owned: Set = ["STATUS", "COMPLETED", "PERCENT-COMPLETE", "DTSTAMP", "LAST-MODIFIED", "SEQUENCE"]
        // The alarm's STATUS is the alarm's own, and stays.
        #expect(lines(of: text, without: owned) == lines(of: Self.file, without: owned))
        #expect(text.contains("\r\nSTATUS:ALARM-OWN\r\n"))
        // In place of the lines they replace, in the task's order; new ones before its alarm.
        #expect(
            text.contains(
                "UID:abc@other\r\nDTSTAMP:20270115T080000Z\r\nSEQUENCE:5\r\nSUMMARY;LANGUAGE=en:Pay rent\r\n"
            )
        )
        #expect(text.contains("STATUS:COMPLETED\r\nDUE;TZID=Europe/Berlin:20270120T090000\r\n"))
        #expect(
            text.contains(
                "COMPLETED:20270115T080000Z\r\nPERCENT-COMPLETE:100\r\nLAST-MODIFIED:20270115T080000Z\r\nBEGIN:VALARM"
            )
        )
        let read = try CalendarInterchange.tasks(in: text, timeZone: .gmt, zones: zones).tasks
        #expect(read.count == 1 && read[0].checked && read[0].completedAt == now)
    }

    @Test func reopeningTakesTheCompletionAwayAndAnEditSetsOnlyWhatItNames() throws {
        let done = try rewritten(.completing(at: now))
        let reopened = try rewritten(.reopening, done)
        #expect(!reopened.contains("COMPLETED:") && !reopened.contains("PERCENT-COMPLETE"))
        #expect(reopened.contains("\r\nSTATUS:NEEDS-ACTION\r\n") && reopened.contains("\r\nSEQUENCE:6\r\n"))
        let edited = try rewritten(TaskRewrite(setting: ["SUMMARY:Pay the rent", "DUE:20270121T090000Z"]))
        #expect(edited.contains("\r\nSEQUENCE:5\r\nSUMMARY:Pay the rent\r\nDESCRIPTION:A long"))
        #expect(
            edited.contains(
                "STATUS:NEEDS-ACTION\r\nDUE:20270121T090000Z\r\nLAST-MODIFIED:20270115T080000Z\r\nBEGIN:VALARM"
            )
        )
        // The alarm's and the other component's SUMMARY are theirs.
        #expect(edited.contains("SUMMARY:alarm's own") && edited.contains("SUMMARY:not the task's"))
    }

    /// A file with LF line ends (as calcurse writes) gets LF in what nudge adds, a long line folded; a file without
    /// SEQUENCE starts at 1; every line of a property nudge sets goes but the one in its place.
    @Test func whatNudgeAddsFollowsTheFilesLineEndsAndFolding() throws {
        let file = "BEGIN:VCALENDAR\nBEGIN:VTODO\nUID:x\nSUMMARY:a\nSUMMARY:b\nEND:VTODO\nEND:VCALENDAR\n"
        let long = String(repeating: "long ", count: 30) + "end"
        let text = try rewritten(TaskRewrite(setting: ["SUMMARY:" + long]), file)
        #expect(!text.contains("\r"))
        #expect(text.components(separatedBy: "SUMMARY:").count == 2)
        #expect(text.contains("\nSEQUENCE:1\n"))
        #expect(text.split(separator: "\n").allSatisfy { $0.utf8.count <= 75 })
        let read = try CalendarInterchange.tasks(in: text, timeZone: .gmt, zones: zones).tasks
        #expect(read.first?.text == long)
    }

    /// A recurring task's file may hold overrides of single occurrences (RECURRENCE-ID) besides it: nudge changes
    /// the task itself, wherever it stands. A file with no task is refused.
    @Test func theTaskItselfIsChangedNotAnOverrideAndAFileWithoutATaskIsRefused() throws {
        let file = [
            "BEGIN:VCALENDAR", "BEGIN:VTODO", "UID:r", "RECURRENCE-ID:20270101T090000Z", "SUMMARY:one",
            "END:VTODO", "BEGIN:VTODO", "UID:r", "SUMMARY:all", "RRULE:FREQ=DAILY", "END:VTODO", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let text = try rewritten(TaskRewrite(setting: ["SUMMARY:every day"]), file)
        #expect(text.contains("SUMMARY:one") && text.contains("SUMMARY:every day") && !text.contains("SUMMARY:all"))
        #expect(throws: ModelError.self) {
            try rewritten(.reopening, "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:e\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        }
    }

    /// Alarms replaced go, all of them and only them, and the new ones come before the task's END; a due day beside a
    /// start at a time is refused; a SEQUENCE at its end stays there; a VTODO inside another component is not the task.
    @Test func alarmsAreReplacedWholeAndWhatRFC5545ForbidsIsRefused() throws {
        let text = try rewritten(TaskRewrite(replacingAlarms: ["BEGIN:VALARM", "TRIGGER:PT0S", "END:VALARM"]))
        #expect(!text.contains("alarm's own") && !text.contains("-PT15M"))
        #expect(text.contains("\r\nBEGIN:VALARM\r\nTRIGGER:PT0S\r\nEND:VALARM\r\nEND:VTODO\r\n"))
        #expect(text.contains("SUMMARY:not the task's"))
        let started = Self.file.replacingOccurrences(of: "SEQUENCE:4", with: "DTSTART:20270101T090000Z")
        #expect(throws: ModelError.self) {
            try rewritten(TaskRewrite(setting: ["DUE;VALUE=DATE:20270121"]), started)
        }
        let last = Self.file.replacingOccurrences(of: "SEQUENCE:4", with: "SEQUENCE:\(Int.max)")
        #expect(try rewritten(.reopening, last).contains("SEQUENCE:\(Int.max)\r\n"))
        let nested = [
            "BEGIN:VCALENDAR", "BEGIN:X-WRAPPER", "BEGIN:VTODO", "UID:inner", "SUMMARY:inner", "END:VTODO",
            "END:X-WRAPPER", "BEGIN:VTODO", "UID:outer", "SUMMARY:outer", "END:VTODO", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let edited = try rewritten(TaskRewrite(setting: ["SUMMARY:changed"]), nested)
        #expect(
            edited.contains("SUMMARY:inner") && edited.contains("SUMMARY:changed") && !edited.contains("SUMMARY:outer")
        )
    }

    /// A due date moved is said as the file says it (here a zone's wall time), and the start moves as far.
    @Test func aMovedDueKeepsItsFormAndTakesTheStartAlong() throws {
        let file = Self.file.replacingOccurrences(of: "SEQUENCE:4", with: "DTSTART;TZID=Europe/Berlin:20270119T180000")
        let moved = TaskRewrite(
            movingDue: .init(Date(timeIntervalSince1970: 1_801_036_800), localZone: .gmt)  // 2027-01-27T08:00:00Z
        )
        let text = try rewritten(moved, file)
        #expect(text.contains("\r\nDUE;TZID=Europe/Berlin:20270127T090000\r\n"), "\(text)")
        #expect(text.contains("\r\nDTSTART;TZID=Europe/Berlin:20270126T180000\r\n"), "\(text)")
        let day = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:d\r\nDUE;VALUE=DATE:20270120\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(try rewritten(moved, day).contains("DUE;VALUE=DATE:20270127\r\n"))
    }

    /// A series' next copy leaves the overrides of single occurrences out (one UID to a file); a task whose rule nudge
    /// did not take as its repeat is neither completed nor given a due date, which would end or fork the series.
    @Test func aCopyLeavesOverridesOutAndARuleNudgeDidNotTakeIsNotTouched() throws {
        let file = [
            "BEGIN:VCALENDAR", "BEGIN:VTODO", "UID:r", "SUMMARY:all", "DUE:20270120T080000Z", "RRULE:FREQ=DAILY",
            "END:VTODO", "BEGIN:VTODO", "UID:r", "RECURRENCE-ID:20270121T080000Z", "SUMMARY:one", "END:VTODO",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        var copy = TaskRewrite(setting: ["UID:next"], movingDue: .init(now, localZone: .gmt))
        copy.dropsOtherTasks = true
        let text = try rewritten(copy, file)
        #expect(!text.contains("RECURRENCE-ID") && !text.contains("SUMMARY:one") && text.contains("UID:next"))
        #expect(text.contains("DUE:20270115T080000Z") && text.hasSuffix("END:VTODO\r\nEND:VCALENDAR\r\n"))
        for refused in [TaskRewrite.completing(at: now), TaskRewrite(setting: ["DUE:20270121T080000Z"])] {
            #expect(throws: ModelError.self) { try rewritten(refused, file) }
        }
        #expect(
            try rewritten(.completing(at: now).merged(with: TaskRewrite(removing: ["RRULE"])), file).contains(
                "COMPLETED"
            )
        )
    }
}
