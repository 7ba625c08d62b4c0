import Foundation
import Testing

@testable import NudgeCalendar
@testable import NudgeCore

private let zones = ZoneRulesStore()
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
private let berlin = TimeZone(identifier: "Europe/Berlin")!

/// A list linked to a folder: the book follows what the folder holds (`ReminderBook.applyFolder`), and refuses the
/// changes only the folder may make.
@Suite struct FolderLinkTests {
    /// The folder's task in `fileName`, as VdirCollection would read it.
    private func task(_ fileName: String, _ summary: String, due: String? = nil, extra: String = "") throws
        -> FolderTask
    {
        let lines =
            ["BEGIN:VTODO", "UID:\(fileName.dropLast(4))", "SUMMARY:\(summary)"]
            + (due.map { ["DUE:\($0)"] } ?? []) + (extra.isEmpty ? [] : [extra]) + ["END:VTODO"]
        let text = "BEGIN:VCALENDAR\r\n" + lines.joined(separator: "\r\n") + "\r\nEND:VCALENDAR\r\n"
        let read = try CalendarInterchange.tasks(in: text, timeZone: berlin, zones: zones)
        return FolderTask(fileName: fileName, task: try #require(read.tasks.first))
    }

    /// A book with a list "Work" linked to /tasks/work, holding `tasks`.
    private func linkedBook(_ tasks: [FolderTask], remindsAtDue: Bool = true) throws -> (ReminderBook, Int) {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin, zones: zones)
        let (list, _) = try book.addList(name: "Work")
        _ = try book.linkList(
            listID: list.listID,
            ListLink(folder: "/tasks/work", remindsAtDue: remindsAtDue),
            contents: FolderContents(tasks: tasks)
        )
        return (book, list.listID)
    }

    private func items(_ book: ReminderBook, _ listID: Int) -> [ChecklistItem] {
        book.library.list(id: listID)?.items ?? []
    }

    @Test func eachTaskFileIsOneItemNamingItsFileAndUIDAndRemindingAtItsDue() throws {
        let (book, listID) = try linkedBook([
            try task("a.ics", "file the report", due: "20270115T170000Z"),
            try task("b.ics", "no due date"),
        ])
        let items = items(book, listID)
        #expect(items.map(\.text) == ["file the report", "no due date"])
        #expect(items.map(\.fileName) == ["a.ics", "b.ics"])
        #expect(items.map(\.calendarUID) == ["a", "b"])
        #expect(items[0].shouldRemind && !items[1].shouldRemind)
        #expect(book.scheduler.pendingReminders.map(\.itemID) == [items[0].itemID])
        #expect(book.folderStates[listID] == .read(skipped: [], limited: [], otherFiles: 0))
    }

    @Test func theLinkCanSayADueDateAloneDoesNotRemind() throws {
        let (book, listID) = try linkedBook([try task("a.ics", "quiet", due: "20270115T170000Z")], remindsAtDue: false)
        #expect(items(book, listID).map(\.shouldRemind) == [false])
        #expect((book.scheduler.pendingCount == 0))
    }

    @Test func readingTheSameFolderAgainChangesNothing() throws {
        let tasks = [try task("a.ics", "one", due: "20270115T170000Z"), try task("b.ics", "two")]
        var (book, listID) = try linkedBook(tasks)
        let again = try book.applyFolder(listID: listID, FolderContents(tasks: tasks))
        #expect(again.changes.isEmpty && again.events.isEmpty)
    }

    @Test func aChangedFileEditsItsItemAGoneOneRemovesItAndANewOneAddsOne() throws {
        var (book, listID) = try linkedBook([
            try task("a.ics", "one", due: "20270115T170000Z"), try task("b.ics", "two", due: "20270116T170000Z"),
        ])
        let before = items(book, listID)
        let outcome = try book.applyFolder(
            listID: listID,
            FolderContents(tasks: [
                try task("a.ics", "one, later", due: "20270115T180000Z"), try task("c.ics", "three"),
            ])
        )
        let after = items(book, listID)
        #expect(after.map(\.text) == ["one, later", "three"])
        #expect(after[0].itemID == before[0].itemID, "an edited file keeps its item")
        #expect(after[1].itemID > before[1].itemID, "a new file is a new item, its ID never one used before")
        #expect(after[0].dueDate == Date(timeIntervalSince1970: 1_800_036_000))
        #expect(outcome.events.allSatisfy { $0.source == .vdir })
        #expect(Set(outcome.events.map(\.kind)) == [.replaced, .cancelled])
        #expect(book.scheduler.pendingReminders.map(\.itemID) == [before[0].itemID])
    }

