import Foundation
import Testing

/// A fresh sandbox with nudged running on it and `nudge watch` attached; `stop()` ends both and removes the sandbox.
struct WatchedDaemon {
    let sandbox: Sandbox
    let daemon: Daemon
    let watcher: Watcher

    init(
        sinks: String = "log",
        clock: TestClock = .manual(TestClock.epoch),
        arguments: [String] = [],
        environment: [String: String]? = nil
    ) async throws {
        sandbox = try Sandbox()
        do {
            daemon = try await Daemon(
                sandbox,
                sinks: sinks,
                clock: clock,
                arguments: arguments,
                environment: environment
            )
        } catch {
            sandbox.remove()
            throw error
        }
        do {
            watcher = try await Watcher(sandbox)
        } catch {
            daemon.stop()
            sandbox.remove()
            throw error
        }
    }

    /// Adds an item and waits until it fires: once its fired event is seen, every event nudged decided before it has
    /// been seen too (the stream keeps nudged's order), so a check that something did *not* happen by then ends on
    /// this positive signal instead of on a sleep. On a manual clock, the item is due at `due` and the clock is moved
    /// there; on the wall clock (`due` nil), it is due soon (`Sandbox.addDueSoon`).
    @discardableResult
    func sentinel(due: Date? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WatchedEvent {
        let itemID: Int
        if let due {
            itemID = try await sandbox.addItem("sentinel", due: due)
            try await sandbox.moveClock(to: due, sourceLocation: sourceLocation)
        } else {
            itemID = try await sandbox.addDueSoon([("sentinel", 0)]).ids[0]
        }
        return try await watcher.awaitEvent("fired", item: itemID, sourceLocation: sourceLocation)
    }

    func stop() {
        watcher.stop()
        daemon.stop()
        sandbox.remove()
    }
}
