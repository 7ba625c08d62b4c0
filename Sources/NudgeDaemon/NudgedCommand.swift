import ArgumentParser
import Foundation
import Logging
import NIOCore
import NudgeAPI
import NudgeCore
import NudgeSinks
import NudgeStore
import NudgeSystem
import ServiceLifecycle

/// `nudged`: the reminder service. Owns the store, keeps one pending reminder per item, fires them on time, and
/// serves the API on a Unix socket until SIGTERM or SIGINT. Its settings' flags are declared here, and described in
/// `NudgedSettings.Key.entry`.
public struct NudgedCommand: AsyncParsableCommand {
    private typealias Key = NudgedSettings.Key

    public static let configuration = CommandConfiguration(
        commandName: "nudged",
        abstract: "The nudge reminder service: keeps your checklists and fires their reminders on time.",
        discussion: """
            nudged owns the store (one binary property list) and serves the nudge API, HTTP/1.1 + JSON, on a Unix \
            socket that only your user may use. Talk to it with `nudge`, or with any HTTP client:

              curl --unix-socket "$XDG_RUNTIME_DIR/nudge/nudged.sock" http://localhost/v1/items

            Paths: --store, else $NUDGE_STORE, else $XDG_DATA_HOME/nudge/Checklists.plist \
            (~/.local/share/nudge/Checklists.plist). --socket, else $NUDGE_SOCKET, else \
            $XDG_RUNTIME_DIR/nudge/nudged.sock; with XDG_RUNTIME_DIR unset, /run/user/$UID if it exists, else \
            /tmp/nudge-$UID, in a 0700 directory.

            On start, reminders that fell due while nudged was not running fire once, marked late, if they are \
            within the catch-up window, and are reported missed otherwise. SIGTERM or SIGINT stop it cleanly; \
            every change it acknowledged is already on disk.

            Connections: HTTP/1.1, kept alive between requests. A connection is closed when a request head has \
            not come whole \(Key.requestHeadTimeout.standardText) after its first byte (--request-head-timeout), a \
            body \(Key.requestBodyTimeout.standardText) after its head (--request-body-timeout), or when no request \
            is under way for \(Key.idleTimeout.standardText) (--idle-timeout; an event stream is never idle), or its \
            client reads none of an answer for as long. Past --max-connections \
            (\(Key.maxConnections.standardText)) a new connection is answered 503. On SIGTERM a request still being \
            sent is dropped and an answer under way gets 1 s.

            Sinks (--sinks): where a reminder goes when it fires.
              journal  each decision (scheduled, replaced, cancelled, fired,
                       missed) as a structured entry, SYSLOG_IDENTIFIER=nudge;
                       `journalctl NUDGE_EVENT=fired` lists fired reminders
              desktop  a notification on the session bus, replaced in place
                       when the item fires again, closed when it is checked off
                       or deleted; Done and Snooze buttons where the server
                       offers actions (--snooze-length, \(Key.snoozeLength.standardText))
              command  runs the --on-fire program with NUDGE_ITEM_ID,
                       NUDGE_TEXT, NUDGE_LIST, NUDGE_DUE and NUDGE_LATE
                       (seconds late) in its environment
              log      one line on stderr
            Default: journal, desktop when a session bus exists (DBUS_SESSION_BUS_ADDRESS, or \
            $XDG_RUNTIME_DIR/bus), command when --on-fire is given, and log when stderr is a terminal and there \
            is no desktop (so nudged in the foreground shows each reminder). With no journald, journal entries go \
            to stderr. The start-up log says which sinks are on and why any is off.

            Items due on a day without a time do not fire one by one: at --digest-time (09:00 in nudged's zone) the \
            day's digest brings them and the overdue ones to each sink at once, as one notification and one journal \
            entry; one added to the day after that follows at once.

            Example: nudged --sinks journal,command --on-fire notify-pager --team ops

            Settings: each option may also come from the environment (NUDGE_ and the option in capitals: \
            --catch-up-window is NUDGE_CATCH_UP_WINDOW) or from a JSON config file, --config, else $NUDGE_CONFIG, \
            else $XDG_CONFIG_HOME/nudge/config.json (~/.config/nudge/config.json) if it exists:

              {"sinks": ["journal", "log"], "catchUpWindow": "2h", "maxConnections": 256}

            A flag wins over the environment, which wins over the file, which wins over the default; \
            --print-config shows every value and where it came from. SIGHUP (systemctl reload) reads the file \
            again: a new catchUpWindow or logLevel applies at once, the log says which other changes need a restart, and a \
            bad file keeps the running settings. At start, a bad file is refused naming its line and key (exit 78).

            Under systemd (Type=notify; units/ has a user and a system unit) nudged tells $NOTIFY_SOCKET READY=1 \
            once it serves, WATCHDOG=1 every half WatchdogSec= while its scheduler answers, and STOPPING=1 on \
            SIGTERM. Without NOTIFY_SOCKET it sends nothing and sets no timer.

            Exit status: 0 stopped cleanly; 1 any other failure; 3 the store cannot be used (locked by another \
            nudged, unreadable, or from a newer nudge); 4 the socket cannot be used (another nudged serves it, its \
            directory is not yours alone, or it cannot be bound); 64 bad arguments; 78 a bad setting in the \
            environment or the config file. The units do not restart nudged after 3, 4, 64 or 78: only a person \
            can fix those.
            """,
        version: NudgeVersion.current
    )

