import Foundation
import NudgeCalendar
import NudgeTestSupport
import Testing

@testable import NudgeCore

/// Fri 2027-01-15 08:00:00 UTC, 09:00 in Berlin.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let berlin = TimeZone(identifier: "Europe/Berlin")!

/// Taking a change back (`ReminderBook.recordingUndo`, `undo`): the items as they were, with their IDs, their
/// reminders replaced or cancelled as an edit's; the undo taken back in turn.
@Suite struct UndoTests {
    /// What undo promises to give back: each list's items, by ID (an item put back joins the end of its list), and
    /// each item's pending reminder.
    private struct State: Equatable {
        var lists: [Int: [Int: ChecklistItem]]
        var pending: [Int: Reminder]

        init(_ book: ReminderBook) {
            lists = Dictionary(
                uniqueKeysWithValues: book.library.lists.map { list in
                    (list.listID, Dictionary(uniqueKeysWithValues: list.items.map { ($0.itemID, $0) }))
                }
            )
            let itemIDs = book.library.lists.flatMap { $0.items.map(\.itemID) }
            pending = Dictionary(
                uniqueKeysWithValues: itemIDs.compactMap { id in
                    book.scheduler.pendingReminder(for: id).map { (id, $0) }
                }
            )
        }
    }

    /// One random operation of the user's, on the items there are; false if it was refused (it changed nothing).
    private func randomOperation(_ book: inout ReminderBook, _ random: inout SplitMix64) -> Bool {
        let itemIDs = book.library.lists.flatMap { $0.items.map(\.itemID) }
        let someItem = itemIDs.isEmpty ? nil : itemIDs[Int(random.next() % UInt64(itemIDs.count))]
        let hours = TimeInterval(random.next() % 200 + 1) * 3600
        let day = CalendarDay(containing: t0 + hours, in: berlin)
        do throws(ModelError) {
            switch (random.next() % 9, someItem) {
            case (0, _), (1, nil), (2, nil), (3, nil), (4, nil), (5, nil), (6, nil):
                let kinds: [NewItem] = [
                    NewItem(text: "timed", listID: 1, dueDate: t0 + hours, shouldRemind: true, warnings: [600]),
                    NewItem(text: "day", listID: 2, dueDay: day, shouldRemind: true),
                    NewItem(text: "rule", listID: 1, shouldRemind: true, repeatRule: "Mon..Fri 10:00"),
                    NewItem(text: "after", listID: 2, dueDate: t0 + hours, shouldRemind: true, repeatAfter: 86_400),
                    NewItem(text: "plain", listID: 1),
                ]
                _ = try book.addItem(kinds[Int(random.next() % UInt64(kinds.count))])
            case (1, let id?):
                _ = try book.editItem(itemID: id, ItemEdit(checked: random.next() % 2 == 0))
            case (2, let id?):
                _ = try book.editItem(itemID: id, ItemEdit(text: "edited \(random.next() % 5)", dueDate: t0 + hours))
            case (3, let id?):
                _ = try book.editItem(itemID: id, ItemEdit(dueDay: day, listID: Int(random.next() % 2) + 1))
            case (4, let id?):
                _ = try book.snoozeItem(itemID: id, until: t0 + hours)
            case (5, let id?):
                _ = try book.removeItem(itemID: id)
            case (6, let id?):
                _ = try book.editItem(itemID: id, ItemEdit(shouldRemind: random.next() % 2 == 0, clearsRepeat: true))
            default:
                // A batch: several of them as one change.
                for _ in 0..<(random.next() % 3 + 2) { _ = randomOperation(&book, &random) }
            }
            return true
        } catch {
            return false
        }
    }

