import Logging
import NudgeSinks
import ServiceLifecycle
import UnixSignals

/// Reads the settings again on SIGHUP (`systemctl reload`, the units' `ExecReload=`): applies what can change at run
/// time, says in the log what changed and what needs a restart, and keeps the running settings, saying why, when the
/// new ones do not read.
struct ConfigurationReloader: Service {
    let running: DaemonOptions
    let reload: Daemon.Reload
    let service: ReminderService
    let logLevel: SharedLogLevel
    let logger: Logger

    func run() async throws {
        // What runs: the settings at start, with the changes a reload applied.
        var current = running.settings
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            let next: DaemonOptions
            do {
                next = try await reload()
            } catch {
                logger.error("cannot reload the configuration, so it stays as it was: \(error)")
                continue
            }
            let changed = next.settings.changes(from: current)
            guard !changed.isEmpty else {
                logger.notice("reloaded the configuration from \(next.settings.file): nothing changed")
                continue
            }
            var said: [String] = []
            for key in changed {
                let change =
                    "\(key.rawValue) \(current[key]?.description ?? "-") → \(next.settings[key]?.description ?? "-")"
                guard key.entry.reloads else {
                    said.append(change + " (needs a restart)")
                    continue
                }
                do {
                    switch key {
                    case .catchUpWindow: try await service.setCatchUpWindow(next.catchUpWindow)
                    case .logLevel: logLevel.level = next.logLevel
                    default: break
                    }
                    current = current.replacing(key, from: next.settings)
                    said.append(change + " (applied)")
                } catch {
                    said.append(change + " (not applied: \(error))")
                }
            }
            logger.notice("reloaded the configuration from \(next.settings.file): \(said.joined(separator: "; "))")
        }
    }
}
