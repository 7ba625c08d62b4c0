import Configuration
import Foundation
import Logging
import NudgeAPI
import NudgeCore
import NudgeStore
import Synchronization
import SystemPackage

/// Every nudged setting and where it came from: a flag, else the environment (`NUDGE_` and the key in capitals:
/// `catchUpWindow` is `NUDGE_CATCH_UP_WINDOW`), else the config file, else its default. Read with
/// swift-configuration; the file is JSON, which it reads without another parser, as one object of these keys.
struct NudgedSettings: Sendable, Equatable {
    /// The settings, by their key in the file.
    enum Key: String, CaseIterable, Sendable {
        case store, socket, sinks, onFire, onFireTimeout, catchUpWindow, clock, historyEvents, historyAge, logLevel
        case compactAfter, maxConnections, requestHeadTimeout, requestBodyTimeout, idleTimeout, snoozeLength

        /// Its command-line flag.
        var flag: String {
            "--"
                + rawValue.reduce(into: "") { name, character in
                    if character.isUppercase { name += "-" }
                    name += character.lowercased()
                }
        }

        /// Its environment variable.
        var variable: String { "NUDGE_" + flag.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_") }

        /// Its value when nothing gives one; nil: none (the store's and socket's paths are worked out, the sinks
        /// chosen by what the machine has).
        var standard: Value? {
            switch self {
            case .store, .socket, .sinks: Optional.none
            case .onFire: .list([])
            case .onFireTimeout: .text("30s")
            case .catchUpWindow: .text("24h")
            case .clock: .text("wall")
            case .historyEvents: .number(HistoryLimits.standard.count)
            case .historyAge: .text("30d")
            case .logLevel: .text("info")
            case .compactAfter: .text("16M")
            case .maxConnections: .number(ConnectionLimits().connections)
            case .requestHeadTimeout: .text("10s")
            case .requestBodyTimeout: .text("30s")
            case .idleTimeout: .text("60s")
            case .snoozeLength: .text("10m")
            }
        }

        /// What a reload can change in a running nudged; the rest needs a restart.
        var changesAtRunTime: Bool { self == .catchUpWindow || self == .logLevel }
    }

    enum Value: Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case number(Int)
        case list([String])

