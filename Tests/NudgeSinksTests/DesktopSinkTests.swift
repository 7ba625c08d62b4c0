import Foundation
import Logging
import NudgeCore
import Testing

@testable import NudgeSinks

@Suite struct DesktopSinkTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    private func delivery(_ itemID: Int, _ text: String, lateBy: TimeInterval = 0, priority: Priority = .normal)
        -> Delivery
    {
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        return Delivery(
            reminder: Reminder(itemID: itemID, text: text, listName: "Home", due: due, priority: priority),
            firedAt: due + lateBy,
            lateBy: lateBy
        )
    }

    private func shown(_ id: String) -> ProcessOutcome { ProcessOutcome(.exited(0), standardOutput: "\(id)\n") }

    @Test func theSameItemFiringAgainReplacesItsNotification() async {
        let runner = FakeRunner(answers: [shown("41"), shown("41"), shown("42")])
        let sink = DesktopSink(runner: runner, logger: logger)
        await sink.deliver(delivery(1, "first"))
        await sink.deliver(delivery(1, "first, edited"))
        await sink.deliver(delivery(2, "other item"))
        let arguments = runner.commands.map(\.arguments)
        #expect(runner.commands.allSatisfy { $0.executable == "notify-send" && $0.capturesOutput })
        #expect(!arguments[0].contains { $0.hasPrefix("--replace-id") })
        #expect(arguments[1].contains("--replace-id=41"))
        #expect(!arguments[2].contains { $0.hasPrefix("--replace-id") })
    }

    @Test func withdrawingClosesWhatTheItemShowsAndNothingElse() async {
        let runner = FakeRunner(answers: [shown("7")])
        let sink = DesktopSink(runner: runner, logger: logger)
        await sink.withdraw(itemID: 1)
        #expect(runner.commands.isEmpty, "nothing was shown, so nothing is closed")
        await sink.deliver(delivery(1, "call"))
        await sink.withdraw(itemID: 1)
        await sink.withdraw(itemID: 1)
        #expect(runner.commands.count == 2)
        let close = runner.commands[1]
        #expect(close.executable == "gdbus")
        #expect(
            close.arguments.suffix(3) == ["--method", "org.freedesktop.Notifications.CloseNotification", "uint32 7"]
        )
        // Shown again after the close: a new notification, not a replacement of the closed one.
        await sink.deliver(delivery(1, "call again"))
        #expect(!runner.commands[2].arguments.contains { $0.hasPrefix("--replace-id") })
    }

    @Test func aFailedNotifySendLeavesNothingToReplaceOrClose() async {
        let runner = FakeRunner(answers: [ProcessOutcome(.timedOut), ProcessOutcome(.exited(0), standardOutput: "")])
        let sink = DesktopSink(runner: runner, logger: logger)
        await sink.deliver(delivery(1, "a"))
        await sink.deliver(delivery(1, "b"))
        await sink.withdraw(itemID: 1)
        #expect(runner.commands.count == 2)
        #expect(runner.commands.allSatisfy { !$0.arguments.contains { $0.hasPrefix("--replace-id") } })
    }

    @Test func theTextIsTheEscapedBodyAfterTheEndOfOptions() {
        let command = DesktopSink.notifySend(delivery(3, "-u critical <b>x</b> & y\n\u{0}z"), replacing: nil)
        #expect(command.arguments.suffix(3) == ["--", "Home", "-u critical &lt;b&gt;x&lt;/b&gt; &amp; y\n\u{2400}z"])
        #expect(command.arguments.contains("--app-name=nudge"))
        #expect(command.arguments.contains("--print-id"))
        #expect(command.timeout <= .seconds(10))
    }

    @Test func theItemsPriorityIsTheNotificationsUrgency() {
        let urgencies = [Priority.low, .normal, .high].map { priority in
            DesktopSink.notifySend(delivery(3, "x", priority: priority), replacing: nil).arguments
                .first { $0.hasPrefix("--urgency=") }
        }
        #expect(urgencies == ["--urgency=low", "--urgency=normal", "--urgency=critical"])
    }

    @Test func anAdvanceWarningSaysInTheSummaryHowSoonItIsDue() {
        var warning = delivery(3, "dentist")
        warning.warning = 5400
        let arguments = DesktopSink.notifySend(warning, replacing: 17).arguments
        #expect(Array(arguments.suffix(2)) == ["Home: due in 1h 30m", "dentist"])
        #expect(arguments.contains("--replace-id=17"), "the reminder replaces its warning on screen, and back")
        #expect(DesktopSink.notifySend(delivery(3, "dentist"), replacing: nil).arguments.suffix(2).first == "Home")
    }

    @Test func aLateReminderSaysWhenItWasDue() {
        let body = DesktopSink.notifySend(delivery(3, "pay rent", lateBy: 3600), replacing: nil).arguments.last
        #expect(body?.hasPrefix("pay rent\n(due ") == true)
    }
}
