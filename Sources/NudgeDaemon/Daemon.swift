import Foundation
import Logging
import NIOCore
import NudgeAPI
import NudgeCalendar
import NudgeCore
import NudgeSinks
import NudgeStore
import NudgeSystem
import ServiceLifecycle

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
        try SystemCall.ignore(signal: SIGXFSZ)
        // A reload (SIGHUP) that comes before the reloader listens must not end nudged, as its default action would.
        try SystemCall.ignore(signal: SIGHUP)
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
        let zones = ZoneRulesStore()
        let foldersAtStart = await LinkedFolders.readAll(
            in: store.library,
            timeZone: .current,
            zones: zones,
            logger: logger
        )
        let (serviceClock, timer) = options.clock.make()
        if case .manual(let start) = options.clock {
            logger.notice("running on a manual clock, at \(InstantFormat.format(start)); it moves only when told to")
        }
        let service = ReminderService(
            store: store,
            clock: serviceClock,
            zones: zones,
            catchUpWindow: options.catchUpWindow,
            digestTime: options.digestTime,
            sinks: sinks.sinks,
            events: EventHub(render: APIHandler.frames),
            logger: logger,
            foldersAtStart: foldersAtStart,
            timer: timer
        )
        let folders = FolderWatcher(service: service, links: options.links, logger: logger)
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
            logger: logger,
            folders: folders
        ) {
            await systemd?.serverIsRunning()
        }
        // Gone already (removed by hand), it is as wanted.
        defer { try? SystemCall.unlink(paths.socket) }
        logger.notice(
            "nudged serving \(paths.socket) (\(paths.runtimeDirectoryReason)); store \(paths.store); \(sinks.summary)"
        )
        // Services stop in reverse order. systemd hears STOPPING=1 first; then the server stops taking connections,
        // ends the event streams and finishes the requests in flight, which the service still answers; then the
        // linked folders are no longer watched; last the service finishes its commits under way and lets the sinks
        // finish.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    service, folders, server,
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
                                logger: logger,
                                folders: folders
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
