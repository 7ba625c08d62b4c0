import Foundation
import Testing

/// nudged's config file on the real binary: `--print-config` says where each value came from, a bad file stops a
/// start naming its line and key (exit 78), and SIGHUP reloads it: what can change applies at once, the log says
/// what needs a restart, and a bad file keeps the running settings.
@Suite(.timeLimit(hangLimit)) struct ConfigFileTests {
    @Test func printConfigSaysWhereEachValueCameFrom() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let file = sandbox.path + "/config.json"
        try #"{"catchUpWindow": "2h", "sinks": "journal,log", "maxConnections": 64}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["NUDGE_CONFIG"] = file
        environment["NUDGE_HISTORY_AGE"] = "7d"
        let printed = try await run(
            Binaries.nudged,
            ["--print-config", "--idle-timeout", "90s", "--store", sandbox.store],
            environment: environment
        )
        #expect(printed.status == 0, "\(printed)")
        let lines = printed.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for expected in [
            "catchUpWindow 2h # \(file)", "sinks journal,log # \(file)", "maxConnections 64 # \(file)",
            "historyAge 7d # environment", "idleTimeout 90s # flag", "store \(sandbox.store) # flag",
            "logLevel info # default",
        ] {
            #expect(lines.contains(expected), "\(expected) in:\n\(printed.stdout)")
        }
    }

    @Test func aBadFileStopsTheStartNamingItsLineAndKey() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let file = sandbox.path + "/config.json"
        try "{\n  \"sinks\": [\"log\"],\n  \"idleTimout\": \"90s\"\n}\n".write(
            toFile: file,
            atomically: true,
            encoding: .utf8
        )
        let refused = try await run(
            Binaries.nudged,
            ["--config", file, "--store", sandbox.store, "--socket", sandbox.socket]
        )
        #expect(refused.status == 78, "\(refused)")
        #expect(
            refused.stderr.contains("\(file) line 3: \"idleTimout\" is not a setting; did you mean \"idleTimeout\"?"),
            "\(refused)"
        )
        #expect(!FileManager.default.fileExists(atPath: sandbox.store), "a refused start touched the store")
    }

    @Test func sighupReloadsTheFileAppliesWhatItCanAndKeepsTheRunningSettingsWhenTheFileIsBad() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let file = sandbox.path + "/config.json"
        try #"{"catchUpWindow": "2h"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        // A half-sent request head is closed after 1 s, which nudged says at level debug only.
        let daemon = try await Daemon(sandbox, arguments: ["--config", file, "--request-head-timeout", "1s"])
        defer { daemon.stop() }
        func reload(_ settings: String) throws {
            try settings.write(toFile: file, atomically: true, encoding: .utf8)
            kill(daemon.process.processIdentifier, SIGHUP)
        }
        func halfARequestIsClosed() throws {
            let connection = try RawConnection(sandbox.socket, sending: "GET /v1/hea")
            defer { connection.close() }
            #expect(try connection.awaitEnd(within: patience))
        }

        try reload(#"{"catchUpWindow": "1h", "maxConnections": 64}"#)
        try await daemon.awaitLog(
            "reloaded the configuration from \(file): catchUpWindow 2h → 1h (applied); maxConnections 4096 → 64 "
                + "(needs a restart)"
        )
        try reload("{\n  \"catchUpWindow\": 5\n}")
        try await daemon.awaitLog(
            "cannot reload the configuration, so it stays as it was: \(file) line 2: catchUpWindow must be a string"
        )

        // The log level applies at once: at info the closed connection is not logged (the reload's notice, logged
        // after it, shows the log is read that far), at debug it is.
        try halfARequestIsClosed()
        try reload(#"{"catchUpWindow": "1h", "logLevel": "debug"}"#)
        try await daemon.awaitLog("reloaded the configuration from \(file): logLevel info → debug (applied)")
        #expect(!daemon.log.contains("closed a connection"), "a debug line was written at level info")
        try halfARequestIsClosed()
        try await daemon.awaitLog("closed a connection: it sent no whole request head within 1")
        #expect(try await sandbox.health()["status"] as? String == "ok")
    }
}
