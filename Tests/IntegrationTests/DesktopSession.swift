import Foundation
import Testing

/// A private desktop for one test: its own D-Bus session bus, an X server (Xvfb), dunst as the real notification
/// server, and `busctl monitor` recording every call to org.freedesktop.Notifications on that bus as one JSON object a
/// line, so tests can assert the exact replaces_id and body each call carried. scripts/install-deps installs them all.
final class DesktopSession: Sendable {
    /// One call to the notification server, as the bus carried it.
    enum Call: Sendable, Equatable {
        case notify(replacesID: UInt32, summary: String, body: String)
        case close(UInt32)
        case other
    }

    let directory: String
    let busAddress: String
    let display: String
    let dunst: Process
    private let processes: [Process]
    private let calls: LineCollector<Call>

    init() async throws {
        let directory = try temporaryDirectory("desktop")
        let busAddress = "unix:path=\(directory)/bus"
        self.directory = directory
        self.busAddress = busAddress
        calls = try LineCollector(path: directory + "/calls.jsonl", parse: Self.call)
        var started: [Process] = []
        do {
            started.append(
                try Self.spawn("/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(busAddress)"])
            )
            try await eventually("the session bus at \(directory)/bus to come up") {
                FileManager.default.fileExists(atPath: "\(directory)/bus")
            }
            // Xvfb finds a free display number itself (several desktops may start at once) and prints it once it
            // listens there.
            let displayNumber = try LineCollector(path: directory + "/display")
            started.append(
                try Self.spawn(
                    "/usr/bin/Xvfb",
                    ["-displayfd", "1", "-nolisten", "tcp"],
                    output: displayNumber.writer()
                )
            )
            let display = try await eventually("Xvfb to print its display number") {
                displayNumber.lines.first.map { ":" + $0 }
            }
            self.display = display
            let environment = Self.environment(busAddress: busAddress, display: display)
            // An empty configuration: dunst's built-in defaults, whatever the machine's dunstrc says.
            let config = directory + "/dunstrc"
            _ = FileManager.default.createFile(atPath: config, contents: Data())
            dunst = try Self.spawn("/usr/bin/dunst", ["-config", config], environment: environment)
            started.append(dunst)
            try await eventually("dunst on \(busAddress) to come up") {
                (try? await run("/usr/bin/dunstctl", ["count"], environment: environment))?.status == 0
            }
            let monitorSays = try LineCollector(path: directory + "/monitor.err")
            started.append(
                try Self.spawn(
                    "/usr/bin/busctl",
                    [
                        "--address=\(busAddress)", "monitor", "--json=short",
                        "--match", "interface='org.freedesktop.Notifications'",
                    ],
                    output: calls.writer(),
                    errors: monitorSays.writer()
                )
            )
            try await eventually("busctl monitor to come up") {
                monitorSays.lines.contains("Monitoring bus message stream.")
            }
        } catch {
            for process in started.reversed() { Self.end(process) }
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        processes = started
    }

    /// nudged's environment for this desktop: the test's own, with this bus and display.
    var environment: [String: String] { Self.environment(busAddress: busAddress, display: display) }

    func dunstctl(_ arguments: String...) async throws -> CommandResult {
        try await run("/usr/bin/dunstctl", arguments, environment: environment)
    }

    func displayedCount() async -> Int { await count("displayed") }

    /// What `dunstctl history` holds, newest first.
    func history() async throws -> [(id: Int, summary: String, body: String)] {
        let json = try JSONSerialization.jsonObject(with: try await dunstctl("history").output) as? [String: Any]
        let entries = ((json?["data"] as? [Any])?.first as? [[String: Any]]) ?? []
        func field(_ entry: [String: Any], _ name: String) -> Any? { (entry[name] as? [String: Any])?["data"] }
        return entries.map {
            (field($0, "id") as? Int ?? -1, field($0, "summary") as? String ?? "", field($0, "body") as? String ?? "")
        }
    }

    /// Every Notify call on the bus so far: the notification it replaces (0 for none), its summary and its body.
    func notifyCalls() -> [(replacesID: UInt32, summary: String, body: String)] {
        calls.lines.compactMap {
            guard case .notify(let replacesID, let summary, let body) = $0 else { return nil }
            return (replacesID, summary, body)
        }
    }

    /// The notification IDs of every CloseNotification call so far.
    func closeCalls() -> [UInt32] {
        calls.lines.compactMap {
            guard case .close(let notificationID) = $0 else { return nil }
            return notificationID
        }
    }

    func stop() {
        for process in processes.reversed() { Self.end(process) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// SIGKILL: children of the test runner start with SIGTERM blocked (Process passes on its signal mask).
    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// One line of `busctl monitor --json=short`: a message with its member and its payload's values.
    private static func call(_ line: [UInt8]) -> Call {
        guard let message = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            message["type"] as? String == "method_call",
            let values = (message["payload"] as? [String: Any])?["data"] as? [Any]
        else { return .other }
        switch message["member"] as? String {
        case "Notify" where values.count >= 5:
            return .notify(
                replacesID: (values[1] as? NSNumber)?.uint32Value ?? 0,
                summary: values[3] as? String ?? "",
                body: values[4] as? String ?? ""
            )
        case "CloseNotification":
            return .close((values.first as? NSNumber)?.uint32Value ?? 0)
        default:
            return .other
        }
    }

    private func count(_ which: String) async -> Int {
        Int((try? await dunstctl("count", which))?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
    }

    private static func environment(busAddress: String, display: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["DISPLAY"] = display
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        return environment
    }

    private static func spawn(
        _ path: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        output: FileHandle = FileHandle.nullDevice,
        errors: FileHandle = FileHandle.nullDevice
    ) throws -> Process {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failure("\(path) is missing; scripts/install-deps installs it")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
