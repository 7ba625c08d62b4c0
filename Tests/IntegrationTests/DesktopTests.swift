import Foundation
import Testing

/// The desktop sink against a real notification server, dunst under Xvfb on a private session bus, and against the
/// scripted one (Tests/Tools/notification-server.py) for what dunst cannot vary or do: capabilities, expiry.
@Suite(.timeLimit(hangLimit)) struct DesktopTests {
    /// Runs `body` with a private desktop and a nudged delivering to it (logging at debug level, where the desktop
    /// sink says which notification shows which item; in `timeZone` if given), and cleans up after both.
    static func withDesktopDaemon(
        _ server: DesktopSession.Server = .dunst(markup: false),
        clock: TestClock = .manual(TestClock.epoch),
        arguments: [String] = [],
        timeZone: String? = nil,
        _ body: (DesktopSession, Sandbox, Daemon) async throws -> Void
    ) async throws {
        let desktop = try await DesktopSession(server)
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            sinks: "desktop",
            clock: clock,
            arguments: ["--log-level", "debug"] + arguments,
            environment: desktop.environment.merging(timeZone.map { ["TZ": $0] } ?? [:]) { $1 }
        )
        defer { daemon.stop() }
        try await body(desktop, sandbox, daemon)
    }

    @Test func anItemShowsOnceReplacedInPlaceAndClosesWhenCheckedOff() async throws {
        try await Self.withDesktopDaemon { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("call mum", due: TestClock.epoch + 60)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            let first = try await daemon.awaitLog("item \(itemID) shows as notification")
            try await daemon.eventually("dunst to display one notification") { await desktop.displayedCount() == 1 }
            let edited = "call mum about Sunday"
            let due = TestClock.epoch + 120
            #expect(try await sandbox.nudge("edit", String(itemID), "--text", edited, "--due", iso(due)).status == 0)
            try await sandbox.moveClock(to: due)
            // The sink logs the ID dunst answered: dunst has handled the replacing call.
            try await daemon.awaitLog("item \(itemID) shows as notification", times: 2)
            #expect(await desktop.displayedCount() == 1)

            let calls = desktop.notifyCalls()
            #expect(calls.map(\.replacesID).first == 0)
            #expect(calls.map(\.body) == ["call mum", edited])
            let replaced = try #require(calls.last?.replacesID)
            #expect(replaced != 0, "the second notification must replace the first")
            #expect(first.hasSuffix("notification \(replaced)"), "\(first)")

            #expect(try await sandbox.nudge("done", String(itemID)).status == 0)
            try await daemon.eventually("dunst to display nothing") { await desktop.displayedCount() == 0 }
            #expect(desktop.closeCalls() == [replaced])
            let history = try await desktop.history()
            #expect(history.count == 1)
            #expect(history.first?.id == Int(replaced))
            #expect(history.first?.body == edited)
            #expect(history.first?.summary == "Inbox #\(itemID)")
        }
    }

    @Test func anAdvanceWarningShowsHowSoonAndTheReminderReplacesItInPlace() async throws {
        let start = TestClock.epoch
        try await Self.withDesktopDaemon { desktop, sandbox, daemon in
            let added = try await sandbox.nudge("add", "dentist", "--due", iso(start + 3600), "--warn", "10m")
            #expect(added.status == 0, "\(added)")
            try await sandbox.moveClock(to: start + 3000)
            try await daemon.awaitLog("item 1 shows as notification")
            try await sandbox.moveClock(to: start + 3600)
            try await daemon.awaitLog("item 1 shows as notification", times: 2)
            #expect(await desktop.displayedCount() == 1)
            let calls = desktop.notifyCalls()
            #expect(calls.map(\.summary) == ["Inbox #1: due in 10m", "Inbox #1"])
            #expect(calls.map(\.body) == ["dentist", "dentist"])
            #expect(calls.last?.replacesID != 0, "the reminder must replace its warning")
        }
    }

    /// Markup is escaped only for a server that reads it (dunst with `markup = full` says `body-markup`); to one
    /// that does not (the scripted server without it) the text goes as it is, and shows the same.
    @Test(arguments: [true, false]) func textIsShownLiterally(serverReadsMarkup: Bool) async throws {
        let server: DesktopSession.Server =
            serverReadsMarkup ? .dunst(markup: true) : .scripted(capabilities: ["actions", "body"])
        try await Self.withDesktopDaemon(server) { desktop, sandbox, daemon in
            let text = "-u critical <b>bold</b> & co\nsecond line"
            let due = TestClock.epoch + 60
            _ = try await sandbox.addItem(text, due: due)
            // Bytes that are not UTF-8 reach nudge from the shell; it repairs them to U+FFFD before they go anywhere.
            let invalid = try await run(
                "/bin/sh",
                [
                    "-c", #""$0" add --json "$(printf 'caf\351 au lait')" --due "$1" --socket "$2""#, Binaries.nudge,
                    iso(due), sandbox.socket,
                ]
            )
            #expect(invalid.status == 0, "\(invalid.stderr)")
            _ = try Sandbox.itemID(added: invalid.output, due: due)
            try await sandbox.moveClock(to: due)
            try await daemon.eventually("two Notify calls") { desktop.notifyCalls().count == 2 }
            let bodies = Set(desktop.notifyCalls().map(\.body))
            let escaped = "-u critical &lt;b&gt;bold&lt;/b&gt; &amp; co\nsecond line"
            #expect(bodies == [serverReadsMarkup ? escaped : text, "caf\u{FFFD} au lait"])
            #expect(desktop.notifyCalls().allSatisfy { $0.summary.hasPrefix("Inbox #") })
            try await daemon.eventually("the server to display both") { await desktop.displayedCount() == 2 }
        }
    }

    /// Buttons only where the server has actions: the scripted server without them gets none.
    @Test func aServerWithoutActionsGetsNoButtons() async throws {
        try await Self.withDesktopDaemon(.scripted(capabilities: ["body", "body-markup"])) { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("a & b", due: TestClock.epoch + 60)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            try await daemon.awaitLog("item \(itemID) shows as notification")
            #expect(desktop.notifyCalls().map(\.actions) == [[]])
            #expect(desktop.notifyCalls().map(\.body) == ["a &amp; b"])
        }
    }

    /// Done on dunst's notification checks the item off: durably (a restarted nudged has it checked), with a
    /// `completed` event that says it came from the notification, and the notification goes.
    @Test func doneOnTheNotificationChecksTheItemOff() async throws {
        try await Self.withDesktopDaemon { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("call mum", due: TestClock.epoch + 60)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            let notificationID = try await shownAs(itemID, daemon)
            #expect(desktop.notifyCalls().first?.actions == ["done", "Done", "snooze", "Snooze 10m"])
            try await desktop.click(notificationID, "done")
            let completed = try await awaitEvent("completed", item: itemID, sandbox, daemon)
            #expect(completed["source"] as? String == "notification")
            try await daemon.eventually("the notification to close") { await desktop.displayedCount() == 0 }
            #expect(desktop.closeCalls() == [notificationID])
            #expect(daemon.stop() == 0)
            let restarted = try await Daemon(sandbox, sinks: "log", clock: .manual(TestClock.epoch + 60))
            defer { restarted.stop() }
            let item = try await sandbox.nudge("show", String(itemID), "--json")
            #expect(
                (try JSONSerialization.jsonObject(with: item.output) as? [String: Any])?["checked"] as? Bool == true
            )
        }
    }

    /// Snooze on dunst's notification snoozes the reminder for --snooze-length (10m by default, here 5m): the
    /// notification goes, and a new one comes when the snooze ends, driven by the manual clock.
    @Test func snoozeOnTheNotificationBringsTheReminderBack() async throws {
        let start = TestClock.epoch
        try await Self.withDesktopDaemon(arguments: ["--snooze-length", "5m"]) { desktop, sandbox, daemon in
            #expect(try await sandbox.nudge("add", "stretch", "--due", iso(start + 60)).status == 0)
            try await sandbox.moveClock(to: start + 60)
            let notificationID = try await shownAs(1, daemon)
            #expect(desktop.notifyCalls().first?.actions.last == "Snooze 5m")
            try await desktop.click(notificationID, "snooze")
            let snoozed = try await awaitEvent("snoozed", item: 1, sandbox, daemon)
            #expect(snoozed["source"] as? String == "notification")
            #expect(date(snoozed["due"]) == start + 60 + 300)
            try await daemon.eventually("the notification to close") { await desktop.displayedCount() == 0 }
            try await sandbox.moveClock(to: start + 60 + 300)
            try await daemon.awaitLog("item 1 shows as notification", times: 2)
            #expect(desktop.notifyCalls().map(\.replacesID) == [0, 0], "the snoozed reminder is a new notification")
            try await daemon.eventually("dunst to display it again") { await desktop.displayedCount() == 1 }
        }
    }

    /// Closing a notification is recorded as `dismissed` (dunst, `dunstctl close`); one the server takes away by
    /// itself as `expired` (the scripted server). Neither changes the item.
    @Test(arguments: [false, true]) func aClosedNotificationIsRecorded(expired: Bool) async throws {
        let server: DesktopSession.Server = expired ? .scripted(capabilities: ["actions"]) : .dunst(markup: false)
        try await Self.withDesktopDaemon(server) { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("water the plants", due: TestClock.epoch + 60)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            let notificationID = try await shownAs(itemID, daemon)
            try await desktop.close(notificationID, expired: expired)
            let event = try await awaitEvent(expired ? "expired" : "dismissed", item: itemID, sandbox, daemon)
            #expect(event["source"] as? String == "notification")
            #expect(await desktop.displayedCount() == 0)
            #expect(try await sandbox.nudge("ls").stdout.contains("[ ]  water the plants"))
        }
    }

    /// Which notification shows which item is kept in the runtime directory: after a restart of nudged (not of the
    /// server), an edit replaces the notification on screen and a check-off closes it.
    @Test func aRestartedDaemonStillReplacesAndClosesWhatIsOnScreen() async throws {
        try await Self.withDesktopDaemon { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("call mum", due: TestClock.epoch + 60)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            let notificationID = try await shownAs(itemID, daemon)
            #expect(daemon.stop() == 0)
            let restarted = try await Daemon(
                sandbox,
                sinks: "desktop",
                clock: .manual(TestClock.epoch + 60),
                arguments: ["--log-level", "debug"],
                environment: desktop.environment
            )
            defer { restarted.stop() }
            try await restarted.awaitLog("1 notification from before the restart is on screen still")
            let due = TestClock.epoch + 120
            let edited = try await sandbox.nudge("edit", String(itemID), "--text", "call dad", "--due", iso(due))
            #expect(edited.status == 0)
            try await sandbox.moveClock(to: due)
            try await restarted.awaitLog("item \(itemID) shows as notification \(notificationID)")
            #expect(desktop.notifyCalls().map(\.replacesID) == [0, notificationID])
            #expect(await desktop.displayedCount() == 1)
            #expect(try await sandbox.nudge("done", String(itemID)).status == 0)
            try await restarted.eventually("dunst to display nothing") { await desktop.displayedCount() == 0 }
            #expect(desktop.closeCalls() == [notificationID])
        }
    }

    /// A server that restarts took its notifications with it: nudged forgets them, asks the new one what it
    /// supports, and shows the next reminder as a new notification instead of replacing one that is gone.
    @Test func aNewServerStartsAfresh() async throws {
        try await Self.withDesktopDaemon(.scripted(capabilities: ["actions"])) { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("call mum", due: TestClock.epoch + 60)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            _ = try await shownAs(itemID, daemon)
            try await desktop.restartScriptedServer(["actions", "body-markup"])
            try await daemon.awaitLog("the notification server changed; notifications gone with it: 1")
            let edited = try await sandbox.nudge(
                "edit",
                String(itemID),
                "--text",
                "call <mum>",
                "--due",
                iso(TestClock.epoch + 120)
            )
            #expect(edited.status == 0)
            try await sandbox.moveClock(to: TestClock.epoch + 120)
            try await daemon.awaitLog("item \(itemID) shows as notification", times: 2)
            #expect(desktop.notifyCalls().map(\.replacesID) == [0, 0])
            #expect(desktop.notifyCalls().last?.body == "call &lt;mum&gt;", "the new server reads markup")
            #expect(await desktop.displayedCount() == 1)
        }
    }

    /// The notification ID an item shows as, from the debug log.
    private func shownAs(_ itemID: Int, _ daemon: Daemon) async throws -> UInt32 {
        let line = try await daemon.awaitLog("item \(itemID) shows as notification")
        return try #require(line.split(separator: " ").last.flatMap { UInt32($0) }, "\(line)")
    }

    /// The first event of `kind` in an item's history, as JSON.
    private func awaitEvent(_ kind: String, item itemID: Int, _ sandbox: Sandbox, _ daemon: Daemon) async throws
        -> [String: Any]
    {
        try await eventually("a \(kind) event of item \(itemID)", seen: { daemon.log }) { () async -> [String: Any]? in
            guard let answer = try? await sandbox.nudge("events", "--item", String(itemID), "--json"),
                let events = try? JSONSerialization.jsonObject(with: answer.output) as? [[String: Any]]
            else { return nil }
            return events.first { $0["kind"] as? String == kind }
        }
    }

    @Test func aServerThatNeverAnswersDelaysNothingElse() async throws {
        let desktop = try await DesktopSession()
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        let daemon = try await Daemon(
            sandbox,
            sinks: "desktop,command",
            arguments: recorder.onFire,
            environment: desktop.environment
        )
        defer { daemon.stop() }
        let watcher = try await Watcher(sandbox)
        defer { watcher.stop() }

        // A stopped dunst still owns its bus name, so calls to it are queued and never answered.
        kill(desktop.server.processIdentifier, SIGSTOP)
        defer { kill(desktop.server.processIdentifier, SIGCONT) }
        let due = TestClock.epoch + 60
        let first = try await sandbox.addItem("first", due: due)
        let second = try await sandbox.addItem("second", due: due + 1)
        try await sandbox.moveClock(to: due + 1)

        // The desktop sink gives up on each delivery after 5 s, one after the other. A command sink held up behind
        // it would run for the second item only once it gave up on the first, at the earliest.
        let gaveUp = "on the desktop: the notification server did not answer within 5 s"
        try await recorder.awaitRuns(of: [first, second], daemon: daemon)
        #expect(!daemon.log.contains("showing item \(first) \(gaveUp)"), "the command waited for the desktop")
        for (itemID, itemDue) in [(first, due), (second, due + 1)] {
            #expect(try await watcher.awaitEvent("fired", item: itemID).at == itemDue)
        }
        // Still serving while the server hangs.
        #expect(try await sandbox.nudge("ls").status == 0)
        try await daemon.awaitLog("showing item \(first) \(gaveUp)")
        try await daemon.awaitLog("showing item \(second) \(gaveUp)")
    }

    @Test func withNoSessionBusTheDesktopSinkWarnsOnceAndTheOthersFire() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = sandbox.path  // no bus there either
        let start = TestClock.epoch
        let daemon = try await Daemon(
            sandbox,
            sinks: "desktop,command",
            arguments: recorder.onFire,
            environment: environment
        )
        defer { daemon.stop() }

        let due = start + 60
        let itemIDs = [try await sandbox.addItem("one", due: due), try await sandbox.addItem("two", due: due)]
        try await sandbox.moveClock(to: due)
        try await recorder.awaitRuns(of: itemIDs, daemon: daemon)
        try await daemon.awaitLog("sinks: command; off: journal (not requested), desktop (see the warning above)")
        let warnings = daemon.log.split(separator: "\n").filter { $0.contains(" warning nudged:") }
        #expect(warnings.count == 1, "\(daemon.log)")
        // The reason is said once, in the warning; the summary only points at it.
        #expect(daemon.log.components(separatedBy: "DBUS_SESSION_BUS_ADDRESS is unset").count == 2, "\(daemon.log)")
        #expect(warnings.first?.contains("desktop sink is off") == true)
        #expect(warnings.first?.contains("DBUS_SESSION_BUS_ADDRESS is unset") == true)
    }

    @Test func byDefaultTheJournalAndTheDesktopAreOnWhenASessionBusExists() async throws {
        let desktop = try await DesktopSession()
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let withBus = try await Daemon(sandbox, sinks: nil, environment: desktop.environment)
        try await withBus.awaitLog("sinks: journal, desktop; off: command (no --on-fire), log (not requested)")
        withBus.stop()

        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = sandbox.path
        let withoutBus = try await Daemon(sandbox, sinks: nil, environment: environment)
        defer { withoutBus.stop() }
        try await withoutBus.awaitLog("sinks: journal; off: desktop (see the warning above)")
    }
}