    /// Any sequence of changes, each recorded, then as many undos, newest first: after each undo the items and their
    /// reminders are as they were before that change, IDs included, down to the start; the ID counters only go up.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func anySequenceOfChangesUndoneInTurnGivesTheItemsBack(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        _ = try book.addList(name: "Errands")
        var history: [(before: State, step: UndoStep)] = []
        for _ in 0..<60 {
            let before = State(book)
            let (applied, step) = try book.recordingUndo { book throws(ModelError) in randomOperation(&book, &random) }
            if !applied { #expect(State(book) == before, "a refused operation changed nothing") }
            history.append((before, step))
        }
        let counter = book.library.nextItemID
        for (before, step) in history.reversed() {
            let after = State(book)
            let (redo, _) = try book.undo(step)
            #expect(State(book) == before)
            // The undo taken back gives the state after the change again; and taken back once more, before it.
            let (again, _) = try book.undo(redo)
            #expect(State(book) == after)
            _ = try book.undo(again)
            #expect(State(book) == before)
        }
        #expect(book.library.lists.allSatisfy { $0.items.isEmpty })
        #expect(book.library.nextItemID == counter, "IDs are never handed out twice")
    }

    /// The same through the events, as `nudge undo EVENT` takes changes back one after another, newest first, with
    /// the clock moving and reminders firing between the changes (32 random sequences): each change is undoable when
    /// its turn comes (the later ones, and their undos, cancel out), and at the end the lists are as they were, IDs
    /// included.
    @Test(arguments: Array(11...42) as [UInt64])
    func changesTakenBackOneAfterAnotherThroughTheirEventsGiveTheItemsBack(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.addList(name: "Errands")
        _ = book.start()
        let start = State(book)
        var history: [ReminderEvent] = []
        for _ in 0..<40 {
            let (_, step) = try book.recordingUndo { book throws(ModelError) in randomOperation(&book, &random) }
            history += book.reportChange(step).events
            clock.set(clock.now() + TimeInterval(random.next() % 7_200))
            _ = book.advance()
        }
        for change in history.reversed() {
            var since = ChangesSince(of: change)
            for later in history { since.add(later) }
            #expect(since.whyNotUndoable == nil, "event \(change.id): \(change.text)")
            history += try book.undoChange(change, seenThrough: .max).events.filter { $0.kind == .undone }
        }
        // The items are back, IDs included; what reminders did meanwhile (fires, moved series) stays done.
        #expect(State(book).lists.mapValues { Set($0.keys) } == start.lists.mapValues { Set($0.keys) })
        #expect(book.library.lists.allSatisfy { $0.items.isEmpty })
    }

