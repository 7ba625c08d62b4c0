import Foundation
import NudgeCore
import Testing

@testable import NudgeDaemon

/// nudged's settings: a flag wins over the environment, which wins over the config file, which wins over the default;
/// each value says where it came from, and a bad one is refused naming its flag, its variable, or its file, line and
/// key.
@Suite struct NudgedSettingsTests {
    private func withFile<Result>(_ text: String?, _ body: (String) async throws -> Result) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nudge-settings-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config.json"
        if let text { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        return try await body(path)
    }

    private func read(
        _ file: String?,
        flags: [NudgedSettings.Key: NudgedSettings.Value] = [:],
        environment: [String: String] = [:]
    ) async throws -> (NudgedSettings, DaemonOptions) {
        try await withFile(file) { path in
            let settings = try await NudgedSettings.read(
                flags: flags,
                environment: environment,
                configFile: path,
                named: false
            )
            return (settings, try DaemonOptions(settings, environment: ["XDG_RUNTIME_DIR": "/run/user/1"]))
        }
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefaults() async throws {
        let file = """
            {
              "catchUpWindow": "2h",
              "historyAge": "7d",
              "maxConnections": 100,
              "sinks": ["journal", "log"],
              "logLevel": "debug"
            }
            """
        let (settings, options) = try await read(
            file,
            flags: [.catchUpWindow: .text("90m")],
            environment: [
                "NUDGE_HISTORY_AGE": "12h", "NUDGE_IDLE_TIMEOUT": "2m", "NUDGE_CATCH_UP_WINDOW": "3h",
                // Empty: sets nothing, so the file's value stands.
                "NUDGE_LOG_LEVEL": "",
            ]
        )
        #expect(options.catchUpWindow == 5400 && settings.origins[.catchUpWindow] == .flag)
        #expect(options.historyLimits.age == 43_200 && settings.origins[.historyAge] == .environment)
        #expect(options.limits.idle == .seconds(120))
        #expect(options.limits.connections == 100)
        #expect(options.sinks == [.journal, .log] && options.logLevel == .debug)
        if case .file(let path) = settings.origins[.maxConnections] {
            #expect(path.hasSuffix("config.json"))
        } else {
            Issue.record("maxConnections came from \(String(describing: settings.origins[.maxConnections]))")
        }
        #expect(options.onFireTimeout == 30 && settings.origins[.onFireTimeout] == .standard)
        #expect(options.limits.requestHead == .seconds(10))
        let printed = settings.lines(workedOut: [.store: "/s", .socket: "/k"])
        #expect(printed.contains { $0.hasPrefix("catchUpWindow       90m") && $0.hasSuffix("# flag") }, "\(printed)")
        #expect(printed.contains { $0.hasPrefix("historyAge          12h") && $0.hasSuffix("# environment") })
        #expect(printed.contains { $0.hasPrefix("store               /s") && $0.hasSuffix("# default") })
    }

    @Test func withoutAFileEverySettingHasItsDefault() async throws {
        let (settings, options) = try await read(nil)
        #expect(!settings.fileExists)
        #expect(NudgedSettings.Key.allCases.allSatisfy { settings.origins[$0] == .standard })
        #expect(options.catchUpWindow == 86_400 && options.compactAfter == 16 << 20 && options.sinks == nil)
        #expect(options.paths.socket == "/run/user/1/nudge/nudged.sock")
    }

    @Test(arguments: [
        (
            "{\n  \"catchUpWindow\": \"2h\",\n  \"catchupwindow\": \"1h\"\n}",
            "line 3: \"catchupwindow\" is not a setting; did you mean \"catchUpWindow\"?"
        ),
        ("{\n  \"maxConnections\": \"many\"\n}", "line 2: maxConnections must be a whole number, like 4096"),
        ("{\n  \"sinks\": \"journal\",\n  \"idleTimeout\": 5\n}", "line 3: idleTimeout must be a string, like \"60s\""),
        ("{\n  \"historyAge\": \"soon\"\n}", "line 2: historyAge \"soon\" is not a duration"),
        ("{\n  \"logLevel\": \"loud\"\n}", "line 2: logLevel \"loud\" is not a level"),
        ("{\n  \"clock\": \"wall\"\n  \"sinks\": []\n}", "is not JSON (line 3)"),
        ("[\"catchUpWindow\"]", "must hold one JSON object of settings"),
        ("{\n  \"sinks\": [\"log\"],\n  \"logLevel\": null\n}", "line 3: logLevel has no value nudged can use"),
        ("{\n  \"idleTimeout\": {\"seconds\": 5}\n}", "line 2: idleTimeout has no value nudged can use"),
    ])
    func aBadFileIsRefusedNamingItsLineAndKey(file: String, expected: String) async throws {
        do {
            _ = try await read(file)
            Issue.record("accepted: \(file)")
        } catch let error as DaemonError {
            #expect(error.code == .configuration)
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.contains("config.json"), "\(error)")
        }
    }

