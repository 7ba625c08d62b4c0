import Foundation
import Glibc
import NudgeSystem

/// What the service manager told nudged through its environment: where to send notifications (`NOTIFY_SOCKET`) and
/// how often to prove it is alive (`WATCHDOG_USEC`, meant for the process `WATCHDOG_PID` names, if set).
struct SystemdEnvironment: Sendable, Equatable {
    static let variables = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// Nil when nudged was not started by a service manager that listens (no `Type=notify`).
    var notifySocket: String?
    /// Nil when there is no watchdog, or it is meant for another process.
    var watchdogInterval: Duration?
    /// Why a watchdog the environment mentions is not used, to be logged.
    var watchdogIgnored: String?

    init(_ environment: [String: String], processID: Int32) {
        notifySocket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        guard notifySocket != nil, let text = environment["WATCHDOG_USEC"] else { return }
        guard let microseconds = UInt64(text), microseconds > 0, microseconds <= UInt64(Int64.max) else {
            watchdogIgnored = "WATCHDOG_USEC=\(text) is not a positive number of microseconds"
            return
        }
        if let owner = environment["WATCHDOG_PID"], owner != String(processID) {
            watchdogIgnored = "WATCHDOG_PID=\(owner) names another process (this is \(processID))"
            return
        }
        watchdogInterval = .microseconds(Int64(microseconds))
    }

    /// Reads the variables and removes them from nudged's environment, so the programs its sinks run (a command
    /// sink's own sd_notify-aware tool, say) do not take the notifications or the watchdog for theirs. Call it
    /// before any child process is started.
    static func take() -> SystemdEnvironment {
        let environment = ProcessInfo.processInfo.environment
        let taken = SystemdEnvironment(environment, processID: Int32(SystemCall.processID()))
        for name in variables where environment[name] != nil { SystemCall.removeEnvironmentVariable(name) }
        return taken
    }
}
