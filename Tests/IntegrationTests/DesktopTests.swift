import Foundation
import Testing

/// The desktop sink against a real notification server: dunst under Xvfb on a private session bus.
@Suite(.timeLimit(.minutes(2))) struct DesktopTests {
    /// Runs `body` with a private desktop and a nudged delivering to it (logging at debug level, where the desktop
    /// sink says which notification shows which item), and cleans up after both.
    private func withDesktopDaemon(
        arguments: [String] = [],
        _ body: (DesktopSession, Sandbox, Daemon) async throws -> Void
    ) async throws {
        let desktop = try await DesktopSession()
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            sinks: "desktop",
            arguments: ["--log-level", "debug"] + arguments,
            environment: desktop.environment
        )
        defer { daemon.stop() }
        try await body(desktop, sandbox, daemon)
    }

    @Test func anItemShowsOnceReplacedInPlaceAndClosesWhenCheckedOff() async throws {
        try await withDesktopDaemon { desktop, sandbox, daemon in
            let itemID = try await sandbox.addItem("call mum", due: dueSoon())
            let first = try await daemon.awaitLog("item \(itemID) shows as notification")
            try await daemon.eventually("dunst to display one notification") { await desktop.displayedCount() == 1 }
            let edited = "call mum about Sunday"
            #expect(
                try await sandbox.nudge("edit", String(itemID), "--text", edited, "--due", iso(dueSoon()))
                    .status == 0
            )
            // notify-send printed the ID dunst answered: dunst has handled the replacing call.
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
            #expect(history.first?.summary == "Inbox")
        }
    }

    @Test func anAdvanceWarningShowsHowSoonAndTheReminderReplacesItInPlace() async throws {
        let start = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
        try await withDesktopDaemon(arguments: ["--clock", "manual:" + iso(start)]) { desktop, sandbox, daemon in
            let added = try await sandbox.nudge("add", "dentist", "--due", iso(start + 3600), "--warn", "10m")
            #expect(added.status == 0, "\(added)")
            try await ManualClockTests.withClient(sandbox) { client in
                _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 3000)])
                try await daemon.awaitLog("item 1 shows as notification")
                _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 3600)])
                try await daemon.awaitLog("item 1 shows as notification", times: 2)
            }
            #expect(await desktop.displayedCount() == 1)
            let calls = desktop.notifyCalls()
            #expect(calls.map(\.summary) == ["Inbox: due in 10m", "Inbox"])
            #expect(calls.map(\.body) == ["dentist", "dentist"])
            #expect(calls.last?.replacesID != 0, "the reminder must replace its warning")
        }
    }

    @Test func textIsShownLiterally() async throws {
        try await withDesktopDaemon { desktop, sandbox, daemon in
            _ = try await sandbox.addItem("-u critical <b>bold</b> & co\nsecond line", due: dueSoon())
            // Bytes that are not UTF-8 reach nudge from the shell; it repairs them to U+FFFD before they go anywhere.
            let due = dueSoon()
            let invalid = try await run(
                "/bin/sh",
                [
                    "-c", #""$0" add --json "$(printf 'caf\351 au lait')" --due "$1" --socket "$2""#, Binaries.nudge,
                    iso(due), sandbox.socket,
                ]
            )
            #expect(invalid.status == 0, "\(invalid.stderr)")
            _ = try Sandbox.itemID(added: invalid.output, due: due)
            try await daemon.eventually("two Notify calls") { desktop.notifyCalls().count == 2 }
            let bodies = Set(desktop.notifyCalls().map(\.body))
            #expect(bodies == ["-u critical &lt;b&gt;bold&lt;/b&gt; &amp; co\nsecond line", "caf\u{FFFD} au lait"])
            #expect(desktop.notifyCalls().allSatisfy { $0.summary == "Inbox" })
            try await daemon.eventually("dunst to display both") { await desktop.displayedCount() == 2 }
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

        // A stopped dunst still owns its bus name, so Notify calls are queued and never answered.
        kill(desktop.dunst.processIdentifier, SIGSTOP)
        defer { kill(desktop.dunst.processIdentifier, SIGCONT) }
        let due = dueSoon()
        let first = try await sandbox.addItem("first", due: due)
        let second = try await sandbox.addItem("second", due: due + 1)

        try await recorder.awaitRuns(of: [first, second], daemon: daemon)
        for (itemID, itemDue) in [(first, due), (second, due + 1)] {
            let ranAt = try #require(recorder.firedAt(itemID))
            #expect(
                ranAt < itemDue + 1,
                "the command for item \(itemID) ran \(ranAt.timeIntervalSince(itemDue)) s late"
            )
            let firedAt = try await watcher.awaitEvent("fired", item: itemID).at
            #expect(firedAt < itemDue + 0.5)
        }
        // Still serving while notify-send hangs.
        #expect(try await sandbox.nudge("ls").status == 0)
        // notify-send is stopped at the 5 s bound, and none is left behind.
        try await daemon.awaitLog("notify-send for item \(first) was stopped after 5 s")
        try await daemon.awaitLog("notify-send for item \(second) was stopped after 5 s")
        try await daemon.eventually("nudged to have no children left") {
            (try? await run("/usr/bin/pgrep", ["-P", String(daemon.process.processIdentifier)]))?.stdout.isEmpty
                ?? false
        }
    }

    @Test func withNoSessionBusTheDesktopSinkWarnsOnceAndTheOthersFire() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = sandbox.path  // no bus there either
        let daemon = try await Daemon(
            sandbox,
            sinks: "desktop,command",
            arguments: recorder.onFire,
            environment: environment
        )
        defer { daemon.stop() }

        // Two adds beside the whole integration group on two cores once took more than the usual lead; nothing here
        // measures lateness, so a longer one costs only waiting.
        let due = dueSoon(ahead: 2 * lead)
        let itemIDs = [try await sandbox.addItem("one", due: due), try await sandbox.addItem("two", due: due)]
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