    @Test func aSkippedFileKeepsItsItemAsLastReadAndIsCounted() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "one", due: "20270115T170000Z")])
        let skipped = SkippedFile(fileName: "a.ics", reason: "line 3: no SUMMARY")
        let outcome = try book.applyFolder(listID: listID, FolderContents(tasks: [], skipped: [skipped], otherFiles: 2))
        #expect(outcome.changes.isEmpty)
        #expect(items(book, listID).map(\.text) == ["one"])
        #expect(book.folderStates[listID] == .read(skipped: [skipped], limited: [], otherFiles: 2))
    }

    /// A repeat nudge cannot follow exactly is taken as its one occurrence, and the list says so of its file.
    @Test func aRepeatNudgeCannotFollowIsTakenAsOneOccurrenceAndCountedAsLimited() throws {
        var (book, listID) = try linkedBook([
            try task(
                "a.ics",
                "weekly",
                due: "20270111T170000Z",
                extra: "DTSTART:20270110T090000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=MO"
            ),
            try task("b.ics", "daily", due: "20270115T170000Z", extra: "RRULE:FREQ=DAILY"),
        ])
        #expect(items(book, listID).map { $0.repeatRule == nil } == [true, false])
        guard case .read(let skipped, let limited, _) = book.folderStates[listID] else {
            Issue.record("the folder was not read")
            return
        }
        #expect(skipped.isEmpty)
        #expect(limited.map(\.fileName) == ["a.ics"])
        #expect(
            limited.first?.reason.hasPrefix("taken without its repeat: its RRULE places its starts") == true
        )

        // A reading of the other file alone leaves it so.
        let other = try task("b.ics", "daily, edited", due: "20270115T170000Z", extra: "RRULE:FREQ=DAILY")
        _ = try book.applyFolder(
            listID: listID,
            FolderContents(tasks: [other], taskFiles: ["a.ics", "b.ics"], readAnew: ["b.ics"])
        )
        #expect(book.folderStates[listID] == .read(skipped: [], limited: limited, otherFiles: 0))
    }

    @Test func anUnavailableFolderKeepsEveryItemAndReminder() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "one", due: "20270115T170000Z")])
        book.folderUnavailable(listID: listID, reason: "No such file or directory")
        #expect(items(book, listID).count == 1 && book.scheduler.pendingCount == 1)
        #expect(book.folderStates[listID] == .unavailable(reason: "No such file or directory"))
    }

    @Test func theCollectionsDisplayNameNamesTheListUnlessAnotherListHasIt() throws {
        var (book, listID) = try linkedBook([])
        _ = try book.applyFolder(listID: listID, FolderContents(tasks: [], displayName: "Arbeit"))
        #expect(book.library.list(id: listID)?.name == "Arbeit")
        _ = try book.addList(name: "Taken")
        _ = try book.applyFolder(listID: listID, FolderContents(tasks: [], displayName: "Taken"))
        #expect(book.library.list(id: listID)?.name == "Arbeit")
    }

    @Test func nudgeDoesNotChangeALinkedListsItemsButMaySnoozeThem() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "one", due: "20270115T170000Z")])
        let itemID = try #require(items(book, listID).first?.itemID)
        #expect(throws: ModelError.self) { try book.editItem(itemID: itemID, ItemEdit(checked: true)) }
        #expect(throws: ModelError.self) { try book.removeItem(itemID: itemID) }
        #expect(throws: ModelError.self) { try book.addItem(NewItem(text: "new", listID: listID)) }
        let inbox = book.library.defaultList.listID
        let (local, _) = try book.addItem(NewItem(text: "local", listID: inbox))
        #expect(throws: ModelError.self) { try book.editItem(itemID: local.itemID, ItemEdit(listID: listID)) }
        let refused = #expect(throws: ModelError.self) { try book.editItem(itemID: itemID, ItemEdit(text: "x")) }
        #expect(refused?.code == .linkedList)
        #expect(refused?.description.contains("/tasks/work/a.ics") == true)
        let (snoozed, _) = try book.snoozeItem(itemID: itemID, until: t0 + 600)
        #expect(snoozed.snoozedUntil == t0 + 600)
    }

    @Test func anImportOfAnExportedLinkedTaskLeavesItToItsFolder() throws {
        // A task without a UID of its own: an export names it by nudge's UID for its item.
        var (book, listID) = try linkedBook([
            FolderTask(fileName: "plain.ics", task: try task("x.ics", "no UID of its own").task.withoutUID)
        ])
        let exported = try CalendarInterchange.tasks(in: book.calendarDocument(), timeZone: berlin, zones: zones).tasks
        try #require(exported.count == 1 && exported[0].uid != nil)
        var changed = exported[0]
        changed.text = "changed by an import"
        let (results, _) = try book.importTasks([changed], into: book.library.defaultList.listID)
        #expect(results.map(\.outcome) == [.skipped])
        #expect(items(book, listID).map(\.text) == ["no UID of its own"])
    }

    @Test func anImportLeavesALinkedListsTasksToTheirFolder() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "one")])
        let inbox = book.library.defaultList.listID
        let imported = try task("elsewhere.ics", "one, from a file").task
        var sameUID = imported
        sameUID.uid = "a"
        let (results, _) = try book.importTasks([sameUID], into: inbox)
        #expect(results.map(\.outcome) == [.skipped])
        #expect(items(book, listID).map(\.text) == ["one"])
        #expect(book.library.list(id: inbox)?.items.isEmpty == true)
        #expect(throws: ModelError.self) { try book.importTasks([imported], into: listID) }
    }

    @Test func linkingRefusesAListWithItemsARelativeFolderAndAFolderLinkedAlready() throws {
        var (book, _) = try linkedBook([])
        let inbox = book.library.defaultList.listID
        _ = try book.addItem(NewItem(text: "mine", listID: inbox))
        func code(_ link: ListLink, _ listID: Int) -> ModelError.Code? {
            do {
                _ = try book.linkList(listID: listID, link, contents: FolderContents(tasks: []))
                return nil
            } catch { return error.code }
        }
        #expect(code(ListLink(folder: "/tasks/home"), inbox) == .listNotEmpty)
        let (empty, _) = try book.addList(name: "Empty")
        #expect(code(ListLink(folder: "tasks/home"), empty.listID) == .invalidFolder)
        #expect(code(ListLink(folder: "/tasks/work"), empty.listID) == .linkedList)
        #expect(code(ListLink(folder: "/tasks/home"), empty.listID) == nil)
    }

    @Test func unlinkingRemovesTheFoldersItemsAndCancelsTheirReminders() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "one", due: "20270115T170000Z")])
        let outcome = try book.unlinkList(listID: listID)
        #expect(book.library.list(id: listID)?.link == nil)
        #expect(items(book, listID).isEmpty && (book.scheduler.pendingCount == 0))
        #expect(outcome.events.map(\.kind) == [.cancelled])
        #expect(book.folderStates[listID] == nil)
        // Unlinked, the list is nudge's own again.
        _ = try book.addItem(NewItem(text: "mine now", listID: listID))
    }

    @Test func aRenamedFileOrADuplicateUIDsFirstFileKeepsTheItem() throws {
        var (book, listID) = try linkedBook([try task("b.ics", "one", due: "20270115T170000Z")])
        let itemID = try #require(items(book, listID).first?.itemID)
        // Renamed: b.ics is gone, a.ics has its UID.
        let renamed = FolderTask(fileName: "a.ics", task: try task("b.ics", "one", due: "20270115T170000Z").task)
        let outcome = try book.applyFolder(listID: listID, FolderContents(tasks: [renamed]))
        #expect(items(book, listID).map(\.itemID) == [itemID] && items(book, listID).map(\.fileName) == ["a.ics"])
        #expect(outcome.events.isEmpty, "the reminder is as it was")
        // A new file before it by name with the same UID wins, and the later one is skipped: still one item.
        let first = FolderTask(fileName: "0.ics", task: renamed.task)
        let duplicate = SkippedFile(fileName: "a.ics", reason: "its UID b is the task of 0.ics already")
        _ = try book.applyFolder(listID: listID, FolderContents(tasks: [first], skipped: [duplicate]))
        #expect(items(book, listID).map(\.itemID) == [itemID] && items(book, listID).map(\.fileName) == ["0.ics"])
        #expect(book.scheduler.pendingCount == 1)
    }

    /// A change of a few files among many is read as those files (`FolderContents.readAnew`): the book looks at them
    /// alone, and ends as the folder read whole would leave it, a task it refused in a file not read anew still
    /// counted as skipped.
    @Test func onlyTheFilesReadAnewAreLookedAtAndTheBookEndsAsAWholeReadingWouldLeaveIt() throws {
        let refused = try task(
            "z.ics",
            "ended",
            due: "20200101T090000Z",
            extra: "RRULE:FREQ=DAILY;UNTIL=20200105T000000Z"
        )
        let kept = try task("c.ics", "three")
        var (partial, listID) = try linkedBook([
            try task("a.ics", "one"), try task("b.ics", "two", due: "20270116T170000Z"), kept, refused,
        ])
        guard case .read(let skippedAtLink, _, _) = partial.folderStates[listID] else {
            Issue.record("the folder was not read")
            return
        }
        #expect(skippedAtLink.map(\.fileName) == ["z.ics"])
        var whole = partial
        let (edited, added) = (try task("a.ics", "one, edited", due: "20270115T170000Z"), try task("d.ics", "four"))
        _ = try whole.applyFolder(listID: listID, FolderContents(tasks: [edited, kept, added, refused]))
        // As a collection hands on a reading of a few files: their tasks, and the names of every task file.
        var then = FolderContents(
            tasks: [edited, added],
            taskFiles: ["a.ics", "c.ics", "d.ics", "z.ics"],
            readAnew: ["a.ics", "b.ics", "d.ics"]
        )
        _ = try partial.applyFolder(listID: listID, then)
        func shown(_ book: ReminderBook) -> [String] {
            items(book, listID).map {
                "\($0.itemID) \($0.text) \($0.fileName ?? "-") \($0.dueDate.map(\.description) ?? "-")"
            }
        }
        #expect(shown(partial) == shown(whole))
        #expect(shown(partial).count == 3)
        #expect(partial.folderStates[listID] == whole.folderStates[listID])
        #expect(partial.scheduler.pendingReminders.map(\.itemID) == whole.scheduler.pendingReminders.map(\.itemID))

        // Beside a folder the book did not take as read (unavailable, say), a reading of a few files says too
        // little: it is passed over, for the folder read whole.
        var away = whole
        away.folderUnavailable(listID: listID, reason: "moved away")
        #expect(!away.hasTakenFolder(of: listID))
        let gone = FolderContents(
            tasks: [added],
            taskFiles: ["c.ics", "d.ics", "z.ics"],
            readAnew: ["a.ics", "d.ics"]
        )
        let passedOver = try away.applyFolder(listID: listID, gone)
        #expect(passedOver.changes.isEmpty && passedOver.events.isEmpty)
        #expect(items(away, listID).map(\.text).contains("one, edited"))
        #expect(away.folderStates[listID] == .unavailable(reason: "moved away"))

        then.tasks = [added, try task("c.ics", "three, as a file not read anew")]
        then.readAnew = ["d.ics"]
        let outcome = try partial.applyFolder(listID: listID, then)
        #expect(outcome.changes.isEmpty && outcome.events.isEmpty)
        #expect(items(partial, listID).map(\.text).contains("three"))
    }

    @Test func anEmptyFolderBehindSeveralItemsIsTakenForADiskNotMountedButOneItemMayGo() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "one"), try task("b.ics", "two")])
        let outcome = try book.applyFolder(listID: listID, FolderContents(tasks: []))
        #expect(outcome.isEmpty && items(book, listID).count == 2)
        guard case .unavailable(let reason) = book.folderStates[listID] else {
            Issue.record(
                "an empty folder behind two items is not unavailable: \(String(describing: book.folderStates[listID]))"
            )
            return
        }
        #expect(reason.contains("mounted"))
        _ = try book.applyFolder(listID: listID, FolderContents(tasks: [try task("a.ics", "one")]))
        _ = try book.applyFolder(listID: listID, FolderContents(tasks: []))
        #expect(items(book, listID).isEmpty, "the last task removed in the folder leaves")
    }

    @Test func linkingToAnotherFolderLetsTheItemsOfTheFirstGo() throws {
        var (book, listID) = try linkedBook([try task("a.ics", "first folder's")])
        let before = try #require(items(book, listID).first?.itemID)
        _ = try book.linkList(
            listID: listID,
            ListLink(folder: "/tasks/other"),
            contents: FolderContents(tasks: [try task("a.ics", "second folder's")])
        )
        #expect(items(book, listID).map(\.text) == ["second folder's"])
        #expect(items(book, listID).first?.itemID != before, "a file of the same name there is another task")
    }

    @Test func theDefaultListIsNotLinkedNorALinkedListMadeTheDefault() throws {
        var (book, listID) = try linkedBook([])
        let inbox = book.library.defaultList.listID
        _ = try book.removeItem(itemID: try book.addItem(NewItem(text: "x", listID: inbox)).0.itemID)
        let linking = #expect(throws: ModelError.self) {
            try book.linkList(listID: inbox, ListLink(folder: "/tasks/inbox"), contents: FolderContents(tasks: []))
        }
        #expect(linking?.description.contains("default") == true)
        #expect(throws: ModelError.self) { try book.updateList(listID: listID, makeDefault: true) }
    }

    @Test func nudgeCannotTakeBackIntoALinkedListWhatItsFolderDoesNotHold() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin, zones: zones)
        let (list, _) = try book.addList(name: "Work")
        let (item, _) = try book.addItem(NewItem(text: "mine", listID: list.listID))
        let (_, removal) = try book.recordingUndo { (book: inout ReminderBook) throws(ModelError) in
            try book.removeItem(itemID: item.itemID)
        }
        _ = try book.linkList(listID: list.listID, ListLink(folder: "/tasks/work"), contents: FolderContents(tasks: []))
        let refused = #expect(throws: ModelError.self) { try book.undo(removal) }
        #expect(refused?.code == .linkedList)
        #expect(book.library.list(id: list.listID)?.items.isEmpty == true)
    }
}

extension CalendarTask {
    fileprivate var withoutUID: CalendarTask {
        var task = self
        task.uid = nil
        return task
    }
}