    @Option(help: NudgedSettings.Key.store.help)
    var store: String?

    @Flag(
        help: """
            Read and verify the store (the snapshot and its change log) as a start would, print what it holds, \
            change nothing, and exit: 0 sound, 3 not. Safe while nudged runs.
            """
    )
    var checkStore = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The config file (default: $NUDGE_CONFIG, else $XDG_CONFIG_HOME/nudge/config.json, used if it exists).",
            valueName: "path"
        )
    )
    var config: String?

    @Flag(help: "Print every setting, its value and where it came from (flag, environment, file, default), and exit.")
    var printConfig = false

    @Option(help: NudgedSettings.Key.socket.help)
    var socket: String?

    @Option(help: NudgedSettings.Key.catchUpWindow.help)
    var catchUpWindow: String?

    @Option(help: NudgedSettings.Key.clock.help)
    var clock: String?

    @Option(help: NudgedSettings.Key.historyEvents.help)
    var historyEvents: Int?

    @Option(help: NudgedSettings.Key.historyAge.help)
    var historyAge: String?

    @Option(help: NudgedSettings.Key.logLevel.help)
    var logLevel: String?

    @Option(help: NudgedSettings.Key.sinks.help)
    var sinks: String?

    @Option(help: NudgedSettings.Key.onFireTimeout.help)
    var onFireTimeout: String?

    @Option(help: NudgedSettings.Key.snoozeLength.help)
    var snoozeLength: String?

    @Option(help: NudgedSettings.Key.compactAfter.help)
    var compactAfter: String?

    @Option(help: NudgedSettings.Key.digestTime.help)
    var digestTime: String?

    @Option(help: NudgedSettings.Key.links.help)
    var links: String?

    @Option(help: NudgedSettings.Key.maxConnections.help)
    var maxConnections: Int?

    @Option(help: NudgedSettings.Key.requestHeadTimeout.help)
    var requestHeadTimeout: String?

    @Option(help: NudgedSettings.Key.requestBodyTimeout.help)
    var requestBodyTimeout: String?

    @Option(help: NudgedSettings.Key.idleTimeout.help)
    var idleTimeout: String?

    @Option(name: .customLong("on-fire"), parsing: .remaining, help: NudgedSettings.Key.onFire.help)
    var onFire: [String] = []

    public init() {}

    /// The settings given as flags, by their key in the config file: each from the property its entry names.
    var flags: [NudgedSettings.Key: NudgedSettings.Value] {
        var flags: [NudgedSettings.Key: NudgedSettings.Value] = [:]
        for key in NudgedSettings.Key.allCases {
            switch self[keyPath: key.entry.property] {
            case let words as [String] where !words.isEmpty: flags[key] = .list(words)
            case let number as Int: flags[key] = .number(number)
            case let text as String:
                if case .list = key.entry.kind {
                    flags[key] = .list(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
                } else {
                    flags[key] = .text(text)
                }
            default: break
            }
        }
        return flags
    }

    public func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (configFile, named) = NudgedSettings.configPath(flag: config, environment: environment)
        // Read at start, and again on SIGHUP: the same flags and environment, the config file as it is then.
        let read: Daemon.Reload = { [flags] in
            let settings = try await NudgedSettings.read(
                flags: flags,
                environment: environment,
                configFile: configFile,
                named: named
            )
            return try DaemonOptions(settings, environment: environment)
        }
        do {
            let options = try await read()
            if printConfig {
                let paths = [NudgedSettings.Key.store: options.paths.store, .socket: options.paths.socket]
                return print(options.settings.lines(workedOut: paths).joined(separator: "\n"))
            }
            if checkStore { return try Self.checkStore(options.paths.store) }
            let logLevel = SharedLogLevel(options.logLevel)
            let logger = Logger(label: "nudged") {
                OneLineLogHandler(StreamLogHandler.standardError(label: $0), level: logLevel)
            }
            let selection = SinkSelection(
                requested: options.sinks,
                onFire: options.onFire,
                onFireTimeout: .seconds(options.onFireTimeout),
                snoozeLength: options.snoozeLength,
                shownFile: options.paths.notificationsFile,
                environment: environment,
                onTerminal: SystemCall.isTerminal(.standardError),
                logger: logger
            )
            try await Daemon(options: options, sinks: selection, logger: logger, logLevel: logLevel, reload: read).run()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let failure = DaemonError.from(error)
            FileHandle.standardError.write(Data("nudged: \(failure.description)\n".utf8))
            throw ExitCode(failure.code.rawValue)
        }
    }

    /// `--check-store`: reads and verifies the store, prints what it holds, changes nothing.
    static func checkStore(_ path: String) throws {
        do {
            let report = try StoreReport.inspect(path: path)
            print(report.lines.joined(separator: "\n"))
        } catch {
            FileHandle.standardError.write(Data("nudged: \(error.description)\n".utf8))
            throw ExitCode(DaemonError.Code.store.rawValue)
        }
    }
}
