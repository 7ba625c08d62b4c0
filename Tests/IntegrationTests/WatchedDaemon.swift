import Foundation
import Testing

/// A fresh sandbox with nudged running on it and `nudge watch` attached; `stop()` ends both and removes the sandbox.
struct WatchedDaemon {
    let sandbox: Sandbox
    let daemon: Daemon
    let watcher: Watcher

    init() throws {
        sandbox = try Sandbox()
        do {
            daemon = try Daemon(sandbox)
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

    /// Runs `nudge add` with `arguments` and returns the new item's ID.
    func add(_ arguments: String...) throws -> Int {
        let result = try run(Binaries.nudge, ["add"] + arguments + ["--socket", sandbox.socket])
        #expect(result.status == 0, "nudge add failed: \(result.stderr)")
        return try #require(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.stdout)")
    }
}
