import Foundation
import Testing

@testable import NudgeCalendar
@testable import NudgeCore

private let zones = ZoneRulesStore()
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
private let berlin = TimeZone(identifier: "Europe/Berlin")!
private let stamp = FileStamp(size: 1, inode: 1, modified: 1, digest: [1])

/// What the book asks to write to a linked item's file: only what the edit changes, and nothing it cannot say there.
@Suite struct TaskFileChangeTests {
    /// A book with a list linked to /tasks/work holding the task of `lines` (VTODO lines) in `a.ics`, read with a
    /// stamp, and the item's ID.
    private func book(_ lines: [String]) throws -> (ReminderBook, Int) {
        let text = (["BEGIN:VCALENDAR", "BEGIN:VTODO", "UID:a"] + lines + ["END:VTODO", "END:VCALENDAR", ""])
            .joined(separator: "\r\n")
        let task = try #require(try CalendarInterchange.tasks(in: text, timeZone: berlin, zones: zones).tasks.first)
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin, zones: zones)
        let (list, _) = try book.addList(name: "Work")
        _ = try book.linkList(
            listID: list.listID,
            ListLink(folder: "/tasks/work"),
            contents: FolderContents(tasks: [FolderTask(fileName: "a.ics", task: task, stamp: stamp)])
        )
        return (book, try #require(book.library.list(id: list.listID)?.items.first?.itemID))
    }

    private func rewrite(_ change: TaskFileChange?) -> TaskRewrite? {
        guard case .rewrite(let rewrite)? = change?.kind else { return nil }
        return rewrite
    }

