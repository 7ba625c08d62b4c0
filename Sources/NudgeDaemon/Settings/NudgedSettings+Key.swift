import ArgumentParser
import Foundation
import NudgeCore
import NudgeStore

extension NudgedSettings {
    /// The settings, by their key in the config file; each is described once, in `entry`: from it come the flag and
    /// its help, the environment variable, the config file's key, `--print-config`, its default, and how
    /// `DaemonOptions` reads and checks it.
    enum Key: String, CaseIterable, Sendable {
        case store, socket, sinks, onFire, onFireTimeout, catchUpWindow, clock, historyEvents, historyAge, logLevel
        case compactAfter, maxConnections, requestHeadTimeout, requestBodyTimeout, idleTimeout, snoozeLength
        case digestTime, links

        /// What a setting's value is, which says how it is read and checked.
        enum Kind: Sendable {
            /// A file's path.
            case path
            /// Words, from a list or one comma-separated string.
            case list
            /// A length of time: a whole number with s, m, h or d, within the range.
            case duration(ClosedRange<TimeInterval>)
            /// A whole number within the range.
            case count(ClosedRange<Int>)
            /// A size in bytes: a whole number with K, M or G (powers of 1024), within the range.
            case size(ClosedRange<Int>)
            /// One of a set of words (and what else it takes, said in the help).
            case word
            /// A time of day, HH:MM (24-hour).
            case timeOfDay
        }

        /// Everything said about a setting.
        struct Entry: Sendable {
            /// Where `NudgedCommand` holds its flag (ArgumentParser needs each declared there).
            let property: PartialKeyPath<NudgedCommand> & Sendable
            let kind: Kind
            /// What the flag's value is called in `--help`.
            let valueName: String
            /// What it does, for `--help`; its default is added from `standard`.
            let help: String
            /// Its value when nothing gives one; nil: none (the store's and socket's paths are worked out, the sinks
            /// chosen by what the machine has).
            var standard: Value?
            /// Whether a reload (SIGHUP) applies it in a running nudged; the rest needs a restart.
            var reloads = false
        }