    @Test func anUndoneRemoveBringsTheItemBackWithItsIDAndItsReminder() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        let (item, _) = try book.addItem(NewItem(text: "dentist", listID: 1, dueDate: t0 + 3600, shouldRemind: true))
        let (removed, remove) = try book.recordingUndo { book throws(ModelError) in try book.removeItem(itemID: 1) }
        #expect(removed.events.map(\.kind) == [.cancelled] && remove.itemIDs == [1])
        let (_, outcome) = try book.undo(remove)
        #expect(book.library.item(id: 1) == item && book.scheduler.pendingReminder(for: 1)?.due == t0 + 3600)
        #expect(outcome.events.map(\.kind) == [.scheduled])
        // An undone add removes the item; its ID is not handed out again.
        let (_, add) = try book.recordingUndo { book throws(ModelError) in
            try book.addItem(NewItem(text: "call", listID: 1))
        }
        _ = try book.undo(add)
        #expect(book.library.item(id: 2) == nil)
        #expect(try book.addItem(NewItem(text: "next", listID: 1)).0.itemID == 3)
    }

    @Test func whatTheReminderHandledMeanwhileStaysHandledAndAListGoneRefusesIt() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.addItem(NewItem(text: "water", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        let (_, done) = try book.recordingUndo { book throws(ModelError) in
            try book.editItem(itemID: 1, ItemEdit(dueDate: t0 + 120))
        }
        clock.set(t0 + 120)
        #expect(book.advance().events.map(\.kind) == [.fired])
        // Put back due at t0 + 60, which has passed: no reminder fires for it (as after an edit to a past time), and
        // the instant that fired stays fired.
        let (_, outcome) = try book.undo(done)
        #expect(outcome.events.isEmpty && book.scheduler.pendingReminder(for: 1) == nil)
        #expect(book.library.item(id: 1)?.dueDate == t0 + 60 && book.library.item(id: 1)?.lastFiredAt == t0 + 120)

        // An item removed from a list that is gone since cannot come back: refused, changing nothing.
        let (errands, _) = try book.addList(name: "Errands")
        let (bread, _) = try book.addItem(NewItem(text: "bread", listID: errands.listID))
        let (_, removal) = try book.recordingUndo { book throws(ModelError) in
            try book.removeItem(itemID: bread.itemID)
        }
        _ = try book.removeList(listID: errands.listID)
        let before = book.library
        #expect(throws: ModelError.unknownList(errands.listID)) { try book.undo(removal) }
        #expect(book.library == before)
    }

    /// A step holds what the user changed: not another item's reminder that fired in the same operation, and every
    /// item a list removal took with it.
    @Test func aStepHoldsTheUsersChangesOnly() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = try book.addItem(NewItem(text: "tea", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        clock.set(t0 + 60)
        // Due now: it fires in the operation, and so does item 1, whose time came too; only item 2 is the user's.
        let (added, step) = try book.recordingUndo { book throws(ModelError) in
            try book.addItem(NewItem(text: "now", listID: 1, dueDate: t0 + 60, shouldRemind: true)).1
        }
        #expect(Set(added.events.filter { $0.kind == .fired }.map(\.itemID)) == [1, 2])
        #expect(step.itemIDs == [2] && step.touches[0].after?.item.lastFiredAt == t0 + 60)

        let (errands, _) = try book.addList(name: "Errands")
        for text in ["bread", "milk"] { _ = try book.addItem(NewItem(text: text, listID: errands.listID)) }
        let (_, removal) = try book.recordingUndo { book throws(ModelError) in
            try book.removeList(listID: errands.listID)
        }
        #expect(removal.itemIDs == [3, 4] && removal.touches.allSatisfy { $0.after == nil })
    }

    /// Items put back on a day whose digest went out come in one follow-up, as an import's do.
    @Test func itemsPutBackOnTheDayFollowUpOnce() throws {
        let clock = ManualWallClock(t0)  // 09:00 in Berlin: the digest's time
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        _ = book.start()
        let today = CalendarDay(containing: t0, in: berlin)
        for text in ["taxes", "rent"] {
            _ = try book.addItem(NewItem(text: text, listID: 1, dueDay: today, shouldRemind: true))
        }
        clock.set(t0 + 60)
        _ = book.advance()  // the day's digest brings both
        let (_, removal) = try book.recordingUndo { book throws(ModelError) in
            (try book.removeItem(itemID: 1), try book.removeItem(itemID: 2))
        }
        let (_, outcome) = try book.undo(removal)
        let followUps = outcome.actions.compactMap { if case .deliverDigest(let digest) = $0 { digest } else { nil } }
        #expect(followUps.map(\.itemIDs) == [[1, 2]] && followUps.allSatisfy(\.isFollowUp))
    }

    /// A change of the user's is reported as a `changed` event holding its step, and taken back by it: the undo is
    /// reported as `undone`, naming the change, and is taken back in turn (a redo).
    @Test func aChangeIsReportedAndTakenBackByItsEvent() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        _ = try book.addItem(NewItem(text: "milk", listID: 1, dueDate: t0 + 3600, shouldRemind: true))
        let (_, step) = try book.recordingUndo { book throws(ModelError) in
            try book.editItem(itemID: 1, ItemEdit(checked: true))
        }
        let changed = try #require(book.reportChange(step).events.first)
        #expect(changed.kind == .changed && changed.itemIDs == [1] && changed.itemID == 1 && changed.id > 0)
        #expect(changed.text == "checked off “milk”" && changed.undo == step && changed.listName == "Inbox")

        let undone = try book.undoChange(changed, seenThrough: .max)
        let undoEvent = try #require(undone.events.last)
        #expect(undone.events.map(\.kind) == [.scheduled, .undone])
        #expect(undoEvent.undid == changed.id && undoEvent.text == "undid event \(changed.id): reopened “milk”")
        #expect(book.library.item(id: 1)?.checked == false && book.scheduler.pendingReminder(for: 1) != nil)

        let redone = try book.undoChange(undoEvent, seenThrough: .max)
        #expect(redone.events.map(\.kind) == [.cancelled, .undone] && redone.events.last?.undid == undoEvent.id)
        #expect(book.library.item(id: 1)?.checked == true)
        // A change of nothing is not reported.
        #expect(book.reportChange(UndoStep(touches: [])).isEmpty)
    }

    /// An item changed since the change (by anything but its reminder) refuses the undo, changing nothing; a fire
    /// since does not.
    @Test func anItemRemovedWithItsListRefusesTheUndoAndAFireDoesNot() throws {
        let clock = ManualWallClock(t0)
        var book = ReminderBook(library: ChecklistLibrary(), clock: clock, timeZone: berlin)
        let (errands, _) = try book.addList(name: "Errands")
        let (_, add) = try book.recordingUndo { book throws(ModelError) in
            try book.addItem(NewItem(text: "water", listID: errands.listID, dueDate: t0 + 60, shouldRemind: true))
        }
        let added = try #require(book.reportChange(add).events.first)
        _ = try book.removeList(listID: errands.listID)
        let before = book.library
        #expect(throws: ModelError.notUndoable(added.id, because: "item 1 is gone since, with its list")) {
            try book.undoChange(added, seenThrough: .max)
        }
        #expect(book.library == before)

        // A change the history does not show (the part of a batch a stop cut short) is seen in the item itself.
        let (_, tea) = try book.recordingUndo { book throws(ModelError) in
            try book.addItem(NewItem(text: "tea", listID: 1))
        }
        let teaAdded = try #require(book.reportChange(tea).events.first)
        _ = try book.editItem(itemID: 2, ItemEdit(text: "green tea"))
        #expect(throws: ModelError.notUndoable(teaAdded.id, because: "item 2 changed since")) {
            try book.undoChange(teaAdded, seenThrough: .max)
        }
        _ = try book.removeItem(itemID: 2)

        _ = try book.addItem(NewItem(text: "water", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        clock.set(t0 + 60)
        #expect(book.advance().events.map(\.kind) == [.fired])
        let (_, edit) = try book.recordingUndo { book throws(ModelError) in
            try book.editItem(itemID: 3, ItemEdit(dueDate: t0 + 120))
        }
        let edited = try #require(book.reportChange(edit).events.first)
        clock.set(t0 + 120)
        #expect(book.advance().events.map(\.kind) == [.fired])
        _ = try book.undoChange(edited, seenThrough: .max)
        #expect(book.library.item(id: 3)?.dueDate == t0 + 60 && book.library.item(id: 3)?.lastFiredAt == t0 + 120)
    }

    /// A change of more items than undo keeps is reported without its step, and refused; an event that is not a
    /// change is refused too.
    @Test func aChangeTooLargeToKeepAndAnEventNotAChangeAreRefused() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        let (_, step) = try book.recordingUndo { book throws(ModelError) in
            for index in 0...UndoStep.maximumItems { _ = try book.addItem(NewItem(text: "item \(index)", listID: 1)) }
        }
        let changed = try #require(book.reportChange(step, operation: "import").events.first)
        #expect(changed.undo == nil && changed.itemID == 0 && changed.itemIDs?.count == UndoStep.maximumItems + 1)
        #expect(changed.text == "import: 1001 items (1001 added)")
        #expect(
            throws: ModelError.notUndoable(changed.id, because: try #require(changed.whyNotUndoable))
        ) {
            try book.undoChange(changed, seenThrough: .max)
        }
        // Or of more text than it keeps: five items of a megabyte, before and after.
        let long = ChecklistItem(itemID: 1, text: String(repeating: "x", count: 1 << 20), createdAt: t0)
        let touches = (1...5).map { UndoStep.Touch(itemID: $0, before: .init(long, in: 1), after: .init(long, in: 1)) }
        #expect(!UndoStep(touches: touches).isKeepable && UndoStep(touches: Array(touches.prefix(2))).isKeepable)
        let (_, outcome) = try book.addItem(NewItem(text: "timed", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        let scheduled = try #require(outcome.events.first)
        #expect(throws: ModelError.notUndoable(scheduled.id, because: "it is a scheduled event, not a change of yours"))
        {
            try book.undoChange(scheduled, seenThrough: .max)
        }
    }

    /// A calendar task removed, then imported again as a new item, is not brought back a second time by an undo; the
    /// other item the same change removed does not come back either: an undo is all or nothing.
    @Test func aCalendarTaskImportedAgainIsNotBroughtBackTwice() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        var phone = NewItem(text: "from the phone", listID: 1)
        phone.calendarUID = "phone-1"
        _ = try book.addItem(NewItem(text: "mine", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        _ = try book.addItem(phone)
        let (_, removal) = try book.recordingUndo { book throws(ModelError) in
            (try book.removeItem(itemID: 1), try book.removeItem(itemID: 2))
        }
        let removed = try #require(book.reportChange(removal).events.first)
        _ = try book.addItem(phone)
        let before = book.library
        #expect(throws: ModelError.calendarTaskTaken("phone-1", by: 3)) {
            try book.undoChange(removed, seenThrough: .max)
        }
        #expect(book.library == before && book.scheduler.pendingReminder(for: 1) == nil)
    }

    /// A change, undone, redone, then undone by its event: its items are as the change before it left them, so that
    /// one can be taken back; the others cannot.
    @Test func changesSinceFollowsEachItemThroughUndosAndRedos() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        func recorded(_ edit: ItemEdit) throws -> ReminderEvent {
            let (_, step) = try book.recordingUndo { book throws(ModelError) in try book.editItem(itemID: 1, edit) }
            return try #require(book.reportChange(step).events.first)
        }
        func undone(_ event: ReminderEvent) throws -> ReminderEvent {
            try #require(try book.undoChange(event, seenThrough: .max).events.last)
        }
        _ = try book.addItem(NewItem(text: "tea", listID: 1))
        let x = try recorded(ItemEdit(text: "green tea"))
        let c = try recorded(ItemEdit(text: "black tea"))
        let u1 = try undone(c)
        let u2 = try undone(u1)
        let u3 = try undone(c)
        func why(_ event: ReminderEvent) -> String? {
            var since = ChangesSince(of: event)
            for later in [x, c, u1, u2, u3] { since.add(later) }
            return since.whyNotUndoable
        }
        #expect(why(x) == nil)
        // u3 took back an older change than u1, which is not followed: it stands in the way (a refusal that errs on
        // the side of changing nothing).
        #expect(why(u1) == "event \(u3.id) changed item 1 since; undo that first")
        #expect(why(c) == "event \(u3.id) undid it already")
        #expect(book.library.item(id: 1)?.text == "green tea")
        _ = try undone(x)
        #expect(book.library.item(id: 1)?.text == "tea")
    }

    /// An undo read from the history up to some event is refused if a change came after it; an edit of nothing is no
    /// change.
    @Test func aChangeAfterTheHistoryWasReadRefusesTheUndoAndAnEditOfNothingIsNoChange() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: berlin)
        let (_, add) = try book.recordingUndo { book throws(ModelError) in
            try book.addItem(NewItem(text: "a", listID: 1))
        }
        let added = try #require(book.reportChange(add).events.first)
        let (_, other) = try book.recordingUndo { book throws(ModelError) in
            try book.addItem(NewItem(text: "b", listID: 1))
        }
        _ = book.reportChange(other)
        #expect(
            throws: ModelError.notUndoable(added.id, because: "another change came in while it was checked; try again")
        ) {
            try book.undoChange(added, seenThrough: added.id)
        }
        _ = try book.editItem(itemID: 1, ItemEdit(checked: true))
        let (_, again) = try book.recordingUndo { book throws(ModelError) in
            try book.editItem(itemID: 1, ItemEdit(checked: true))
        }
        #expect(again.itemIDs == [1] && book.reportChange(again).isEmpty)
    }
}