        var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): String(number)
            case .list(let list): list.joined(separator: ",")
            }
        }
    }

    /// Where a value came from.
    enum Origin: Sendable, Equatable, CustomStringConvertible {
        case flag, environment
        case file(String)
        case standard

        var description: String {
            switch self {
            case .flag: "flag"
            case .environment: "environment"
            case .file(let path): path
            case .standard: "default"
            }
        }
    }

    private(set) var values: [Key: Value] = [:]
    private(set) var origins: [Key: Origin] = [:]
    /// The config file, and whether it was there.
    let file: String
    let fileExists: Bool

    subscript(_ key: Key) -> Value? { values[key] }

    /// The text of a setting that has one (all but the lists and numbers).
    func text(_ key: Key) -> String? {
        if case .text(let text) = values[key] { return text }
        return nil
    }

    func number(_ key: Key) -> Int {
        if case .number(let number) = values[key] { return number }
        return 0
    }

    func list(_ key: Key) -> [String]? {
        if case .list(let list) = values[key] { return list }
        return nil
    }

    /// How to name a setting in an error: the flag, the variable, or the file's line and key.
    func source(of key: Key) -> String {
        Self.source(of: key, from: origins[key] ?? .standard)
    }

    private static func source(of key: Key, from origin: Origin) -> String {
        switch origin {
        case .flag: key.flag
        case .environment: key.variable
        case .file(let path): "\(path) line \(Self.line(ofKey: key.rawValue, inFile: path)): \(key.rawValue)"
        case .standard: "the default \(key.rawValue)"
        }
    }

    /// `--config`, else `NUDGE_CONFIG`, else `$XDG_CONFIG_HOME/nudge/config.json` (`~/.config/nudge/config.json`).
    static func configPath(flag: String?, environment: [String: String]) -> (path: String, named: Bool) {
        if let flag { return (flag, true) }
        if let variable = environment["NUDGE_CONFIG"], !variable.isEmpty { return (variable, true) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return (configHome + "/nudge/config.json", false)
    }

    /// Reads every setting: `flags` (those given on the command line), the environment, then the file at
    /// `configFile` (which may be missing unless `named`). A file that is not JSON, holds a key nudged does not
    /// know, or gives a value of the wrong type is an error naming the file, the line and the key.
    static func read(
        flags: [Key: Value],
        environment: [String: String],
        configFile: String,
        named: Bool
    ) async throws(DaemonError) -> NudgedSettings {
        let exists = FileManager.default.fileExists(atPath: configFile)
        if named, !exists {
            throw .configuration("the config file \(configFile) does not exist; create it, or leave --config out")
        }
        var providers: [any ConfigProvider] = [
            InMemoryProvider(
                name: "flags",
                values: Dictionary(uniqueKeysWithValues: flags.map { (AbsoluteConfigKey([$0.rawValue]), $1.config) })
            ),
            // An empty variable sets nothing, as `NUDGE_SOCKET=` always meant.
            EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty })
                .prefixKeys(with: ["nudge"]),
        ]
        if exists {
            try checkKeys(of: configFile)
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(configFile)))
            } catch {
                throw .configuration("cannot read the config file \(configFile): \(error)")
            }
        }
        let reporter = OriginReporter()
        let reader = ConfigReader(providers: providers, accessReporter: reporter)
        var settings = NudgedSettings(file: configFile, fileExists: exists)
        for key in Key.allCases {
            let found: Value?
            let configKey = ConfigKey(key.rawValue)
            switch key {
            case .historyEvents, .maxConnections: found = reader.int(forKey: configKey).map(Value.number)
            case .sinks, .onFire:
                // A list, or one string of comma-separated words, as the flag takes it.
                if let list = reader.stringArray(forKey: configKey) {
                    found = .list(list)
                } else if reporter.take().failure != nil, let text = reader.string(forKey: configKey) {
                    found = .list(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                } else {
                    found = nil
                }
            default: found = reader.string(forKey: configKey).map(Value.text)
            }
            let (provider, failure) = reporter.take()
            let origin: Origin = [.flag, .environment, .file(configFile)][safe: provider] ?? .standard
            if failure != nil {
                let expected =
                    switch key {
                    case .historyEvents, .maxConnections: "a whole number, like \(key.standard?.description ?? "1")"
                    case .sinks, .onFire: "a list of strings, like [\"journal\", \"log\"]"
                    default: "a string, like \"\(key.standard?.description ?? "/path")\""
                    }
                throw .configuration("\(source(of: key, from: origin)) must be \(expected)")
            }
            settings.values[key] = found ?? key.standard
            settings.origins[key] = found == nil ? .standard : origin
        }
        return settings
    }

    private init(file: String, fileExists: Bool) {
        self.file = file
        self.fileExists = fileExists
    }

    /// What `--print-config` prints: each setting, its value (or what it was worked out to be, `workedOut`) and where
    /// it came from.
    func lines(workedOut: [Key: String]) -> [String] {
        let shown = Key.allCases.map { key in
            (key.rawValue, values[key].map { "\($0)" } ?? workedOut[key] ?? "(chosen at start: see the log)")
        }
        let width = shown.map(\.1.count).max() ?? 0
        return ["# config file: \(file)\(fileExists ? "" : " (none)")"]
            + zip(Key.allCases, shown).map { key, entry in
                let padded = entry.0.padding(toLength: 19, withPad: " ", startingAt: 0)
                let value = entry.1.padding(toLength: width, withPad: " ", startingAt: 0)
                return "\(padded) \(value)  # \(origins[key] ?? .standard)"
            }
    }

    /// These settings with `key` as `other` has it.
    func replacing(_ key: Key, from other: NudgedSettings) -> NudgedSettings {
        var settings = self
        settings.values[key] = other.values[key]
        settings.origins[key] = other.origins[key]
        return settings
    }

    /// The keys whose value differs from `other`'s.
    func changes(from other: NudgedSettings) -> [Key] {
        Key.allCases.filter { values[$0] != other.values[$0] }
    }

    // MARK: Private

    /// Refuses a file that is not a JSON object, or that holds a key nudged does not know (a typo would otherwise
    /// be a setting silently not made), naming the line.
    private static func checkKeys(of path: String) throws(DaemonError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configuration("cannot read the config file \(path); check its permissions")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            // Foundation says where: "… around character 41."
            let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)")
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
            let offset = detail.split(separator: " ").last.flatMap {
                Int($0.trimmingCharacters(in: .punctuationCharacters))
            }
            let line = offset.map { offset in data.prefix(offset).count { $0 == UInt8(ascii: "\n") } + 1 }
            throw .configuration(
                "the config file \(path) is not JSON\(line.map { " (line \($0))" } ?? ""): \(detail); it holds one "
                    + "object, like {\"catchUpWindow\": \"2h\", \"sinks\": [\"journal\"]}"
            )
        }
        guard let dictionary = object as? [String: Any] else {
            throw .configuration(
                "the config file \(path) must hold one JSON object of settings, like {\"catchUpWindow\": \"2h\"}"
            )
        }
        let known = Key.allCases.map(\.rawValue)
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            guard known.contains(name) else {
                let suggestion = Spelling.closest(to: name, among: known).map { "did you mean \"\($0)\"? " } ?? ""
                throw .configuration(
                    "\(path) line \(line(ofKey: name, inFile: path)): \"\(name)\" is not a setting; \(suggestion)"
                        + "settings are: \(known.joined(separator: ", "))"
                )
            }
            // null or an object would read as no value at all, and the default would stand without a word.
            if value is NSNull || value is [String: Any] {
                throw .configuration(
                    "\(path) line \(line(ofKey: name, inFile: path)): \(name) has no value nudged can use (null or "
                        + "an object); give one, or leave the key out for the default"
                )
            }
        }
    }

    /// The line of the file where a key is written (its first mention), or 1.
    private static func line(ofKey name: String, inFile path: String) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let range = text.range(of: "\"\(name)\"")
        else { return 1 }
        return text[..<range.lowerBound].count { $0 == "\n" } + 1
    }
}

