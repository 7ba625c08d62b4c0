import Foundation
import Testing

/// A private desktop for one test: its own D-Bus session bus, an X server (Xvfb), dunst as the real notification
/// server, and dbus-monitor recording every Notify and CloseNotification call on that bus, so tests can assert the
/// exact replaces_id and body each call carried. scripts/install-deps installs them all.
final class DesktopSession: Sendable {
    let directory: String
    let busAddress: String
    let display: String
    let dunst: Process
    private let processes: [Process]
    private let monitorLog: String

    init() throws {
        var template = Array("/tmp/nudge-desktop-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let directory = String(cString: made)
        let busAddress = "unix:path=\(directory)/bus"
        let display = ":\(Self.freeDisplayNumber())"
        let monitorLog = directory + "/monitor.log"
        self.directory = directory
        self.busAddress = busAddress
        self.display = display
        self.monitorLog = monitorLog
        var started: [Process] = []
        do {
            started.append(
                try Self.spawn("/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(busAddress)"])
            )
            try Self.waitFor("the session bus at \(directory)/bus") {
                FileManager.default.fileExists(atPath: "\(directory)/bus")
            }
            started.append(try Self.spawn("/usr/bin/Xvfb", [display, "-nolisten", "tcp"]))
            try Self.waitFor("Xvfb on \(display)") {
                FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display.dropFirst())")
            }
            let environment = Self.environment(busAddress: busAddress, display: display)
            // An empty configuration: dunst's built-in defaults, whatever the machine's dunstrc says.
            let config = directory + "/dunstrc"
            _ = FileManager.default.createFile(atPath: config, contents: Data())
            dunst = try Self.spawn("/usr/bin/dunst", ["-config", config], environment: environment)
            started.append(dunst)
            try Self.waitFor("dunst on \(busAddress)") {
                (try? run("/usr/bin/dunstctl", ["count"], environment: environment))?.status == 0
            }
            started.append(
                try Self.spawn(
                    "/usr/bin/dbus-monitor",
                    ["--session", "interface='org.freedesktop.Notifications'"],
                    environment: environment,
                    output: monitorLog
                )
            )
            // dbus-monitor prints its NameAcquired signal once it is listening.
            try Self.waitFor("dbus-monitor") {
                ((try? String(contentsOfFile: monitorLog, encoding: .utf8)) ?? "").contains("NameAcquired")
            }
        } catch {
            for process in started.reversed() { process.terminate() }
            throw error
        }
        processes = started
    }

    /// nudged's environment for this desktop: the test's own, with this bus and display.
    var environment: [String: String] { Self.environment(busAddress: busAddress, display: display) }

    func dunstctl(_ arguments: String...) throws -> CommandResult {
        try run("/usr/bin/dunstctl", arguments, environment: environment)
    }

    var displayedCount: Int { count("displayed") }
    var historyCount: Int { count("history") }

    /// What `dunstctl history` holds, newest first.
    func history() throws -> [(id: Int, summary: String, body: String)] {
        let json = try JSONSerialization.jsonObject(with: Data(try dunstctl("history").stdout.utf8)) as? [String: Any]
        let entries = ((json?["data"] as? [Any])?.first as? [[String: Any]]) ?? []
        func field(_ entry: [String: Any], _ name: String) -> Any? { (entry[name] as? [String: Any])?["data"] }
        return entries.map {
            (field($0, "id") as? Int ?? -1, field($0, "summary") as? String ?? "", field($0, "body") as? String ?? "")
        }
    }

    /// Every Notify call on the bus so far: the notification it replaces (0 for none), its summary and its body.
    func notifyCalls() -> [(replacesID: UInt32, summary: String, body: String)] {
        let log = (try? String(contentsOfFile: monitorLog, encoding: .utf8)) ?? ""
        let pattern =
            #/member=Notify\n   string "(?<app>[^"]*)"\n   uint32 (?<replaces>\d+)\n   string "[^"]*"\n   string "(?<summary>(?s:.*?))"\n   string "(?<body>(?s:.*?))"\n   array \[/#
        return log.matches(of: pattern).map { (UInt32($0.replaces) ?? 0, String($0.summary), String($0.body)) }
    }

    /// The notification IDs of every CloseNotification call so far.
    func closeCalls() -> [UInt32] {
        let log = (try? String(contentsOfFile: monitorLog, encoding: .utf8)) ?? ""
        return log.matches(of: #/member=CloseNotification\n   uint32 (\d+)/#).compactMap { UInt32($0.1) }
    }

    func stop() {
        // SIGKILL: children of the test runner start with SIGTERM blocked (Process passes on its signal mask).
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func count(_ which: String) -> Int {
        Int((try? dunstctl("count", which))?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
    }

    private static func environment(busAddress: String, display: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["DISPLAY"] = display
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        return environment
    }

    private static func freeDisplayNumber() -> Int {
        (90..<200).first {
            !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
                && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
        } ?? 199
    }

    private static func spawn(
        _ path: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        output: String? = nil
    ) throws -> Process {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Issue.record("\(path) is missing; scripts/install-deps installs it")
            throw CancellationError()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func waitFor(_ what: String, within seconds: TimeInterval = 10, _ ready: () -> Bool) throws {
        let deadline = Date() + seconds
        while Date() < deadline {
            if ready() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("\(what) did not come up within \(Int(seconds)) s")
        throw CancellationError()
    }
}
