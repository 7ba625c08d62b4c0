import Foundation
import Logging
import NudgeAPI
import NudgeCore
import NudgeStore

/// nudged's settings checked and typed, ready for a run, each read as its `NudgedSettings.Key.entry` says. A value
/// that does not read is an error naming where it came from: a flag (exit 64, as any usage error), or the environment
/// or the config file (exit 78, a configuration error).
struct DaemonOptions: Sendable {
    let settings: NudgedSettings
    var paths: ServicePaths
    var sinks: [SinkSelection.Kind]?
    var onFire: [String]
    var onFireTimeout: TimeInterval
    /// How long the Snooze button of a desktop notification snoozes for.
    var snoozeLength: TimeInterval
    var catchUpWindow: TimeInterval
    /// When the day's digest goes out: seconds after midnight in nudged's zone.
    var digestTime: Int
    /// The lists to keep linked to folders (`links`), by name, in the order given.
    var links: [(name: String, folder: String)]
    var clock: ClockChoice
    var historyLimits: HistoryLimits
    var logLevel: Logger.Level
    var compactAfter: Int
    var limits: ConnectionLimits

    init(_ settings: NudgedSettings, environment: [String: String]) throws(DaemonError) {
        self.settings = settings
        let read = Reading(settings: settings)
        catchUpWindow = try read.duration(.catchUpWindow)
        onFireTimeout = try read.duration(.onFireTimeout)
        snoozeLength = try read.duration(.snoozeLength)
        digestTime = try read.timeOfDay(.digestTime)
        links = []
        for entry in settings.list(.links) ?? [] {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, parts[1].hasPrefix("/") else {
                throw read.refuse(
                    .links,
                    "has \"\(entry)\", which is not NAME=FOLDER with an absolute folder; use one like "
                        + "Work=/home/me/.local/share/calendars/work"
                )
            }
            links.append((parts[0], (parts[1] as NSString).standardizingPath))
        }
        historyLimits = HistoryLimits(count: try read.count(.historyEvents), age: try read.duration(.historyAge))
        limits = ConnectionLimits()
        limits.connections = try read.count(.maxConnections)
        limits.requestHead = .seconds(Int64(try read.duration(.requestHeadTimeout)))
        limits.requestBody = .seconds(Int64(try read.duration(.requestBodyTimeout)))
        limits.idle = .seconds(Int64(try read.duration(.idleTimeout)))
        compactAfter = try read.size(.compactAfter)
        guard let level = settings.text(.logLevel).flatMap(Logger.Level.init(rawValue:)) else {
            throw read.refuse(
                .logLevel,
                "is not a level; use one of trace, debug, info, notice, warning, error, critical"
            )
        }
        logLevel = level
        clock = try Self.clock(read)
        onFire = settings.list(.onFire) ?? []
        sinks = nil
        if let list = settings.list(.sinks) {
            sinks = []
            for word in list {
                guard let kind = SinkSelection.kind(word) else {
                    let kinds = SinkSelection.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw read.refuse(.sinks, "names \"\(word)\", which is not a sink; use a list of \(kinds)")
                }
                sinks?.append(kind)
            }
        }
        if let sinks, sinks.contains(.command), onFire.isEmpty {
            throw read.refuse(.sinks, "names command, but no --on-fire program is given; add --on-fire PROGRAM last")
        }
        if let sinks, !sinks.contains(.command), !onFire.isEmpty {
            throw read.refuse(.onFire, "gives a program, but the sinks leave out command; add command to them")
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

    private static func clock(_ read: Reading) throws(DaemonError) -> ClockChoice {
        let text = read.settings.text(.clock) ?? "wall"
        if text == "wall" { return .wall }
        if text == "manual" { return .manual(start: Date()) }
        if text.hasPrefix("manual:") {
            guard let start = InstantFormat.parse(String(text.dropFirst("manual:".count))) else {
                throw read.refuse(
                    .clock,
                    "is not manual:INSTANT with an ISO 8601 date-time with an offset; use one like "
                        + "manual:2027-01-01T09:00:00Z"
                )
            }
            return .manual(start: start)
        }
        throw read.refuse(
            .clock,
            "is not a clock; use wall, manual, or manual:INSTANT like manual:2027-01-01T09:00:00Z"
        )
    }

    /// Reads settings of each kind within the range their entry gives, refusing one that does not read.
    private struct Reading {
        let settings: NudgedSettings

        func refuse(_ key: NudgedSettings.Key, _ reason: String) -> DaemonError {
            let value = settings[key].map { "\"\($0)\"" } ?? "(none)"
            let code: DaemonError.Code = settings.origins[key] == .flag ? .usage : .configuration
            return DaemonError(code: code, description: "\(settings.source(of: key)) \(value) \(reason)")
        }

        func duration(_ key: NudgedSettings.Key) throws(DaemonError) -> TimeInterval {
            guard case .duration(let range) = key.entry.kind else { preconditionFailure("\(key) is not a duration") }
            guard let seconds = settings.text(key).flatMap(DurationText.seconds), range.contains(seconds) else {
                throw refuse(
                    key,
                    "is not a duration from \(DurationText.short(range.lowerBound)) to "
                        + "\(DurationText.short(range.upperBound)); use a whole number with s, m, h or d, like "
                        + "\(key.standard?.description ?? "10m")"
                )
            }
            return seconds
        }

        /// `HH:MM`, 00:00 to 23:59, as seconds after midnight.
        func timeOfDay(_ key: NudgedSettings.Key) throws(DaemonError) -> Int {
            guard let seconds = settings.text(key).flatMap(TimeOfDay.seconds) else {
                throw refuse(key, "is not a time of day; use HH:MM on the 24-hour clock, like 07:30")
            }
            return seconds
        }

        func count(_ key: NudgedSettings.Key) throws(DaemonError) -> Int {
            guard case .count(let range) = key.entry.kind else { preconditionFailure("\(key) is not a count") }
            let count = settings.number(key)
            guard range.contains(count) else {
                throw refuse(key, "is not from \(range.lowerBound) to \(range.upperBound)")
            }
            return count
        }

        func size(_ key: NudgedSettings.Key) throws(DaemonError) -> Int {
            guard case .size(let range) = key.entry.kind else { preconditionFailure("\(key) is not a size") }
            guard let bytes = settings.text(key).flatMap(NudgedSettings.Key.bytes), range.contains(bytes) else {
                throw refuse(
                    key,
                    "is not a size from \(NudgedSettings.Key.sizeText(range.lowerBound)) to "
                        + "\(NudgedSettings.Key.sizeText(range.upperBound)); use a whole number with K, M or G, like "
                        + "\(key.standard?.description ?? "16M")"
                )
            }
            return bytes
        }
    }
}
