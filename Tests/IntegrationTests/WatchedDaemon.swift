import Foundation
import Testing

/// A fresh sandbox with nudged running on it and `nudge watch` attached; `stop()` ends both and removes the sandbox.
struct WatchedDaemon {
    let sandbox: Sandbox
    let daemon: Daemon
    let watcher: Watcher

    init(sinks: String = "log", arguments: [String] = []) throws {
        sandbox = try Sandbox()
        do {
            daemon = try Daemon(sandbox, sinks: sinks, arguments: arguments)
        } catch {
            sandbox.remove()
            throw error
        }
        do {
            watcher = try Watcher(sandbox)
        } catch {
            daemon.stop()
            sandbox.remove()
            throw error
        }
    }

    func stop() {
        watcher.stop()
        daemon.stop()
        sandbox.remove()
    }
}