    @Test func aBadFlagIsAUsageErrorAndABadVariableNamesTheVariable() async throws {
        do {
            _ = try await read(nil, flags: [.compactAfter: .text("lots")])
            Issue.record("accepted --compact-after lots")
        } catch let error as DaemonError {
            #expect(error.code == .usage && error.description.hasPrefix("--compact-after \"lots\" is not a size"))
        }
        do {
            _ = try await read(nil, environment: ["NUDGE_REQUEST_BODY_TIMEOUT": "0s"])
            Issue.record("accepted NUDGE_REQUEST_BODY_TIMEOUT=0s")
        } catch let error as DaemonError {
            #expect(error.code == .configuration)
            #expect(error.description.hasPrefix("NUDGE_REQUEST_BODY_TIMEOUT \"0s\" is not a duration from 1s to 7d"))
        }
    }

    @Test func aConfigFileNamedButMissingIsRefusedAndTheDefaultOneMayBeMissing() async throws {
        do {
            _ = try await NudgedSettings.read(
                flags: [:],
                environment: [:],
                configFile: "/nonexistent/c.json",
                named: true
            )
            Issue.record("accepted a missing --config file")
        } catch {
            #expect(error.description.contains("/nonexistent/c.json does not exist"))
        }
        let path = NudgedSettings.configPath(flag: nil, environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
        #expect(path == ("/x/nudge/config.json", false))
        #expect(
            NudgedSettings.configPath(flag: nil, environment: ["HOME": "/h"]).path == "/h/.config/nudge/config.json"
        )
        #expect(NudgedSettings.configPath(flag: nil, environment: ["NUDGE_CONFIG": "/c.json"]) == ("/c.json", true))
    }

    @Test func eachSettingHasAFlagAndAVariableNamedAfterItsKey() {
        #expect(NudgedSettings.Key.catchUpWindow.flag == "--catch-up-window")
        #expect(NudgedSettings.Key.catchUpWindow.variable == "NUDGE_CATCH_UP_WINDOW")
        #expect(NudgedSettings.Key.store.variable == "NUDGE_STORE" && NudgedSettings.Key.socket.flag == "--socket")
        #expect(NudgedSettings.Key.onFire.flag == "--on-fire")
    }

    /// The table and the command's declarations agree: each setting's flag, as its entry names it, lands in that
    /// setting (a value its kind reads), and each one's default reads as the options' own check wants.
    @Test func everySettingsFlagLandsInItsSettingAndEveryDefaultReads() async throws {
        for key in NudgedSettings.Key.allCases {
            let value: String =
                switch key.entry.kind {
                case .count: "7"
                case .list: "log"
                default: "x"
                }
            let command = try NudgedCommand.parse([key.flag, value])
            let expected: NudgedSettings.Value =
                switch key.entry.kind {
                case .count: .number(7)
                case .list: .list(["log"])
                default: .text("x")
                }
            #expect(command.flags == [key: expected], "\(key.flag) \(value)")
            #expect(key.help.abstract.hasPrefix(key.entry.help), "\(key)")
        }
        // With nothing given, every default is one the options take.
        let (settings, options) = try await read(nil)
        #expect(settings.origins.values.allSatisfy { $0 == .standard })
        #expect(options.catchUpWindow == ReminderScheduler.defaultCatchUpWindow)
    }
}