    @Test func anEditWritesOnlyWhatItChangesAndNothingWhenTheItemHoldsItAlready() throws {
        let (book, itemID) = try book(["SUMMARY:Pay rent", "DUE:20270120T080000Z", "PRIORITY:1"])
        #expect(
            try book.fileChange(editing: itemID, ItemEdit(text: "Pay rent", checked: false, priority: .high)) == nil
        )
        let change = try book.fileChange(editing: itemID, ItemEdit(text: "Pay the rent", checked: true))
        #expect(change?.stamp == stamp && change?.fileName == "a.ics" && change?.path == "/tasks/work/a.ics")
        let written = try #require(rewrite(change))
        #expect(written.setting.contains("SUMMARY:Pay the rent") && written.setting.contains("STATUS:COMPLETED"))
        #expect(!written.setting.contains { $0.hasPrefix("DUE") || $0.hasPrefix("PRIORITY") })
        // A due date replaces a DURATION (RFC 5545 allows one of them); normal priority is none given.
        let moved = try #require(
            rewrite(try book.fileChange(editing: itemID, ItemEdit(dueDate: t0 + 86_400, priority: .normal)))
        )
        #expect(moved.setting == ["DUE:20270116T080000Z"] && moved.removing == ["DURATION", "PRIORITY"])
        #expect(moved.replacingAlarms == nil)
    }

    /// A due time made a day (or back) gets alarms counted from the day's start, nudge's own: those the file had
    /// counted from a due time.
    @Test func aDueTimeMadeADayReplacesTheAlarmsWithNudgesOwn() throws {
        let (book, itemID) = try book([
            "SUMMARY:Pay rent", "DUE:20270120T080000Z", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT1H", "END:VALARM",
        ])
        let day = try #require(CalendarDay(iso: "2027-01-21"))
        let written = try #require(rewrite(try book.fileChange(editing: itemID, ItemEdit(dueDay: day))))
        #expect(written.setting == ["DUE;VALUE=DATE:20270121"])
        // 09:00 of the day, its start's nine hours after.
        #expect(written.replacingAlarms?.contains("TRIGGER;RELATED=END:PT9H") == true, "\(written)")
    }

    /// Its alarms are nudge's to write: an edit of its warnings or of whether it reminds replaces the task's alarms,
    /// whatever they were, with nudge's own; a due time that does not remind cannot be said where the link reminds
    /// at due times, nor alarms without a due date.
    @Test func anEditOfItsAlarmsReplacesThemWithNudgesOwn() throws {
        let (book, itemID) = try book([
            "SUMMARY:Pay rent", "DUE:20270120T080000Z", "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT1H", "END:VALARM",
        ])
        let written = try #require(rewrite(try book.fileChange(editing: itemID, ItemEdit(warnings: [1800]))))
        let alarms = try #require(written.replacingAlarms)
        #expect(alarms.filter { $0 == "BEGIN:VALARM" }.count == 2, "\(alarms)")
        #expect(alarms.contains("TRIGGER;RELATED=END:-PT30M") && alarms.contains("ACTION:DISPLAY"), "\(alarms)")
        #expect(written.setting.isEmpty && written.removing.isEmpty)
        let silent = #expect(throws: ModelError.self) {
            try book.fileChange(editing: itemID, ItemEdit(shouldRemind: false))
        }
        #expect(
            silent?.description.contains("a due time that does not remind") == true,
            "\(String(describing: silent))"
        )

        // A day without alarms does not remind: moved to a time, the link reminds at it, so nothing needs saying;
        // warnings of it cannot be said.
        let (day, dayID) = try self.book(["SUMMARY:Pay rent", "DUE;VALUE=DATE:20270120"])
        let moved = try #require(rewrite(try day.fileChange(editing: dayID, ItemEdit(dueDate: t0 + 86_400))))
        #expect(moved.replacingAlarms == [], "\(moved)")
        let warned = #expect(throws: ModelError.self) {
            try day.fileChange(editing: dayID, ItemEdit(warnings: [600]))
        }
        #expect(warned?.description.contains("warnings of a task that does not remind") == true)

        let (undated, undatedID) = try self.book(["SUMMARY:Someday"])
        let refused = #expect(throws: ModelError.self) {
            try undated.fileChange(editing: undatedID, ItemEdit(warnings: [600]))
        }
        #expect(refused?.code == .linkedList)
    }

    @Test func whatTheFileCannotSayIsRefusedSayingWhatAndWhere() throws {
        let (book, itemID) = try book(["SUMMARY:Water", "DUE:20270120T080000Z", "RRULE:FREQ=WEEKLY"])
        for edit in [ItemEdit(dueDate: t0 + 14 * 86_400), ItemEdit(repeatRule: "daily")] {
            #expect {
                try book.fileChange(editing: itemID, edit)
            } throws: { error in
                (error as? ModelError)?.code == .linkedList
                    && (error as? ModelError)?.description.contains("/tasks/work/a.ics") == true
            }
        }
        #expect(
            try rewrite(book.fileChange(editing: itemID, ItemEdit(text: "Water the ferns")))?.setting.first
                == "SUMMARY:Water the ferns"
        )
        // Done on a recurring task is todoman's: the task done without its rule, and a copy due at the next.
        guard
            case .completeSeries(let done, let next, let nextFileName)? = try book.fileChange(
                editing: itemID,
                ItemEdit(checked: true)
            )?.kind
        else {
            Issue.record("a recurring task's completion is not todoman's")
            return
        }
        #expect(
            done.removing.isSuperset(of: ["RRULE", "X-NUDGE-ONCALENDAR"]) && done.setting.contains("STATUS:COMPLETED")
        )
        #expect(next.dropsOtherTasks)
        #expect(next.movingDue?.instant == Date(timeIntervalSince1970: 1_801_036_800))  // 2027-01-27T08:00:00Z
        #expect(next.setting.contains("STATUS:NEEDS-ACTION") && next.removing.contains("COMPLETED"))
        #expect(next.setting.contains("UID:" + nextFileName.dropLast(4)))
        let (rounds, roundID) = try self.book(["SUMMARY:Haircut", "DUE:20270120T080000Z", "X-NUDGE-REPEAT-AFTER:P6W"])
        let round = rounds.library.item(id: roundID)
        #expect(round?.repeatAfter != nil, "\(String(describing: round))")
        #expect(throws: ModelError.self) { try rounds.fileChange(editing: roundID, ItemEdit(checked: true)) }
        // A new item's due time that does not remind: the link reminds at every due time, and a file cannot say not.
        let listID = try #require(book.library.list(named: "Work")?.listID)
        let silent = NewItem(text: "quiet", listID: listID, dueDate: t0 + 3_600, shouldRemind: false)
        #expect(throws: ModelError.self) { try book.fileChange(adding: silent) }
    }
}
