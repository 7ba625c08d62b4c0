import Foundation
import Testing

/// `nudged --on-fire PROGRAM [ARG...]`: the command sink, running a real program.
@Suite(.timeLimit(hangLimit)) struct OnFireTests {
    @Test func theProgramRunsWithoutAShellWithTheReminderInItsEnvironment() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        let trap = sandbox.path + "/a-shell-ran"
        let arguments = ["--flag", "two words", "$(touch \(trap))", ""]
        let daemon = try await Daemon(
            sandbox,
            sinks: "command",
            arguments: recorder.onFire + arguments
        )
        defer { daemon.stop() }

        let due = TestClock.epoch + 60
        let text = "-rf it's `touch \(trap)` $(touch \(trap))\nline 2; echo > \(trap)"
        let itemID = try await sandbox.addItem(text, due: due)
        try await sandbox.moveClock(to: due)
        try await recorder.awaitRuns(of: [itemID], daemon: daemon)

        #expect(recorder.arguments(itemID) == arguments)
        let environment = recorder.environment(itemID)
        #expect(environment["NUDGE_ITEM_ID"] == String(itemID))
        #expect(environment["NUDGE_TEXT"] == text)
        #expect(environment["NUDGE_LIST"] == "Inbox")
        #expect(environment["NUDGE_DUE"] == due.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        #expect(environment["NUDGE_LATE"] == "0")
        #expect(!FileManager.default.fileExists(atPath: trap), "something ran the text or the arguments as shell")
        try await daemon.awaitLog("on-fire /bin/sh for item \(itemID) exited with status 0")
    }

    @Test func aProgramStillRunningAtTheTimeoutIsStoppedAndSaidSo() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            sinks: "command,log",
            arguments: ["--on-fire-timeout", "1s", "--on-fire", "/bin/sleep", "30"]
        )
        defer { daemon.stop() }

        let itemID = try await sandbox.addItem("slow", due: TestClock.epoch + 60)
        try await sandbox.moveClock(to: TestClock.epoch + 60)
        try await daemon.awaitLog("on-fire /bin/sleep for item \(itemID) was stopped after 1 s without finishing")
        // The log sink was not held up by the slow command: it logged the reminder before the command was stopped.
        let lines = daemon.logLines.lines
        let reminder = lines.firstIndex { $0.contains("reminder: slow") }
        let stopped = lines.firstIndex { $0.contains("was stopped after 1 s") }
        #expect(reminder != nil && reminder! < stopped!, "\(daemon.log)")
        let children = try await run("/usr/bin/pgrep", ["-P", String(daemon.process.processIdentifier)])
        #expect(children.stdout.isEmpty, "left behind: \(children.stdout)")
    }

    @Test func aFailingOrMissingProgramIsLogged() async throws {
        for (program, expected) in [
            (["/bin/sh", "-c", "exit 3"], "on-fire /bin/sh for item 1 exited with status 3"),
            (["/no/such/program"], "on-fire /no/such/program for item 1 could not start"),
        ] {
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            let daemon = try await Daemon(sandbox, sinks: "command", arguments: ["--on-fire"] + program)
            defer { daemon.stop() }
            #expect(try await sandbox.addItem("fails", due: TestClock.epoch + 60) == 1)
            try await sandbox.moveClock(to: TestClock.epoch + 60)
            try await daemon.awaitLog(expected)
        }
    }

    @Test func onFireNeedsTheCommandSinkAndTheCommandSinkNeedsOnFire() async throws {
        for arguments in [["--sinks", "journal", "--on-fire", "/bin/true"], ["--sinks", "command"]] {
            let result = try await run(Binaries.nudged, arguments)
            #expect(result.status == 64)
            #expect(result.stderr.contains("--on-fire"), "\(result.stderr)")
        }
    }
}
