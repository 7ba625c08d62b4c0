import Foundation
import Logging
import NudgeCore
import Synchronization
import NudgeTestSupport
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

    private func sink(_ server: FakeNotificationServer, shownFile: String? = nil) -> DesktopSink {
        DesktopSink(server: server, shownFile: shownFile, snoozeLength: 600, logger: logger)
    }

    private func notification(_ delivery: Delivery, capabilities: Set<String> = ["actions", "body-markup"])
        -> DesktopNotification
    {
        DesktopSink.notification(delivery, replacing: nil, capabilities: capabilities, snoozeLabel: "Snooze 10m")
    }

    @Test func theSameItemFiringAgainReplacesItsNotificationAndCapabilitiesAreAskedOnce() async {
        let server = FakeNotificationServer()
        let sink = sink(server)
        await sink.deliver(delivery(1, "first"))
        await sink.deliver(delivery(1, "first, edited"))
        await sink.deliver(delivery(2, "other item"))
        #expect(server.notifications.map(\.replacesID) == [0, 41, 0])
        #expect(server.calls.filter { $0 == .capabilities }.count == 1)
    }

    @Test func withdrawingClosesWhatTheItemShowsAndNothingElse() async {
        let server = FakeNotificationServer()
        let sink = sink(server)
        await sink.withdraw(itemID: 1)
        #expect(server.calls.isEmpty, "nothing was shown, so nothing is closed")
        await sink.deliver(delivery(1, "call"))
        await sink.withdraw(itemID: 1)
        await sink.withdraw(itemID: 1)
        #expect(server.closed == [41])
        // Shown again after the close: a new notification, not a replacement of the closed one.
        await sink.deliver(delivery(1, "call again"))
        #expect(server.notifications.last?.replacesID == 0)
    }

    @Test func aServerThatDoesNotAnswerLeavesNothingToReplaceOrClose() async {
        let server = FakeNotificationServer()
        server.stopAnswering()
        let sink = sink(server)
        await sink.deliver(delivery(1, "a"))
        await sink.withdraw(itemID: 1)
        // Asking for capabilities failed, so no Notify was sent, and nothing is shown to close.
        #expect(server.calls == [.capabilities])
    }

    @Test func markupIsEscapedOnlyWhereTheServerReadsIt() {
        let text = "-u critical <b>x</b> & y"
        #expect(notification(delivery(3, text)).body == "-u critical &lt;b&gt;x&lt;/b&gt; &amp; y")
        #expect(notification(delivery(3, text), capabilities: ["actions"]).body == text)
    }

    @Test func buttonsAreOfferedOnlyWhereTheServerHasActions() {
        #expect(notification(delivery(3, "x")).actions == ["done", "Done", "snooze", "Snooze 10m"])
        #expect(notification(delivery(3, "x"), capabilities: ["body-markup"]).actions.isEmpty)
    }

    @Test func theItemsPriorityIsTheNotificationsUrgency() {
        let urgencies = [Priority.low, .normal, .high].map { notification(delivery(3, "x", priority: $0)).urgency }
        #expect(urgencies == [0, 1, 2])
    }

    @Test func anAdvanceWarningSaysInTheSummaryHowSoonItIsDue() {
        var warning = delivery(3, "dentist")
        warning.warning = 5400
        #expect(notification(warning).summary == "Home #3: due in 1h 30m")
        #expect(notification(delivery(3, "dentist")).summary == "Home #3")
        // Two items with the same text are two notifications, which no server stacks into one.
        #expect(notification(delivery(4, "dentist")) != notification(delivery(3, "dentist")))
    }

    @Test func aLateReminderSaysWhenItWasDue() {
        #expect(notification(delivery(3, "pay rent", lateBy: 3600)).body.hasPrefix("pay rent\n(due ") == true)
    }

    /// What the user does goes to the daemon with the item and the instant shown, once; the notification a button
    /// was pressed on is closed; closes by a call, and signals about other programs' notifications, are nobody's
    /// business.
    @Test func buttonsAndClosesReachTheDaemonOnce() async {
        let server = FakeNotificationServer()
        let sink = sink(server)
        for itemID in 1...4 { await sink.deliver(delivery(itemID, "item \(itemID)")) }  // notifications 41 to 44
        let heard = Mutex<[String]>([])
        server.send(.actionInvoked(notificationID: 41, action: "done"))
        server.send(.actionInvoked(notificationID: 41, action: "done"))
        server.send(.actionInvoked(notificationID: 42, action: "snooze"))
        server.send(.actionInvoked(notificationID: 99, action: "done"))
        server.send(.actionInvoked(notificationID: 43, action: "default"))
        server.send(.closed(notificationID: 43, reason: 2))
        server.send(.closed(notificationID: 44, reason: 1))
        server.send(.closed(notificationID: 42, reason: 3))
        server.endSignals()
        await sink.listen { itemID, due, response in
            heard.withLock { $0.append("\(itemID) \(response.rawValue) \(Int(due.timeIntervalSince1970))") }
        }
        #expect(
            heard.withLock { $0 } == [
                "1 done 1800000000", "2 snooze 1800000000", "3 dismissed 1800000000", "4 expired 1800000000",
            ]
        )
        #expect(server.closed == [41, 42])
        #expect(await sink.shown.isEmpty)
    }

    @Test func aRestartedDaemonKeepsWhatTheSameServerShowsAndForgetsWhatAnotherShowed() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shown-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let server = FakeNotificationServer()
        await sink(server, shownFile: file).deliver(delivery(7, "water the plants"))

        let restarted = sink(server, shownFile: file)
        await restarted.restore()
        await restarted.deliver(delivery(7, "water the plants, edited"))
        await restarted.withdraw(itemID: 7)
        #expect(server.notifications.map(\.replacesID) == [0, 41])
        #expect(server.closed == [41])

        await restarted.deliver(delivery(8, "feed the cat"))
        server.restart(as: "bus :1.2")
        let afterServerRestart = sink(server, shownFile: file)
        await afterServerRestart.restore()
        #expect(await afterServerRestart.shown.isEmpty)
        await afterServerRestart.deliver(delivery(8, "feed the cat"))
        #expect(server.notifications.last?.replacesID == 0)
    }

    @Test func aNewServerVoidsWhatTheOldOneShowed() async {
        let server = FakeNotificationServer()
        let sink = sink(server)
        await sink.deliver(delivery(1, "a"))
        server.changeServer()
        server.endSignals()
        await sink.listen { _, _, _ in }
        await sink.deliver(delivery(1, "a"))
        #expect(server.notifications.map(\.replacesID) == [0, 0])
        #expect(server.calls.filter { $0 == .capabilities }.count == 2, "a new server is asked what it supports")
        #expect(await sink.shown.count == 1)
    }

    /// A reply can reach the sink after the news of a server change it came before: what it showed is gone
    /// with the old server, so it is not kept.
    @Test func anAnswerFromAServerGoneSinceIsNotKept() async {
        let server = FakeNotificationServer()
        let sink = sink(server)
        server.send(.serverChanged(epoch: 1))
        server.endSignals()
        await sink.listen { _, _, _ in }
        // The fake still answers in epoch 0: as the old server did, before the change.
        await sink.deliver(delivery(1, "a"))
        #expect(await sink.shown.isEmpty)
        await sink.withdraw(itemID: 1)
        #expect(server.closed.isEmpty)
    }

    @Test func textTheBusCannotCarryIsShownNotRefused() {
        // Swift's literals refuse some noncharacters; the text is put together from scalars.
        let scalars = [0x61, 0x0, 0x62, 0xFFFF, 0x63, 0xFDD0, 0x64, 0x1FFFE, 0x65].map { Unicode.Scalar($0)! }
        let text = String(String.UnicodeScalarView(scalars))
        #expect(NotificationBus.busString(text) == "a\u{2400}b\u{FFFD}c\u{FFFD}d\u{FFFD}e")
        #expect(NotificationBus.busString("plain ünïcode 🙂 \u{FFFD}") == "plain ünïcode 🙂 \u{FFFD}")
    }
}
