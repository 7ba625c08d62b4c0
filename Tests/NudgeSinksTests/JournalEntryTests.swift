import Foundation
import NudgeCore
import Testing

@testable import NudgeSinks

@Suite struct JournalEntryTests {
    private let reminder = Reminder(
        itemID: 7,
        text: "water the plants\nPRIORITY=0",
        listName: "Home",
        due: Date(timeIntervalSince1970: 1_800_000_000.25)
    )

    @Test func aFiredReminderCarriesTheDesignedFieldsInOrder() {
        var event = ReminderEvent(.fired, of: reminder, at: reminder.due + 0.5, lateBy: 0.5)
        event.id = 41
        let entry = JournalEntry(event)
        #expect(
            entry.fields.map(\.name) == [
                "MESSAGE", "PRIORITY", "MESSAGE_ID", "SYSLOG_IDENTIFIER", "NUDGE_EVENT", "NUDGE_EVENT_ID",
                "NUDGE_ITEM_ID", "NUDGE_LIST", "NUDGE_DUE", "NUDGE_AT", "NUDGE_LATE_USEC", "NUDGE_PRIORITY",
            ]
        )
        let values = Dictionary(uniqueKeysWithValues: entry.fields.map { ($0.name, $0.value) })
        #expect(values["MESSAGE"] == "water the plants\nPRIORITY=0")
        #expect(values["PRIORITY"] == "5")
        #expect(values["MESSAGE_ID"] == JournalEntry.messageID(of: .fired))
        #expect(values["NUDGE_ITEM_ID"] == "7")
        #expect(values["NUDGE_LIST"] == "Home")
        #expect(values["NUDGE_DUE"] == "2027-01-15T08:00:00.250Z")
        #expect(values["NUDGE_LATE_USEC"] == "500000")
        #expect(values["NUDGE_EVENT_ID"] == "41")
        #expect(values["NUDGE_AT"] == "2027-01-15T08:00:00.750Z")
        #expect(values["NUDGE_PRIORITY"] == "normal")
        #expect(entry.invalidFieldName == nil)
    }

    /// A change of the user's, and its undo, name every item they touched and, for the undo, the change it took back.
    @Test func aChangeAndItsUndoNameTheirItems() {
        let item = ChecklistItem(itemID: 7, text: "water", createdAt: reminder.due)
        let step = UndoStep(touches: [
            .init(itemID: 7, before: nil, after: .init(item, in: 1)),
            .init(itemID: 8, before: .init(item, in: 1), after: nil),
        ])
        var changed = ReminderEvent(.changed, of: step, text: "import: 2 items", listName: "", at: reminder.due)
        changed.id = 41
        var undone = ReminderEvent(.undone, of: step, text: "undid event 41", listName: "", at: reminder.due, undid: 41)
        undone.id = 42
        let fields = [changed, undone].map { JournalEntry($0).fields.reduce(into: [:]) { $0[$1.name] = $1.value } }
        #expect(
            fields.map { $0["NUDGE_ITEM_IDS"] } == ["7 8", "7 8"] && fields.map { $0["NUDGE_ITEM_ID"] } == ["0", "0"]
        )
        #expect(fields.map { $0["NUDGE_UNDID"] } == [nil, "41"] && fields.map { $0["PRIORITY"] } == ["6", "6"])
        #expect(fields[0]["MESSAGE"] == "changed: import: 2 items" && fields[1]["MESSAGE"] == "undid event 41")
    }

    @Test func lateAndMissedRemindersAreWarningsAndDecisionsAreInformation() {
        #expect(JournalEntry.priority(of: ReminderEvent(.fired, of: reminder, at: reminder.due + 60, lateBy: 60)) == 4)
        #expect(JournalEntry.priority(of: ReminderEvent(.missed, of: reminder, at: reminder.due, lateBy: 1e6)) == 4)
        #expect(JournalEntry.priority(of: ReminderEvent(.scheduled, of: reminder, at: reminder.due)) == 6)
        #expect(JournalEntry(ReminderEvent(.scheduled, of: reminder, at: reminder.due)).fields.count == 11)
    }

    /// A repeat of a fire not acknowledged is an entry of its own, with which repeat it is, at the priority of a fire
    /// (2 once escalated); the last repeat's `exhausted` is information.
    @Test func aRepeatSaysWhichItIsAndEscalatedIsCritical() {
        var escalated = reminder
        escalated.priority = .high
        var repeated = ReminderEvent(.renotified, of: escalated, at: reminder.due + 5, previousDue: reminder.due - 600)
        (repeated.lateBy, repeated.repeatNumber) = (5, 3)
        let values = Dictionary(uniqueKeysWithValues: JournalEntry(repeated).fields.map { ($0.name, $0.value) })
        #expect(values["NUDGE_REPEAT_COUNT"] == "3" && values["PRIORITY"] == "2")
        #expect(values["MESSAGE_ID"] == JournalEntry.messageID(of: .renotified))
        #expect(values["MESSAGE"]?.hasPrefix("again (3), not acknowledged yet: ") == true)
        var exhausted = ReminderEvent(.exhausted, of: reminder, at: reminder.due)
        exhausted.repeatNumber = 3
        #expect(JournalEntry.priority(of: exhausted) == 6)
        let ids = ReminderEvent.Kind.allCases.map(JournalEntry.messageID(of:))
        #expect(Set(ids).count == ids.count, "every kind has a MESSAGE_ID of its own")
    }

    /// An item's priority sets a fire's or a miss's PRIORITY: low 6, normal 5 (4 late or missed), high 2.
    @Test func theItemsPriorityIsTheEntrysPriority() {
        var low = reminder
        low.priority = .low
        var high = reminder
        high.priority = .high
        #expect(JournalEntry.priority(of: ReminderEvent(.fired, of: low, at: low.due, lateBy: 0)) == 6)
        #expect(JournalEntry.priority(of: ReminderEvent(.fired, of: reminder, at: reminder.due, lateBy: 0)) == 5)
        #expect(JournalEntry.priority(of: ReminderEvent(.fired, of: high, at: high.due, lateBy: 0)) == 2)
        #expect(JournalEntry.priority(of: ReminderEvent(.missed, of: high, at: high.due, lateBy: 1e6)) == 2)
        #expect(JournalEntry.priority(of: ReminderEvent(.scheduled, of: high, at: high.due)) == 6)
        var missed = ReminderEvent(.missed, of: high, at: high.due + 7200, lateBy: 7200)
        missed.catchUp = .within(3600)
        let values = Dictionary(uniqueKeysWithValues: JournalEntry(missed).fields.map { ($0.name, $0.value) })
        #expect(values["NUDGE_PRIORITY"] == "high")
        #expect(values["NUDGE_CATCH_UP"] == "PT1H")
    }

    /// A warning says how long ahead it comes, in the message and in NUDGE_WARNING, at the priority of a fire.
    @Test func anAdvanceWarningSaysHowLongBeforeTheDueInstantItCame() {
        var high = reminder
        high.priority = .high
        let warned = ReminderEvent(.warned, of: high, at: high.due - 3600, lateBy: 0, warning: 3600)
        let values = Dictionary(uniqueKeysWithValues: JournalEntry(warned).fields.map { ($0.name, $0.value) })
        #expect(values["NUDGE_EVENT"] == "warned")
        #expect(values["NUDGE_WARNING"] == "PT1H")
        #expect(values["MESSAGE"]?.hasPrefix("due in 1h (") == true)
        #expect(values["MESSAGE_ID"] == JournalEntry.messageID(of: .warned))
        #expect(values["PRIORITY"] == "2")
        let missed = ReminderEvent(.missed, of: reminder, at: reminder.due, lateBy: 1e6, warning: 600)
        let missedValues = Dictionary(uniqueKeysWithValues: JournalEntry(missed).fields.map { ($0.name, $0.value) })
        #expect(missedValues["NUDGE_WARNING"] == "PT10M")
        #expect(missedValues["MESSAGE"]?.hasPrefix("missed warning 10m ahead") == true)
        #expect(missedValues["MESSAGE_ID"] == JournalEntry.missedWarningMessageID, "not counted as a missed reminder")
        // Found 10 minutes late, an hour's warning says what is left.
        let late = ReminderEvent(.warned, of: reminder, at: reminder.due - 3000, lateBy: 600, warning: 3600)
        let lateValues = Dictionary(uniqueKeysWithValues: JournalEntry(late).fields.map { ($0.name, $0.value) })
        #expect(lateValues["MESSAGE"]?.hasPrefix("due in 50m (") == true)
        #expect(lateValues["NUDGE_WARNING"] == "PT1H")
    }

    @Test func everyKindHasItsOwnWellFormedMessageID() {
        let ids = ReminderEvent.Kind.allCases.map(JournalEntry.messageID(of:)) + [JournalEntry.missedWarningMessageID]
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }

    @Test(arguments: [
        ("MESSAGE", true), ("NUDGE_ITEM_ID", true), ("A1_B", true), (String(repeating: "A", count: 64), true),
        ("", false), ("message", false), ("_PID", false), ("1ABC", false), ("A=B", false), ("A\nB", false),
        ("NUDGE-LIST", false), (String(repeating: "A", count: 65), false), ("ÄB", false),
    ])
    func fieldNamesFollowJournaldsRule(name: String, valid: Bool) {
        #expect(JournalEntry.isValidFieldName(name) == valid)
    }
}
