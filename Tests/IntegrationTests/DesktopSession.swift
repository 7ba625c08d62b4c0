import Foundation
import Synchronization
import Testing

/// A private desktop for one test: its own D-Bus session bus, an X server (Xvfb), a notification server, and
/// `busctl monitor` recording every call to org.freedesktop.Notifications on that bus as one JSON object a line, so
/// tests can assert the exact replaces_id, body and actions each call carried. The server is dunst, the real one
/// (its context menu, which `dunstctl action` opens for a notification with several actions, is a script that picks
/// what `click` asked for), or Tests/Tools/notification-server.py, a scriptable one that offers the capabilities a
/// test names. scripts/install-deps installs them all.
final class DesktopSession: Sendable {
    /// One call to the notification server, as the bus carried it.
    enum Call: Sendable, Equatable {
        case notify(replacesID: UInt32, summary: String, body: String, actions: [String])
        case close(UInt32)
        case other
    }

    enum Server {
        /// dunst; with `markup`, it reads body markup (`markup = full`) and says so (`body-markup`).
        case dunst(markup: Bool)
        /// The scriptable server, offering these capabilities.
        case scripted(capabilities: [String])
    }

    let directory: String
    let busAddress: String
    let display: String
    /// The notification server's process.
    let server: Process
    private let isDunst: Bool
    private let processes: [Process]
    /// Servers started in place of `server`.
    private let later = Mutex<[Process]>([])
    private let calls: LineCollector<Call>

