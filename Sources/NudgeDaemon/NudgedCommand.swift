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
/// serves the API on a Unix socket until SIGTERM or SIGINT.
public struct NudgedCommand: AsyncParsableCommand {
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
            not come whole 10 s after its first byte (--request-head-timeout), a body 30 s after its head \
            (--request-body-timeout), or when no request is under way for 60 s (--idle-timeout; an event stream \
            is never idle), or its client reads none of an answer for as long. Past --max-connections (4096) a new connection is answered 503. On SIGTERM a request \
            still being sent is dropped and an answer under way gets 1 s.

            Sinks (--sinks): where a reminder goes when it fires.
              journal  each decision (scheduled, replaced, cancelled, fired,
                       missed) as a structured entry, SYSLOG_IDENTIFIER=nudge;
                       `journalctl NUDGE_EVENT=fired` lists fired reminders
              desktop  a notification on the session bus, replaced in place
                       when the item fires again, closed when it is checked off
                       or deleted; Done and Snooze buttons where the server
                       offers actions (--snooze-length, 10m)
              command  runs the --on-fire program with NUDGE_ITEM_ID,
                       NUDGE_TEXT, NUDGE_LIST, NUDGE_DUE and NUDGE_LATE
                       (seconds late) in its environment
              log      one line on stderr
            Default: journal, desktop when a session bus exists (DBUS_SESSION_BUS_ADDRESS, or \
            $XDG_RUNTIME_DIR/bus), command when --on-fire is given, and log when stderr is a terminal and there \
            is no desktop (so nudged in the foreground shows each reminder). With no journald, journal entries go \
            to stderr. The start-up log says which sinks are on and why any is off.

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

    @Option(name: .long, help: ArgumentHelp("The store file.", valueName: "path"))
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