extension NudgedSettings.Value {
    fileprivate var config: ConfigValue {
        switch self {
        case .text(let text): ConfigValue(.string(text), isSecret: false)
        case .number(let number): ConfigValue(.int(number), isSecret: false)
        case .list(let list): ConfigValue(.stringArray(list), isSecret: false)
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int?) -> Element? {
        guard let index, indices.contains(index) else { return nil }
        return self[index]
    }
}

/// Which provider answered the last read, by its place in the reader's list, and why a value it had could not be
/// used (a number where text belongs).
private final class OriginReporter: AccessReporter {
    private let last = Mutex<(provider: Int?, failure: String?)>((nil, nil))

    func report(_ event: AccessEvent) {
        var provider: Int?
        var failure: String?
        for (index, result) in event.providerResults.enumerated() {
            switch result.result {
            case .success(let lookup) where lookup.value != nil:
                provider = provider ?? index
            case .failure(let error):
                provider = provider ?? index
                failure = failure ?? "\(error)"
            default: break
            }
        }
        if failure == nil, let error = event.conversionError { failure = "\(error)" }
        last.withLock { $0 = (provider, failure) }
    }

    func take() -> (provider: Int?, failure: String?) {
        last.withLock { value in
            defer { value = (nil, nil) }
            return value
        }
    }
}

/// nudged's settings checked and typed, ready for a run. A value that does not read is an error naming where it came
/// from: a flag (exit 64, as any usage error), or the environment or the config file (exit 78, a configuration error).
struct DaemonOptions: Sendable {
    let settings: NudgedSettings
    var paths: ServicePaths
    var sinks: [SinkSelection.Kind]?
    var onFire: [String]
    var onFireTimeout: TimeInterval
    /// How long the Snooze button of a desktop notification snoozes for.
    var snoozeLength: TimeInterval
    var catchUpWindow: TimeInterval
    var clock: ClockChoice
    var historyLimits: HistoryLimits
    var logLevel: Logger.Level
    var compactAfter: Int
    var limits: ConnectionLimits

