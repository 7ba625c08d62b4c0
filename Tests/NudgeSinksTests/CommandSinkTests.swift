import Foundation
import Logging
import NudgeCore
import Testing

@testable import NudgeSinks

@Suite struct CommandSinkTests {
    /// A sink running /usr/bin/pager through `runner`.
    private static func sink(_ runner: FakeRunner) -> CommandSink {
        CommandSink(
            program: ["/usr/bin/pager"],
            timeout: .seconds(7),
            runner: runner,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    @Test func theReminderIsInTheEnvironmentAndTheArgumentsAreAsGiven() async {
        let runner = FakeRunner()
        let sink = CommandSink(
            program: ["/usr/bin/pager", "--team", "two words"],
            timeout: .seconds(7),
            runner: runner,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        let reminder = Reminder(itemID: 12, text: "back up\nthe NAS", listName: "Ops", due: due)
        await sink.deliver(Delivery(reminder: reminder, firedAt: due + 90.7, lateBy: 90.7))
        let command = runner.commands.first
        #expect(command?.executable == "/usr/bin/pager")
        #expect(command?.arguments == ["--team", "two words"])
        #expect(command?.timeout == .seconds(7))
        #expect(
            command?.environment == [
                "NUDGE_ITEM_ID": "12", "NUDGE_TEXT": "back up\nthe NAS", "NUDGE_LIST": "Ops",
                "NUDGE_DUE": "2027-01-15T08:00:00.000Z", "NUDGE_LATE": "90", "NUDGE_PRIORITY": "normal",
            ]
        )
    }

    @Test func anAdvanceWarningSaysHowLongAheadItComes() async {
        let runner = FakeRunner()
        let sink = Self.sink(runner)
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        let reminder = Reminder(itemID: 12, text: "deploy", listName: "Ops", due: due)
        await sink.deliver(Delivery(reminder: reminder, firedAt: due - 600, lateBy: 0, warning: 600))
        let environment = runner.commands.first?.environment
        #expect(environment?["NUDGE_WARNING"] == "PT10M")
        #expect(environment?["NUDGE_DUE"] == "2027-01-15T08:00:00.000Z")
        #expect(environment?["NUDGE_LATE"] == "0")
    }

    @Test func aRepeatSaysWhichAndIsAboutTheDueInstantThatFired() async {
        let runner = FakeRunner()
        let sink = Self.sink(runner)
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        // As the scheduler delivers a repeat: about the due instant that fired, late from the repeat's instant.
        var reminder = Reminder(itemID: 12, text: "deploy", listName: "Ops", due: due)
        reminder.repeating = .init(number: 3, nag: Nag(every: 600), firedAt: due, firedDue: due)
        await sink.deliver(Delivery(reminder: reminder, firedAt: due + 1805, lateBy: 5, coalesced: 2))
        let environment = runner.commands.first?.environment
        #expect(environment?["NUDGE_REPEAT_COUNT"] == "3")
        #expect(environment?["NUDGE_DUE"] == "2027-01-15T08:00:00.000Z")
        #expect(environment?["NUDGE_LATE"] == "5" && environment?["NUDGE_COALESCED"] == "2")
    }
}
