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
            switch key.entry.kind {
            case .count: found = reader.int(forKey: configKey).map(Value.number)
            case .list:
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
                throw .configuration("\(source(of: key, from: origin)) must be \(key.expected)")
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
