import Foundation
import Logging
import NudgeCore
import Testing

@testable import NudgeSinks

@Suite struct CommandSinkTests {
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
        let sink = CommandSink(
            program: ["/usr/bin/pager"],
            timeout: .seconds(7),
            runner: runner,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        let reminder = Reminder(itemID: 12, text: "deploy", listName: "Ops", due: due)
        await sink.deliver(Delivery(reminder: reminder, firedAt: due - 600, lateBy: 0, warning: 600))
        let environment = runner.commands.first?.environment
        #expect(environment?["NUDGE_WARNING"] == "PT10M")
        #expect(environment?["NUDGE_DUE"] == "2027-01-15T08:00:00.000Z")
        #expect(environment?["NUDGE_LATE"] == "0")
    }
}
