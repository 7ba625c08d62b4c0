import Foundation
import Testing

/// The desktop sink against a real notification server: dunst under Xvfb on a private session bus.
@Suite(.serialized) struct DesktopTests {
    /// Runs `body` with a private desktop and a nudged delivering to it, and cleans up after both.
    private func withDesktopDaemon(_ body: (DesktopSession, Sandbox, Daemon) throws -> Void) throws {
        let desktop = try DesktopSession()
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try Daemon(sandbox, sinks: "desktop", environment: desktop.environment)
        defer { daemon.stop() }
        try body(desktop, sandbox, daemon)
    }

    @Test func anItemShowsOnceReplacedInPlaceAndClosesWhenCheckedOff() throws {
        try withDesktopDaemon { desktop, sandbox, daemon in

            let itemID = try sandbox.addItem("call mum", due: wholeSecond(after: 2))
            #expect(eventually(within: 5) { desktop.displayedCount == 1 }, "\(daemon.log)")
            let edited = "call mum about Sunday"
            #expect(
                try sandbox.nudge("edit", String(itemID), "--text", edited, "--due", iso(wholeSecond(after: 2))).status
                    == 0
            )
            #expect(eventually(within: 5) { desktop.notifyCalls().count == 2 }, "\(daemon.log)")
            Thread.sleep(forTimeInterval: 0.3)
            #expect(desktop.displayedCount == 1)

            let calls = desktop.notifyCalls()
            #expect(calls.map(\.replacesID).first == 0)
            #expect(calls.map(\.body) == ["call mum", edited])
            let replaced = calls[1].replacesID
            #expect(replaced != 0, "the second notification must replace the first")

            #expect(try sandbox.nudge("done", String(itemID)).status == 0)
            #expect(eventually(within: 5) { desktop.displayedCount == 0 }, "\(daemon.log)")
            #expect(desktop.closeCalls() == [replaced])
            let history = try desktop.history()
            #expect(history.count == 1)
            #expect(history.first?.id == Int(replaced))
            #expect(history.first?.body == edited)
            #expect(history.first?.summary == "List")
        }
    }

    @Test func textIsShownLiterally() throws {
        try withDesktopDaemon { desktop, sandbox, daemon in

            let due = wholeSecond(after: 2)
            _ = try sandbox.addItem("-u critical <b>bold</b> & co\nsecond line", due: due)
            // Bytes that are not UTF-8 reach nudge from the shell; it repairs them to U+FFFD before they go anywhere.
            let invalid = try run(
                "/bin/sh",
                [
                    "-c", #""$0" add "$(printf 'caf\351 au lait')" --due "$1" --socket "$2""#, Binaries.nudge, iso(due),
                    sandbox.socket,
                ]
            )
            #expect(invalid.status == 0, "\(invalid.stderr)")
            #expect(eventually(within: 5) { desktop.notifyCalls().count == 2 }, "\(daemon.log)")
            let bodies = Set(desktop.notifyCalls().map(\.body))
            #expect(bodies == ["-u critical &lt;b&gt;bold&lt;/b&gt; &amp; co\nsecond line", "caf\u{FFFD} au lait"])
            #expect(desktop.notifyCalls().allSatisfy { $0.summary == "List" })
            #expect(eventually(within: 2) { desktop.displayedCount == 2 })
        }
    }

    @Test func aServerThatNeverAnswersDelaysNothingElse() throws {
        let desktop = try DesktopSession()
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        let daemon = try Daemon(
            sandbox,
            sinks: "desktop,command",
            arguments: ["--on-fire", recorder.program],
            environment: desktop.environment
        )
        defer { daemon.stop() }
        let watcher = try Watcher(sandbox)
        defer { watcher.stop() }

        // A stopped dunst still owns its bus name, so Notify calls are queued and never answered.
        kill(desktop.dunst.processIdentifier, SIGSTOP)
        defer { kill(desktop.dunst.processIdentifier, SIGCONT) }
        let due = wholeSecond(after: 2)
        let first = try sandbox.addItem("first", due: due)
        let second = try sandbox.addItem("second", due: due + 1)

        #expect(eventually(within: 4) { recorder.firedAt(second) != nil })
        for (itemID, itemDue) in [(first, due), (second, due + 1)] {
            let ranAt = try #require(recorder.firedAt(itemID))
            #expect(
                ranAt < itemDue + 1,
                "the command for item \(itemID) ran \(ranAt.timeIntervalSince(itemDue)) s late"
            )
            let firedAt = try #require(date(watcher.events(kind: "fired", item: itemID).first?["at"]))
            #expect(firedAt < itemDue + 0.5)
        }
        // Still serving while notify-send hangs.
        #expect(try sandbox.nudge("ls").status == 0)
        // notify-send is stopped at the 5 s bound, and none is left behind.
        #expect(
            eventually(within: 8) { daemon.log.contains("notify-send for item \(first) was stopped after 5 s") },
            "\(daemon.log)"
        )
        #expect(eventually(within: 8) { daemon.log.contains("notify-send for item \(second) was stopped after 5 s") })
        #expect(
            eventually(within: 2) {
                (try? run("/usr/bin/pgrep", ["-P", String(daemon.process.processIdentifier)]))?.stdout.isEmpty ?? false
            },
            "nudged still has children"
        )
    }

    @Test func withNoSessionBusTheDesktopSinkWarnsOnceAndTheOthersFire() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = sandbox.path  // no bus there either
        let daemon = try Daemon(
            sandbox,
            sinks: "desktop,command",
            arguments: ["--on-fire", recorder.program],
            environment: environment
        )
        defer { daemon.stop() }

        let due = wholeSecond(after: 2)
        let itemIDs = try ["one", "two"].map { try sandbox.addItem($0, due: due) }
        #expect(eventually(within: 5) { itemIDs.allSatisfy { recorder.firedAt($0) != nil } })
        let warnings = daemon.log.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(daemon.log)")
        #expect(warnings.first?.contains("desktop sink is off") == true)
        #expect(warnings.first?.contains("DBUS_SESSION_BUS_ADDRESS is unset") == true)
        #expect(daemon.log.contains("sinks: command; off: journal (not requested), desktop (no D-Bus session bus"))
    }

    @Test func byDefaultTheJournalAndTheDesktopAreOnWhenASessionBusExists() throws {
        let desktop = try DesktopSession()
        defer { desktop.stop() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let withBus = try Daemon(sandbox, sinks: nil, environment: desktop.environment)
        #expect(withBus.log.contains("sinks: journal, desktop; off: command (no --on-fire), log (not requested)"))
        withBus.stop()

        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = sandbox.path
        let withoutBus = try Daemon(sandbox, sinks: nil, environment: environment)
        defer { withoutBus.stop() }
        #expect(withoutBus.log.contains("sinks: journal; off: desktop (no D-Bus session bus"), "\(withoutBus.log)")
    }
}
