import Foundation
import Glibc
import Synchronization
import Testing

/// A linked list whose folder vdirsyncer syncs with a real CalDAV server (Radicale, on 127.0.0.1): a task changed on
/// the server by another client (Python's caldav) reaches nudged's reminder after a sync, and `nudge done` reaches
/// the server after the next. `scripts/install-deps --tests` installs vdirsyncer, Radicale and caldav.
@Suite(.timeLimit(hangLimit)) struct VdirSyncTests {
    /// vdirsyncer's, Radicale's and caldav's Python, apart from the other test tools' (`scripts/install-deps`).
    static let python = Binaries.packageRoot + "/.build/test-tools/caldav/bin"

    /// Radicale serving `directory` on a free port of 127.0.0.1, without authentication: any name logs in.
    final class Radicale: Sendable {
        let url: String
        private let process: Process

        init(in directory: String) async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // A port free a moment ago; Radicale takes no port 0. Taken meanwhile, Radicale ends: another is tried.
            for _ in 0..<5 {
                let port = try Self.freePort()
                let process = Process()
                process.executableURL = URL(fileURLWithPath: VdirSyncTests.python + "/radicale")
                process.arguments = [
                    "--server-hosts", "127.0.0.1:\(port)", "--storage-filesystem-folder", directory + "/storage",
                    "--auth-type", "none", "--rights-type", "authenticated",
                ]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle(forWritingAtPath: "/dev/null")
                try process.run()
                let url = "http://127.0.0.1:\(port)/"
                let answered = try await Self.answers(port: port, while: process)
                if answered {
                    (self.url, self.process) = (url, process)
                    return
                }
            }
            throw Failure("Radicale did not start (scripts/install-deps --tests installs it)")
        }

        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Whether the server takes a connection on `port` before `process` ends.
        private static func answers(port: Int, while process: Process) async throws -> Bool {
            var answered = false
            try await eventually("Radicale listening on port \(port)") {
                guard process.isRunning else { return true }
                let probe = try await run(
                    VdirSyncTests.python + "/python",
                    ["-c", "import socket; socket.create_connection(('127.0.0.1', \(port)), 5).close()"]
                )
                answered = probe.status == 0
                return answered
            }
            return answered
        }

        private static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure("socket: \(errno)") }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound else { throw Failure("bind: \(errno)") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    /// vdirsyncer, syncing `folder` with the server's calendar `remote`, with a configuration and a status of its own.
    struct VdirSyncer {
        let config: String
        let folder: String

        init(in directory: String, remote: String) throws {
            config = directory + "/vdirsyncer.conf"
            folder = directory + "/calendars/errands"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try """
            [general]
            status_path = "\(directory)/status"

            [pair errands]
            a = "errands_local"
            b = "errands_remote"
            collections = null

            [storage errands_local]
            type = "filesystem"
            path = "\(folder)"
            fileext = ".ics"

            [storage errands_remote]
            type = "caldav"
            url = "\(remote)"
            username = "test"
            password = "test"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// A vdirsyncer command; what it said, stdout and stderr together.
        @discardableResult
        func callAsFunction(_ arguments: String...) async throws -> String {
            var environment = ProcessInfo.processInfo.environment
            environment["VDIRSYNCER_CONFIG"] = config
            let result = try await run(VdirSyncTests.python + "/vdirsyncer", arguments, environment: environment)
            guard result.status == 0 else { throw Failure("vdirsyncer \(arguments) failed: \(result)") }
            return result.stdout + result.stderr
        }
    }

    /// Python's caldav (`Tests/Tools/caldav_tasks.py`).
    @discardableResult
    func caldav(_ arguments: String...) async throws -> String {
        let result = try await run(
            Self.python + "/python",
            [Binaries.packageRoot + "/Tests/Tools/caldav_tasks.py"] + arguments
        )
        guard result.status == 0 else { throw Failure("caldav_tasks.py \(arguments) failed: \(result)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func items(_ sandbox: Sandbox) async throws -> [String: [String: Any]] {
        let listed = try JSONSerialization.jsonObject(with: try await sandbox.nudge("ls", "--all", "--json").output)
        return Dictionary(
            ((listed as? [[String: Any]]) ?? []).map { ($0["text"] as? String ?? "", $0) },
            uniquingKeysWith: { a, _ in a }
        )
    }

    @Test func aDueDateMovedOnTheServerReachesTheReminderAndDoneInNudgeReachesTheServer() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let radicale = try await Radicale(in: sandbox.path + "/radicale")
        defer { radicale.stop() }
        let calendar = try await caldav("make", radicale.url, "errands", "rent-1", "Pay rent", "20270120T080000Z")
        let vdirsyncer = try VdirSyncer(in: sandbox.path + "/vdirsyncer", remote: calendar)
        try await vdirsyncer("discover")
        try await vdirsyncer("sync")

        let daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        defer { daemon.stop() }
        let linked = try await sandbox.nudge("list", "link", "Errands", vdirsyncer.folder)
        #expect(linked.status == 0, "\(linked)")
        let rentID = try #require(try await items(sandbox)["Pay rent"]?["itemID"] as? Int)
        // nudge read the folder and wrote nothing: the next sync has nothing to upload.
        let quiet = try await vdirsyncer("sync")
        #expect(!quiet.contains("errands_remote"), "\(quiet)")

        // Another client moves the due date on the server; a sync brings it down, and the reminder follows.
        try await caldav("move-due", calendar, "rent-1", "20270122T091500Z")
        try await vdirsyncer("sync")
        try await daemon.eventually("the due date moved on the server") {
            (try await items(sandbox)["Pay rent"]?["pendingDue"] as? String)?.hasPrefix("2027-01-22T09:15:00") == true
        }
        #expect(try await items(sandbox)["Pay rent"]?["itemID"] as? Int == rentID)
        let events = try JSONSerialization.jsonObject(
            with: try await sandbox.nudge("events", "--item", String(rentID), "--json").output
        )
        let replaced = ((events as? [[String: Any]]) ?? []).last { $0["kind"] as? String == "replaced" }
        #expect(replaced?["source"] as? String == "vdir", "\(events)")

        // Done in nudge, then a sync: the server has the task completed.
        #expect(try await sandbox.nudge("done", String(rentID)).status == 0)
        let uploaded = try await vdirsyncer("sync")
        #expect(uploaded.contains("errands_remote"), "\(uploaded)")
        #expect(try await caldav("status", calendar, "rent-1") == "COMPLETED 100")
    }
}