    init(_ settings: NudgedSettings, environment: [String: String]) throws(DaemonError) {
        self.settings = settings
        func refuse(_ key: NudgedSettings.Key, _ reason: String) -> DaemonError {
            let value = settings[key].map { "\"\($0)\"" } ?? "(none)"
            let code: DaemonError.Code = settings.origins[key] == .flag ? .usage : .configuration
            return DaemonError(code: code, description: "\(settings.source(of: key)) \(value) \(reason)")
        }
        func duration(_ key: NudgedSettings.Key, within range: ClosedRange<TimeInterval>, like example: String)
            throws(DaemonError) -> TimeInterval
        {
            guard let seconds = settings.text(key).flatMap(DurationText.seconds), range.contains(seconds) else {
                throw refuse(
                    key,
                    "is not a duration from \(DurationText.short(range.lowerBound)) to "
                        + "\(DurationText.short(range.upperBound)); use a whole number with s, m, h or d, like \(example)"
                )
            }
            return seconds
        }
        let forever: TimeInterval = 100 * 366 * 86_400
        catchUpWindow = try duration(.catchUpWindow, within: 0...forever, like: "24h")
        onFireTimeout = try duration(.onFireTimeout, within: 1...forever, like: "30s")
        snoozeLength = try duration(.snoozeLength, within: 60...forever, like: "10m")
        historyLimits = HistoryLimits(
            count: settings.number(.historyEvents),
            age: try duration(.historyAge, within: 1...forever, like: "30d")
        )
        guard (1...HistoryLimits.maximumCount).contains(historyLimits.count) else {
            throw refuse(.historyEvents, "is not from 1 to \(HistoryLimits.maximumCount) events")
        }
        limits = ConnectionLimits()
        limits.connections = settings.number(.maxConnections)
        guard (1...1_000_000).contains(limits.connections) else {
            throw refuse(.maxConnections, "is not from 1 to 1000000 connections")
        }
        let week: TimeInterval = 7 * 86_400
        limits.requestHead = .seconds(Int64(try duration(.requestHeadTimeout, within: 1...week, like: "10s")))
        limits.requestBody = .seconds(Int64(try duration(.requestBodyTimeout, within: 1...week, like: "30s")))
        limits.idle = .seconds(Int64(try duration(.idleTimeout, within: 1...week, like: "60s")))
        guard let compaction = settings.text(.compactAfter).flatMap(NudgedCommand.bytes),
            (4 << 10...1 << 30).contains(compaction)
        else {
            throw refuse(.compactAfter, "is not a size from 4K to 1G; use a whole number with K, M or G, like 16M")
        }
        compactAfter = compaction
        guard let level = settings.text(.logLevel).flatMap(Logger.Level.init(rawValue:)) else {
            throw refuse(.logLevel, "is not a level; use one of trace, debug, info, notice, warning, error, critical")
        }
        logLevel = level
        let clockText = settings.text(.clock) ?? "wall"
        if clockText == "wall" {
            clock = .wall
        } else if clockText == "manual" {
            clock = .manual(start: Date())
        } else if clockText.hasPrefix("manual:") {
            guard let start = InstantFormat.parse(String(clockText.dropFirst("manual:".count))) else {
                throw refuse(
                    .clock,
                    "is not manual:INSTANT with an ISO 8601 date-time with an offset; use one like "
                        + "manual:2027-01-01T09:00:00Z"
                )
            }
            clock = .manual(start: start)
        } else {
            throw refuse(.clock, "is not a clock; use wall, manual, or manual:INSTANT like manual:2027-01-01T09:00:00Z")
        }
        onFire = settings.list(.onFire) ?? []
        sinks = nil
        if let list = settings.list(.sinks) {
            sinks = []
            for word in list {
                guard let kind = SinkSelection.kind(word) else {
                    let kinds = SinkSelection.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw refuse(.sinks, "names \"\(word)\", which is not a sink; use a list of \(kinds)")
                }
                sinks?.append(kind)
            }
        }
        if let sinks, sinks.contains(.command), onFire.isEmpty {
            throw refuse(.sinks, "names command, but no --on-fire program is given; add --on-fire PROGRAM last")
        }
        if let sinks, !sinks.contains(.command), !onFire.isEmpty {
            throw refuse(.onFire, "gives a program, but the sinks leave out command; add command to them")
        }
        paths = ServicePaths(
            storeFlag: settings.text(.store),
            socketFlag: settings.text(.socket),
            environment: environment
        )
        switch settings.origins[.socket] {
        case .environment: paths.runtimeDirectoryReason = NudgedSettings.Key.socket.variable
        case .file(let path): paths.runtimeDirectoryReason = path
        default: break
        }
    }
}