    init(_ serverKind: Server = .dunst(markup: false)) async throws {
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
            switch serverKind {
            case .dunst(let markup):
                // dunst's built-in defaults, whatever the machine's dunstrc says, but for the context menu: a script
                // that picks the line of the notification and action `click` wrote down.
                let picker = directory + "/pick"
                let script = "#!/bin/sh\nexec grep -m1 -F \"[$(cat '\(directory)/choice')]\"\n"
                _ = FileManager.default.createFile(atPath: picker, contents: Data(script.utf8))
                chmod(picker, 0o755)
                let config = directory + "/dunstrc"
                let settings = "[global]\n    dmenu = \(picker)\n" + (markup ? "    markup = full\n" : "")
                _ = FileManager.default.createFile(atPath: config, contents: Data(settings.utf8))
                server = try Self.spawn("/usr/bin/dunst", ["-config", config], environment: environment)
                started.append(server)
                // Asks the bus, not dunst: a call to the name before dunst owns it would have the bus start the
                // machine's own dunst (D-Bus activation), with no display.
                try await eventually("dunst on \(busAddress) to come up") {
                    let owned = try? await run(
                        "/usr/bin/busctl",
                        [
                            "--address=\(busAddress)", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus", "NameHasOwner", "s", "org.freedesktop.Notifications",
                        ]
                    )
                    return owned?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "b true"
                }
                isDunst = true
            case .scripted(let capabilities):
                server = try await Self.startScripted(capabilities, in: directory, busAddress: busAddress)
                started.append(server)
                isDunst = false
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

    /// Starts the scripted server, and waits until it owns the name.
    private static func startScripted(_ capabilities: [String], in directory: String, busAddress: String) async throws
        -> Process
    {
        let ready = try LineCollector(path: directory + "/server-\(UUID().uuidString).out")
        let server = try spawn(
            "/usr/bin/python3",
            [
                Binaries.packageRoot + "/Tests/Tools/notification-server.py", "--address", busAddress,
                "--capabilities", capabilities.joined(separator: ","),
            ],
            output: ready.writer()
        )
        do {
            try await eventually("the scripted notification server on \(busAddress) to come up") {
                ready.lines.contains("ready")
            }
        } catch {
            end(server)
            throw error
        }
        return server
    }

    /// Ends the scripted server and starts another in its place, as a session whose notification server restarts.
    func restartScriptedServer(_ capabilities: [String]) async throws {
        Self.end(server)
        let next = try await Self.startScripted(capabilities, in: directory, busAddress: busAddress)
        later.withLock { $0.append(next) }
    }

    /// nudged's environment for this desktop: the test's own, with this bus and display.
    var environment: [String: String] { Self.environment(busAddress: busAddress, display: display) }

    func dunstctl(_ arguments: String...) async throws -> CommandResult {
        try await run("/usr/bin/dunstctl", arguments, environment: environment)
    }

    func displayedCount() async -> Int {
        if isDunst { return await count("displayed") }
        let shown = try? await control("Shown")
        // busctl prints `a(uss) COUNT …`.
        return shown.flatMap { Int($0.stdout.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") } ?? -1
    }

    /// What dunst holds: on screen, and waiting for room there.
    func dunstHolds() async -> Int { await count("displayed") + count("waiting") }

    /// Presses a notification's button: on dunst through `dunstctl action` (the top notification, whose context
    /// menu the picker answers), on the scripted server by having it send ActionInvoked.
    func click(_ notificationID: UInt32, _ action: String) async throws {
        if isDunst {
            try Data("\(notificationID),\(action)".utf8).write(to: URL(fileURLWithPath: directory + "/choice"))
            let result = try await dunstctl("action", "0")
            if result.status != 0 { throw Failure("dunstctl action failed: \(result.stderr)") }
        } else {
            let result = try await control("InvokeAction", "us", String(notificationID), action)
            if result.status != 0 { throw Failure("InvokeAction failed: \(result.stderr)") }
        }
    }

    /// Closes a notification as the user would (dunst: `dunstctl close`, which closes the top one), or, with
    /// `expired`, as the server does when one times out (scripted server only).
    func close(_ notificationID: UInt32, expired: Bool = false) async throws {
        let result =
            isDunst && !expired
            ? try await dunstctl("close")
            : try await control("Close", "uu", String(notificationID), expired ? "1" : "2")
        if result.status != 0 { throw Failure("closing notification \(notificationID) failed: \(result.stderr)") }
    }

    /// Calls the scripted server's control interface.
    func control(_ method: String, _ arguments: String...) async throws -> CommandResult {
        try await run(
            "/usr/bin/busctl",
            [
                "--address=\(busAddress)", "call", "org.freedesktop.Notifications",
                "/org/freedesktop/Notifications", "org.nudge.TestServer", method,
            ] + arguments
        )
    }

    /// What `dunstctl history` holds, newest first.
    func history() async throws -> [(id: Int, summary: String, body: String)] {
        let json = try JSONSerialization.jsonObject(with: try await dunstctl("history").output) as? [String: Any]
        let entries = ((json?["data"] as? [Any])?.first as? [[String: Any]]) ?? []
        func field(_ entry: [String: Any], _ name: String) -> Any? { (entry[name] as? [String: Any])?["data"] }
        return entries.map {
            (field($0, "id") as? Int ?? -1, field($0, "summary") as? String ?? "", field($0, "body") as? String ?? "")
        }
    }

    /// Every Notify call on the bus so far: the notification it replaces (0 for none), its summary, body and
    /// actions.
    func notifyCalls() -> [(replacesID: UInt32, summary: String, body: String, actions: [String])] {
        calls.lines.compactMap {
            guard case .notify(let replacesID, let summary, let body, let actions) = $0 else { return nil }
            return (replacesID, summary, body, actions)
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
        for process in later.withLock({ $0 }) + processes.reversed() { Self.end(process) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// SIGKILL: children of the test runner start with SIGTERM blocked (Process passes on its signal mask).
    private static func end(_ process: Process) {
        guard process.exitStatus == nil else { return }
        kill(process.processIdentifier, SIGKILL)
        process.awaitExit()
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
                body: values[4] as? String ?? "",
                actions: values.count > 5 ? (values[5] as? [String] ?? []) : []
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
