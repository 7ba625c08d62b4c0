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
              desktop  a notification by notify-send, replaced in place when
                       the item fires again, closed when it is checked off or
                       deleted; needs a D-Bus session bus
              command  runs the --on-fire program with NUDGE_ITEM_ID,
                       NUDGE_TEXT, NUDGE_LIST, NUDGE_DUE and NUDGE_LATE
                       (seconds late) in its environment
              log      one line on stderr
            Default: journal, desktop when a session bus exists (DBUS_SESSION_BUS_ADDRESS, or \
            $XDG_RUNTIME_DIR/bus), command when --on-fire is given, and log when stderr is a terminal and there \
            is no desktop (so nudged in the foreground shows each reminder). With no journald, journal entries go \
            to stderr. The start-up log says which sinks are on and why any is off.

            Example: nudged --sinks journal,command --on-fire notify-pager --team ops

            Under systemd (Type=notify; units/ has a user and a system unit) nudged tells $NOTIFY_SOCKET READY=1 \
            once it serves, WATCHDOG=1 every half WatchdogSec= while its scheduler answers, and STOPPING=1 on \
            SIGTERM. Without NOTIFY_SOCKET it sends nothing and sets no timer.

            Exit status: 0 stopped cleanly; 1 any other failure; 3 the store cannot be used (locked by another \
            nudged, unreadable, or from a newer nudge); 4 the socket cannot be used (another nudged serves it, its \
            directory is not yours alone, or it cannot be bound); 64 bad arguments. The units do not restart \
            nudged after 3, 4 or 64: only a person can fix those.
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

    @Option(name: .long, help: ArgumentHelp("The Unix socket to serve the API on.", valueName: "path"))
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Reminders missed by less than this while nudged was down still fire, late; older ones are reported missed. A number with s, m, h or d.",
            valueName: "duration"
        )
    )
    var catchUpWindow: String = "24h"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "wall: the machine's clock. manual or manual:INSTANT: a virtual clock, starting now or at INSTANT (ISO 8601), that moves only when told to (POST /v1/clock, nudge clock); for testing. See Testing with a manual clock in the README.",
            valueName: "clock"
        )
    )
    var clock: String = "wall"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep this many of the latest events in the event history (GET /v1/events, nudge events); 1 to 10000000.",
            valueName: "count"
        )
    )
    var historyEvents: Int = HistoryLimits.standard.count

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep only the events decided within this long of the latest one (a duration, like 30d or 12h).",
            valueName: "duration"
        )
    )
    var historyAge: String = "30d"

    @Option(
        name: .long,
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level")
    )
    var logLevel: String = "info"

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
        help: ArgumentHelp("Stop an --on-fire program still running after this long.", valueName: "duration")
    )
    var onFireTimeout: String = "30s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Compact the store's change log into its snapshot once the log passes this size (K, M or G: KiB, MiB, GiB; 4K to 1G). Smaller means quicker starts and more snapshot writes; nudged also compacts when it stops.",
            valueName: "size"
        )
    )
    var compactAfter: String = "16M"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve at most this many connections at once; past it a new connection is answered 503. nudged raises its open-file limit to fit, up to the hard limit.",
            valueName: "count"
        )
    )
    var maxConnections: Int = ConnectionLimits().connections

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close a connection that has sent part of a request head but not all of it within this long.",
            valueName: "duration"
        )
    )
    var requestHeadTimeout: String = "10s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close a connection whose request body has not all come within this long of its head.",
            valueName: "duration"
        )
    )
    var requestBodyTimeout: String = "30s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Close a connection that waits this long with no request under way (event streams are never idle), or whose client reads none of an answer for this long.",
            valueName: "duration"
        )
    )
    var idleTimeout: String = "60s"

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

    public func validate() throws {
        guard DurationText.seconds(catchUpWindow) != nil else {
            throw ValidationError(
                "--catch-up-window \"\(catchUpWindow)\" is not a duration; use a whole number with s, m, h or d, like 24h or 90m"
            )
        }
        guard let timeout = DurationText.seconds(onFireTimeout), timeout > 0 else {
            throw ValidationError(
                "--on-fire-timeout \"\(onFireTimeout)\" is not a positive duration; use a whole number with s, m, h or d, like 30s"
            )
        }
        for (flag, value) in [
            ("--request-head-timeout", requestHeadTimeout), ("--request-body-timeout", requestBodyTimeout),
            ("--idle-timeout", idleTimeout),
        ] {
            guard let seconds = DurationText.seconds(value), seconds > 0, seconds <= 7 * 86_400 else {
                throw ValidationError(
                    "\(flag) \"\(value)\" is not a duration from 1s to 7d; use a whole number with s, m, h or d, like 30s"
                )
            }
        }
        guard let compaction = Self.bytes(compactAfter), (4 << 10...1 << 30).contains(compaction) else {
            throw ValidationError(
                "--compact-after \"\(compactAfter)\" is not a size from 4K to 1G; use a whole number with K, M or G, like 16M"
            )
        }
        _ = try clockChoice()
        guard (1...HistoryLimits.maximumCount).contains(historyEvents) else {
            throw ValidationError(
                "--history-events \(historyEvents) is not from 1 to \(HistoryLimits.maximumCount) events"
            )
        }
        guard let age = DurationText.seconds(historyAge), age > 0 else {
            throw ValidationError(
                "--history-age \"\(historyAge)\" is not a positive duration; use a number with s, m, h or d, like 30d"
            )
        }
        guard (1...1_000_000).contains(maxConnections) else {
            throw ValidationError("--max-connections \(maxConnections) is not from 1 to 1000000 connections")
        }
        if let sinks {
            let kinds = try SinkSelection.parse(sinks)
            if kinds.contains(.command) && onFire.isEmpty {
                throw ValidationError(
                    "--sinks names command, but no --on-fire program is given; add --on-fire PROGRAM last"
                )
            }
            if !kinds.contains(.command) && !onFire.isEmpty {
                throw ValidationError(
                    "--on-fire gives a program, but --sinks leaves out command; add command to --sinks"
                )
            }
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError(
                "--log-level \"\(logLevel)\" is not a level; use one of trace, debug, info, notice, warning, error, critical"
            )
        }
    }

    public func run() async throws {
        if checkStore { return try Self.checkStore(ServicePaths(storeFlag: store, socketFlag: socket).store) }
        var logger = Logger(label: "nudged") { OneLineLogHandler(StreamLogHandler.standardError(label: $0)) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let paths = ServicePaths(storeFlag: store, socketFlag: socket)
        do {
            let selection = SinkSelection(
                requested: try sinks.map(SinkSelection.parse),
                onFire: onFire,
                onFireTimeout: .seconds(DurationText.seconds(onFireTimeout) ?? 30),
                environment: ProcessInfo.processInfo.environment,
                onTerminal: isatty(STDERR_FILENO) == 1,
                logger: logger
            )
            try await Daemon(
                paths: paths,
                compactAfter: Self.bytes(compactAfter) ?? StoreOptions.defaultCompactionThreshold,
                catchUpWindow: DurationText.seconds(catchUpWindow) ?? 86_400,
                clock: try clockChoice(),
                historyLimits: HistoryLimits(
                    count: historyEvents,
                    age: DurationText.seconds(historyAge) ?? HistoryLimits.standard.age
                ),
                sinks: selection,
                limits: connectionLimits,
                logger: logger
            ).run()
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

    /// `--clock`: the wall clock, or a manual one starting at the instant given (now when none is).
    func clockChoice() throws -> ClockChoice {
        if clock == "wall" { return .wall }
        if clock == "manual" { return .manual(start: Date()) }
        if clock.hasPrefix("manual:") {
            let instant = String(clock.dropFirst("manual:".count))
            if let start = InstantFormat.parse(instant) { return .manual(start: start) }
            throw ValidationError(
                "--clock manual:\(instant): \"\(instant)\" is not an ISO 8601 date-time with an offset; use "
                    + "one like manual:2027-01-01T09:00:00Z"
            )
        }
        throw ValidationError(
            "--clock \"\(clock)\" is not a clock; use wall, manual, or manual:INSTANT like manual:2027-01-01T09:00:00Z"
        )
    }

    /// The connection flags, validated above.
    var connectionLimits: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.connections = maxConnections
        limits.requestHead = .seconds(Int64(DurationText.seconds(requestHeadTimeout) ?? 10))
        limits.requestBody = .seconds(Int64(DurationText.seconds(requestBodyTimeout) ?? 30))
        limits.idle = .seconds(Int64(DurationText.seconds(idleTimeout) ?? 60))
        return limits
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
    }

    let code: Code
    let description: String

    static func socket(_ sentence: String) -> DaemonError {
        DaemonError(code: .socket, description: sentence)
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
    let paths: ServicePaths
    /// Log bytes past which the store compacts.
    let compactAfter: Int
    let catchUpWindow: TimeInterval
    let clock: ClockChoice
    let historyLimits: HistoryLimits
    let sinks: SinkSelection
    let limits: ConnectionLimits
    let logger: Logger

    func run() async throws {
        // Past a file-size limit (RLIMIT_FSIZE) a save must fail with EFBIG and be answered as an error, like a
        // full disk; the default action of SIGXFSZ would kill the daemon instead.
        signal(SIGXFSZ, SIG_IGN)
        let systemdEnvironment = SystemdEnvironment.take()
        try SocketDirectory.prepare(for: paths.socket, logger: logger)
        try makeStorePrivate()
        let store = try ChecklistStore.open(
            path: paths.store,
            options: StoreOptions(compactionThreshold: compactAfter, historyLimits: historyLimits) { [logger] notice in
                logger.notice("\(notice)")
            }
        )
        // Compacts the change log into the snapshot, so the next start replays nothing.
        defer { store.close() }
        for note in store.openingNotes { logger.notice("\(note)") }
        for warning in sinks.warnings { logger.warning("\(warning)") }
        let (serviceClock, timer) = clock.make()
        if case .manual(let start) = clock {
            logger.notice("running on a manual clock, at \(InstantFormat.format(start)); it moves only when told to")
        }
        let service = ReminderService(
            store: store,
            clock: serviceClock,
            catchUpWindow: catchUpWindow,
            sinks: sinks.sinks,
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
            limits: fittedToOpenFileLimit(limits),
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
                services: [service, server] + (systemd.map { [$0] } ?? []),
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
