import Foundation
import Testing

/// nudged run by hand in a terminal, with no desktop: each reminder shows on its output once, by the log sink it
/// turns on for a terminal, and each start-up warning shows once. The terminal is a real pseudo-terminal, made by
/// util-linux's `script`.
@Suite(.timeLimit(hangLimit)) struct ForegroundTests {
    @Test func onATerminalWithNoDesktopEachReminderAndEachWarningShowsOnce() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let transcript = sandbox.path + "/terminal.log"
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // -f flushes each write, -e passes on nudged's exit status; exec so that stopping script stops nudged.
        script.arguments = [
            "-qfec", "exec \(Binaries.nudged) --store \(sandbox.store) --socket \(sandbox.socket)", transcript,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["XDG_RUNTIME_DIR"] = nil
        script.environment = environment
        script.standardInput = FileHandle.nullDevice
        script.standardOutput = FileHandle.nullDevice
        try script.run()
        defer {
            script.terminate()
            script.awaitExit()
        }
        func screen() -> String { (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? "" }
        try await eventually("nudged to listen on \(sandbox.socket)", seen: screen) { isListening(sandbox.socket) }

        _ = try await sandbox.nudge("add", "stretch", "--due", "now")
        try await eventually("the reminder on the terminal", seen: screen) { screen().contains("reminder: stretch") }
        // A second reminder, seen, shows that the first had all the time it needed to be shown twice.
        _ = try await sandbox.nudge("add", "drink water", "--due", "now")
        try await eventually("the second reminder", seen: screen) { screen().contains("reminder: drink water") }

        let output = screen()
        #expect(output.components(separatedBy: "reminder: stretch").count == 2, "\(output)")
        #expect(output.components(separatedBy: "DBUS_SESSION_BUS_ADDRESS is unset").count == 2, "\(output)")
        #expect(output.contains("sinks: journal, log; off: desktop (see the warning above)"), "\(output)")
    }
}