    @Option(name: .long, help: ArgumentHelp("The Unix socket to serve the API on.", valueName: "path"))
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Reminders missed by less than this while nudged was down still fire, late; older ones are reported missed. A number with s, m, h or d (default 24h). A reload (SIGHUP) applies a new one.",
            valueName: "duration"
        )
    )
    var catchUpWindow: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "wall (the default): the machine's clock. manual or manual:INSTANT: a virtual clock, starting now or at INSTANT (ISO 8601), that moves only when told to (POST /v1/clock, nudge clock); for testing. See Testing with a manual clock in the README.",
            valueName: "clock"
        )
    )
    var clock: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep this many of the latest events in the event history (GET /v1/events, nudge events); 1 to 10000000 (default 100000).",
            valueName: "count"
        )
    )
    var historyEvents: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep only the events decided within this long of the latest one (a duration, like 30d, the default, or 12h).",
            valueName: "duration"
        )
    )
    var historyAge: String?

    @Option(
        name: .long,
        help: ArgumentHelp("trace, debug, info (the default), notice, warning, error or critical.", valueName: "level")
    )
    var logLevel: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where reminders go: a comma-separated list of journal, desktop, command, log. Default: see Sinks above.",
            valueName: "list"
        )
    )
    var sinks: String?

    @Option(
        name: .customLong("on-fire-timeout"),
        help: ArgumentHelp(
            "Stop an --on-fire program still running after this long (default 30s).",
            valueName: "duration"
        )
    )
    var onFireTimeout: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long the Snooze button of a desktop notification snoozes its reminder for (at least 1m; default 10m).",
            valueName: "duration"
        )
    )
    var snoozeLength: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Compact the store's change log into its snapshot once the log passes this size (K, M or G: KiB, MiB, GiB; 4K to 1G; default 16M). Smaller means quicker starts and more snapshot writes; nudged also compacts when it stops.",
            valueName: "size"
        )
    )
    var compactAfter: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve at most this many connections at once (default 4096); past it a new connection is answered 503. nudged raises its open-file limit to fit, up to the hard limit.",
            valueName: "count"
        )
    )
    var maxConnections: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close a connection that has sent part of a request head but not all of it within this long (default 10s).",
            valueName: "duration"
        )
    )
    var requestHeadTimeout: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close a connection whose request body has not all come within this long of its head (default 30s).",
            valueName: "duration"
        )
    )
    var requestBodyTimeout: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close a connection that waits this long with no request under way (event streams are never idle), or whose client reads none of an answer for this long (default 60s).",
            valueName: "duration"
        )
    )
    var idleTimeout: String?

    @Option(
        name: .customLong("on-fire"),
        parsing: .remaining,
        help: ArgumentHelp(
            "Run this program, without a shell, for every reminder that fires. Must come last: every word after it is the program and its arguments.",
            valueName: "program [arg...]"
        )
    )
    var onFire: [String] = []

    public init() {}

    /// The settings given as flags, by their key in the config file.
    var flags: [NudgedSettings.Key: NudgedSettings.Value] {
        var flags: [NudgedSettings.Key: NudgedSettings.Value] = [:]
        let texts: [(NudgedSettings.Key, String?)] = [
            (.store, store), (.socket, socket), (.onFireTimeout, onFireTimeout), (.catchUpWindow, catchUpWindow),
            (.clock, clock), (.historyAge, historyAge), (.logLevel, logLevel), (.compactAfter, compactAfter),
            (.requestHeadTimeout, requestHeadTimeout), (.requestBodyTimeout, requestBodyTimeout),
            (.idleTimeout, idleTimeout), (.snoozeLength, snoozeLength),
        ]
        for case (let key, let text?) in texts { flags[key] = .text(text) }
        if let historyEvents { flags[.historyEvents] = .number(historyEvents) }
        if let maxConnections { flags[.maxConnections] = .number(maxConnections) }
        if let sinks {
            flags[.sinks] = .list(sinks.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        }
        if !onFire.isEmpty { flags[.onFire] = .list(onFire) }
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
                onTerminal: isatty(STDERR_FILENO) == 1,
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
}

/// Which clock nudged runs on.
enum ClockChoice: Sendable {
    /// The machine's wall clock, and a timerfd that wakes at its instants.
    case wall
    /// A virtual clock that moves only when told to (`POST /v1/clock`), starting at `start`.
    case manual(start: Date)

    /// The clock the service reads, and the timer it arms.
    func make() -> (clock: any WallClock, timer: ReminderService.MakeTimer) {
        switch self {
        case .wall: (SystemWallClock(), { try WallClockTimer(onWake: $0) })
        case .manual(let start): (ManualWallClock(start), { _ in IdleTimer() })
        }
    }
}

/// Why nudged could not start or had to stop: one sentence, and the exit status it ends with (`nudged --help`).
struct DaemonError: Error, CustomStringConvertible {
    enum Code: Int32 {
        case failure = 1
        case store = 3
        case socket = 4
        /// A bad flag, as ArgumentParser's own refusals.
        case usage = 64
        /// A bad setting in the environment or the config file (sysexits' EX_CONFIG).
        case configuration = 78
    }

    let code: Code
    let description: String

    static func socket(_ sentence: String) -> DaemonError {
        DaemonError(code: .socket, description: sentence)
    }

    static func configuration(_ sentence: String) -> DaemonError {
        DaemonError(code: .configuration, description: sentence)
    }

    /// Whatever ended a run, with its status: a store that cannot be used is the store's; the rest is a failure.
    static func from(_ error: any Error) -> DaemonError {
        switch error {
        case let error as DaemonError: error
        case let error as StoreError: DaemonError(code: .store, description: error.description)
        // What binding the API's socket can raise.
        case let error as IOError: DaemonError(code: .socket, description: "cannot serve the socket: \(error)")
        case let error as SocketAddressError:
            DaemonError(code: .socket, description: "cannot serve the socket: \(error)")
        default: DaemonError(code: .failure, description: "\(error)")
        }
    }
}

/// One run of the service, from opening the store to removing the socket.
struct Daemon {
    let options: DaemonOptions
    let sinks: SinkSelection
    let logger: Logger
    let logLevel: SharedLogLevel
    /// Reads the settings again (SIGHUP): the same flags and environment, the config file as it is now.
    typealias Reload = @Sendable () async throws -> DaemonOptions
    let reload: Reload

    var paths: ServicePaths { options.paths }

    func run() async throws {
        // Past a file-size limit (RLIMIT_FSIZE) a save must fail with EFBIG and be answered as an error, like a
        // full disk; the default action of SIGXFSZ would kill the daemon instead.
        signal(SIGXFSZ, SIG_IGN)
        // A reload (SIGHUP) that comes before the reloader listens must not end nudged, as its default action would.
        signal(SIGHUP, SIG_IGN)
        let systemdEnvironment = SystemdEnvironment.take()
        try SocketDirectory.prepare(for: paths.socket, logger: logger)
        try makeStorePrivate()
        let store = try ChecklistStore.open(
            path: paths.store,
            options: StoreOptions(
                compactionThreshold: options.compactAfter,
                historyLimits: options.historyLimits
            ) { [logger] notice in
                logger.notice("\(notice)")
            }
        )
        // Compacts the change log into the snapshot, so the next start replays nothing.
        defer { store.close() }
        for note in store.openingNotes { logger.notice("\(note)") }
        for warning in sinks.warnings { logger.warning("\(warning)") }
        await sinks.desktop?.restore()
        let (serviceClock, timer) = options.clock.make()
        if case .manual(let start) = options.clock {
            logger.notice("running on a manual clock, at \(InstantFormat.format(start)); it moves only when told to")
        }
        let service = ReminderService(
            store: store,
            clock: serviceClock,
            catchUpWindow: options.catchUpWindow,
            sinks: sinks.sinks,
            events: EventHub(render: APIHandler.frames),
            logger: logger,
            timer: timer
        )
        try SocketDirectory.removeStaleSocket(at: paths.socket)
        let systemd = SystemdService(
            environment: systemdEnvironment,
            service: service,
            socket: paths.socket,
            logger: logger
        )
        let server = try APIServer.make(
            service: service,
            socket: paths.socket,
            limits: fittedToOpenFileLimit(options.limits),
            logger: logger
        ) {
            await systemd?.serverIsRunning()
        }
        defer { unlink(paths.socket) }
        logger.notice(
            "nudged serving \(paths.socket) (\(paths.runtimeDirectoryReason)); store \(paths.store); \(sinks.summary)"
        )
        // Services stop in reverse order. systemd hears STOPPING=1 first; then the server stops taking connections,
        // ends the event streams and finishes the requests in flight, which the service still answers; last the
        // service finishes its commits under way and lets the sinks finish.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    service, server,
                    ConfigurationReloader(
                        running: options,
                        reload: reload,
                        service: service,
                        logLevel: logLevel,
                        logger: logger
                    ),
                ]
                    + (sinks.desktop.map {
                        [
                            NotificationListener(
                                desktop: $0,
                                service: service,
                                snoozeLength: options.snoozeLength,
                                logger: logger
                            )
                        ]
                    } ?? [])
                    + (systemd.map { [$0] } ?? []),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.notice("nudged stopped; every acknowledged change is on disk")
    }

    /// The store 0600, and its directory 0700 when it is nudge's own; the log says what was looser. (A new store
    /// and a new directory are made that way.)
    private func makeStorePrivate() throws {
        let directory = (paths.store as NSString).deletingLastPathComponent
        var tightened: [(path: String, mode: mode_t)] = []
        do {
            if PrivateMode.isNudgeDirectory(directory), let was = try PrivateMode.tighten(directory, to: 0o700) {
                tightened.append((directory, was))
            }
            if let was = try PrivateMode.tighten(paths.store, to: 0o600) { tightened.append((paths.store, was)) }
        } catch {
            throw DaemonError(code: .store, description: "cannot make the store \(paths.store) private: \(error)")
        }
        for (path, was) in tightened {
            let now = path == paths.store ? "600" : "700"
            logger.notice("made \(path) private: its mode was \(String(was, radix: 8)), now \(now)")
        }
    }

    /// Raises the open-file limit to fit the connections and the files nudged keeps besides; where the hard limit (or
    /// a unit's system-call filter) leaves less room, serves fewer connections, and says so.
    private func fittedToOpenFileLimit(_ limits: ConnectionLimits) -> ConnectionLimits {
        // Besides connections: what is open now (event loops, the store, its lock, the journal), and room for what
        // opens later (pipes to the programs the sinks run, the store's temporary file).
        let besides = ((try? SystemCall.directoryEntries("/proc/self/fd").count) ?? 64) + 48
        let wanted = limits.openFiles(besides: besides)
        var limit = wanted
        do {
            let (soft, hard) = try SystemCall.openFileLimits()
            limit = min(wanted, hard)
            if soft < limit {
                do {
                    try SystemCall.setOpenFileLimit(soft: limit)
                } catch {
                    logger.warning("cannot raise the open-file limit from \(soft) to \(limit): \(error)")
                    limit = soft
                }
            } else {
                limit = soft
            }
        } catch {
            logger.warning("cannot read the open-file limit: \(error)")
        }
        guard limit < wanted else { return limits }
        var fitted = limits
        fitted.connections = ConnectionLimits.connections(fitting: limit, besides: besides)
        let room = "\(fitted.connections) connection\(fitted.connections == 1 ? "" : "s")"
        logger.warning(
            "the open-file limit (\(limit)) leaves room for \(room), not \(limits.connections) (--max-connections); raise it with LimitNOFILE= in the unit or ulimit -n"
        )
        return fitted
    }
}
