import Foundation
import Logging
import NudgeAPI
import NudgeAPITypes
import NudgeSinks
import NudgeSystem
import ServiceLifecycle

/// nudged's side of `Type=notify`: `READY=1` once the server listens and the service has caught up (its status line
/// is a request, which the service's loop takes only after catching up), `WATCHDOG=1` while the loop answers, if systemd asked for a watchdog, and `STOPPING=1` as
/// soon as graceful shutdown begins. It exists only under a `NOTIFY_SOCKET`; without one nudged sets no timer.
///
/// Put it last in the service group, so that at shutdown it is the first to hear and `STOPPING=1` goes out before
/// the server and the service wind down.
struct SystemdService: Service {
    private let notifier: SystemdNotifier
    private let watchdog: SystemdWatchdog<EventLoopClock>?
    private let status: @Sendable () async -> String

    /// Nil when the environment names no usable notification socket.
    init?(environment: SystemdEnvironment, service: ReminderService, socket: String, logger: Logger) {
        guard let address = environment.notifySocket, let notifier = SystemdNotifier(socket: address, logger: logger)
        else { return nil }
        let status: @Sendable () async -> String = {
            (try? await APIHandler(service: service, socket: socket).health()).map(Self.status) ?? "Stopping"
        }
        self.notifier = notifier
        self.status = status
        if let ignored = environment.watchdogIgnored {
            logger.warning("not feeding the systemd watchdog: \(ignored)")
        }
        watchdog = environment.watchdogInterval.map { interval in
            SystemdWatchdog(
                interval: interval,
                clock: EventLoopClock(),
                probe: status,
                ping: { notifier.send(["WATCHDOG=1", "STATUS=\($0)"]) },
                logger: logger
            )
        }
        logger.info(
            "notifying systemd at \(address)",
            metadata: ["watchdog": "\(environment.watchdogInterval.map { "\($0)" } ?? "off")"]
        )
    }

    /// For the server's `onServerRunning`: nudged is ready.
    func serverIsRunning() async {
        notifier.send(["READY=1", "MAINPID=\(SystemCall.processID())", "STATUS=\(await status())"])
    }

    func run() async throws {
        if let watchdog {
            try? await cancelWhenGracefulShutdown { try await watchdog.run() }
        } else {
            try? await gracefulShutdown()
        }
        notifier.send(["STOPPING=1", "STATUS=Stopping"])
    }

    private static func status(_ health: Components.Schemas.Health) -> String {
        let next = health.nextDue.map { ", next due \($0.date.formatted(.iso8601))" } ?? ""
        return "Serving \(health.socket); items: \(health.items), pending: \(health.pending)\(next)"
    }
}