        var entry: Entry {
            let forever: TimeInterval = 100 * 366 * 86_400
            let week: TimeInterval = 7 * 86_400
            switch self {
            case .store:
                return Entry(
                    property: \NudgedCommand.store,
                    kind: .path,
                    valueName: "path",
                    help: "The store file (default: $XDG_DATA_HOME/nudge/Checklists.plist)."
                )
            case .socket:
                return Entry(
                    property: \NudgedCommand.socket,
                    kind: .path,
                    valueName: "path",
                    help: "The Unix socket to serve the API on (default: $XDG_RUNTIME_DIR/nudge/nudged.sock)."
                )
            case .sinks:
                return Entry(
                    property: \NudgedCommand.sinks,
                    kind: .list,
                    valueName: "list",
                    help: "Where reminders go: a comma-separated list of journal, desktop, command, log. Default: the "
                        + "journal; the desktop when a session bus exists; the command when --on-fire is given; the log "
                        + "when stderr is a terminal and there is no desktop."
                )
            case .onFire:
                return Entry(
                    property: \NudgedCommand.onFire,
                    kind: .list,
                    valueName: "program [arg...]",
                    help: "Run this program, without a shell, for every reminder that fires. Must come last: every "
                        + "word after it is the program and its arguments.",
                    standard: .list([])
                )
            case .links:
                return Entry(
                    property: \NudgedCommand.links,
                    kind: .list,
                    valueName: "list",
                    help:
                        "Lists kept in folders of task files (vdir: todoman's, khal's, vdirsyncer's), each NAME=FOLDER "
                        + "(an absolute path), comma-separated: when nudged starts, each list is made if there is none "
                        + "of that name and linked to its folder, as 'nudge list link NAME FOLDER' does. A link made "
                        + "with nudge stays; one left out here is not undone (nudge list unlink).",
                    standard: .list([])
                )
            case .onFireTimeout:
                return Entry(
                    property: \NudgedCommand.onFireTimeout,
                    kind: .duration(1...forever),
                    valueName: "duration",
                    help: "Stop an --on-fire program still running after this long.",
                    standard: .text("30s")
                )
            case .catchUpWindow:
                return Entry(
                    property: \NudgedCommand.catchUpWindow,
                    kind: .duration(0...forever),
                    valueName: "duration",
                    help: "Reminders missed by less than this while nudged was down still fire, late; older ones are "
                        + "reported missed. A number with s, m, h or d. A reload (SIGHUP) applies a new one.",
                    standard: .text(DurationText.short(ReminderScheduler.defaultCatchUpWindow)),
                    reloads: true
                )
            case .clock:
                return Entry(
                    property: \NudgedCommand.clock,
                    kind: .word,
                    valueName: "clock",
                    help: "wall: the machine's clock. manual or manual:INSTANT: a virtual clock, starting now or at "
                        + "INSTANT (ISO 8601), that moves only when told to (POST /v1/clock, nudge clock); for testing. "
                        + "See docs/MANUAL-CLOCK.md.",
                    standard: .text("wall")
                )
            case .historyEvents:
                return Entry(
                    property: \NudgedCommand.historyEvents,
                    kind: .count(1...HistoryLimits.maximumCount),
                    valueName: "count",
                    help: "Keep this many of the latest events in the event history (GET /v1/events, nudge events).",
                    standard: .number(HistoryLimits.standard.count)
                )
            case .historyAge:
                return Entry(
                    property: \NudgedCommand.historyAge,
                    kind: .duration(1...forever),
                    valueName: "duration",
                    help: "Keep only the events decided within this long of the latest one.",
                    standard: .text("30d")
                )
            case .logLevel:
                return Entry(
                    property: \NudgedCommand.logLevel,
                    kind: .word,
                    valueName: "level",
                    help:
                        "trace, debug, info, notice, warning, error or critical. A reload (SIGHUP) applies a new one.",
                    standard: .text("info"),
                    reloads: true
                )
            case .compactAfter:
                return Entry(
                    property: \NudgedCommand.compactAfter,
                    kind: .size(4 << 10...1 << 30),
                    valueName: "size",
                    help: "Compact the store's change log into its snapshot once the log passes this size (K, M or G: "
                        + "KiB, MiB, GiB). Smaller means quicker starts and more snapshot writes; nudged also compacts "
                        + "when it stops.",
                    standard: .text("16M")
                )
            case .maxConnections:
                return Entry(
                    property: \NudgedCommand.maxConnections,
                    kind: .count(1...1_000_000),
                    valueName: "count",
                    help: "Serve at most this many connections at once; past it a new connection is answered 503. "
                        + "nudged raises its open-file limit to fit, up to the hard limit.",
                    standard: .number(ConnectionLimits().connections)
                )
            case .requestHeadTimeout:
                return Entry(
                    property: \NudgedCommand.requestHeadTimeout,
                    kind: .duration(1...week),
                    valueName: "duration",
                    help: "Close a connection that has sent part of a request head but not all of it within this long.",
                    standard: .text("10s")
                )
            case .requestBodyTimeout:
                return Entry(
                    property: \NudgedCommand.requestBodyTimeout,
                    kind: .duration(1...week),
                    valueName: "duration",
                    help: "Close a connection whose request body has not all come within this long of its head.",
                    standard: .text("30s")
                )
            case .idleTimeout:
                return Entry(
                    property: \NudgedCommand.idleTimeout,
                    kind: .duration(1...week),
                    valueName: "duration",
                    help: "Close a connection that waits this long with no request under way (event streams are never "
                        + "idle), or whose client reads none of an answer for this long.",
                    standard: .text("60s")
                )
            case .snoozeLength:
                return Entry(
                    property: \NudgedCommand.snoozeLength,
                    kind: .duration(60...forever),
                    valueName: "duration",
                    help: "How long the Snooze button of a desktop notification snoozes its reminder for.",
                    standard: .text("10m")
                )
            case .digestTime:
                return Entry(
                    property: \NudgedCommand.digestTime,
                    kind: .timeOfDay,
                    valueName: "HH:MM",
                    help: "When the day's digest of items due on a day (without a time) goes out, in nudged's time "
                        + "zone: one notification and one journal entry listing those due that day and those overdue. "
                        + "An item added to the day after it follows at once.",
                    standard: .text("09:00")
                )
            }
        }

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

        var standard: Value? { entry.standard }

        /// Its default as text, for prose.
        var standardText: String { standard?.description ?? "none" }

        /// Its flag's help: what it does, the range it takes, and its default.
        var help: ArgumentHelp {
            let entry = entry
            var notes: [String] = []
            switch entry.kind {
            case .count(let range): notes.append("from \(range.lowerBound) to \(range.upperBound)")
            case .duration(let range) where range.lowerBound > 1:
                notes.append("at least \(DurationText.short(range.lowerBound))")
            case .size(let range):
                notes.append("\(Self.sizeText(range.lowerBound)) to \(Self.sizeText(range.upperBound))")
            default: break
            }
            if let standard = entry.standard, standard != .list([]) { notes.append("default \(standard)") }
            let note = notes.joined(separator: "; ")
            let sentence = note.isEmpty ? "" : " " + note.prefix(1).uppercased() + note.dropFirst() + "."
            return ArgumentHelp(entry.help + sentence, valueName: entry.valueName)
        }

        /// What a value of it looks like, for an error about one of the wrong type.
        var expected: String {
            switch entry.kind {
            case .count: "a whole number, like \(standard?.description ?? "1")"
            case .list: "a list of strings, like [\"journal\", \"log\"]"
            default: "a string, like \"\(standard?.description ?? "/path")\""
            }
        }

        /// `4K`, `16M`, `1G` (powers of 1024), or plain bytes.
        static func bytes(_ text: String) -> Int? {
            let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
            if let last = text.last, let unit = units[last], let amount = Int(text.dropLast()),
                (0...1 << 20).contains(amount)
            {
                return amount * unit
            }
            return Int(text).flatMap { $0 >= 0 ? $0 : nil }
        }

        static func sizeText(_ bytes: Int) -> String {
            for (unit, size) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes % size == 0 {
                return "\(bytes / size)\(unit)"
            }
            return "\(bytes)"
        }
    }
}
