import ArgumentParser
import Foundation
import Logging
import NIOCore
import NudgeAPI
import NudgeCore
import NudgeSinks
import NudgeStore
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
            $XDG_RUNTIME_DIR/bus), and command when --on-fire is given. With no journald, journal entries go to \
            stderr. The start-up log says which sinks are on and why any is off.

            Example: nudged --sinks journal,command --on-fire notify-pager --team ops

            Under systemd (Type=notify; units/ has a user and a system unit) nudged tells $NOTIFY_SOCKET READY=1 \
            once it serves, WATCHDOG=1 every half WatchdogSec= while its scheduler answers, and STOPPING=1 on \
            SIGTERM. Without NOTIFY_SOCKET it sends nothing and sets no timer.

            Exit status: 0 stopped cleanly; 1 any other failure; 3 the store cannot be used (locked by another \
            nudged, unreadable, or from a newer nudge); 4 the socket cannot be used (another nudged serves it, its \
            directory is not yours alone, or it cannot be bound); 64 bad arguments. The units do not restart \
            nudged after 3, 4 or 64: only a person can fix those.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The store file.", valueName: "path"))
    var store: String?

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
        guard Self.seconds(catchUpWindow) != nil else {
            throw ValidationError(
                "--catch-up-window \"\(catchUpWindow)\" is not a duration; use a whole number with s, m, h or d, like 24h or 90m"
            )
        }
        guard let timeout = Self.seconds(onFireTimeout), timeout > 0 else {
            throw ValidationError(
                "--on-fire-timeout \"\(onFireTimeout)\" is not a positive duration; use a whole number with s, m, h or d, like 30s"
            )
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
        var logger = Logger(label: "nudged") { OneLineLogHandler(StreamLogHandler.standardError(label: $0)) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let paths = ServicePaths(storeFlag: store, socketFlag: socket)
        do {
            let selection = SinkSelection(
                requested: try sinks.map(SinkSelection.parse),
                onFire: onFire,
                onFireTimeout: .seconds(Self.seconds(onFireTimeout) ?? 30),
                environment: ProcessInfo.processInfo.environment,
                logger: logger
            )
            try await Daemon(
                paths: paths,
                catchUpWindow: Self.seconds(catchUpWindow) ?? 86_400,
                sinks: selection,
                logger: logger
            ).run()
        } catch {
            let failure = DaemonError.from(error)
            FileHandle.standardError.write(Data("nudged: \(failure.description)\n".utf8))
            throw ExitCode(failure.code.rawValue)
        }
    }

    /// `90s`, `15m`, `24h`, `2d`, or plain seconds.
    static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let last = text.last, let unit = units[last], let amount = Int(text.dropLast()), amount >= 0 {
            return TimeInterval(amount) * unit
        }
        return Int(text).flatMap { $0 >= 0 ? TimeInterval($0) : nil }
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
    let catchUpWindow: TimeInterval
    let sinks: SinkSelection
    let logger: Logger

    func run() async throws {
        // Past a file-size limit (RLIMIT_FSIZE) a save must fail with EFBIG and be answered as an error, like a
        // full disk; the default action of SIGXFSZ would kill the daemon instead.
        signal(SIGXFSZ, SIG_IGN)
        let systemdEnvironment = SystemdEnvironment.take()
        try SocketDirectory.prepare(for: paths.socket)
        let store = try ChecklistStore.open(path: paths.store)
        defer { store.close() }
        for warning in sinks.warnings { logger.warning("\(warning)") }
        let service = ReminderService(
            store: store,
            clock: SystemWallClock(),
            catchUpWindow: catchUpWindow,
            sinks: sinks.sinks,
            logger: logger
        )
        try SocketDirectory.removeStaleSocket(at: paths.socket)
        let systemd = SystemdService(
            environment: systemdEnvironment,
            service: service,
            socket: paths.socket,
            logger: logger
        )
        let server = try APIServer.make(service: service, socket: paths.socket, logger: logger) {
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
}
