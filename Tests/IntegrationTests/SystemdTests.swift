import Foundation
import Glibc
import Synchronization
import Testing

/// nudged under a service manager's eyes: the test plays systemd, owning the `NOTIFY_SOCKET` datagram socket and
/// reading what nudged tells it. Serialized: the timing checks must not compete for the two cores.
@Suite(.serialized) struct SystemdTests {
    /// nudged started the way systemd starts a `Type=notify` service: with `NOTIFY_SOCKET` (and `WATCHDOG_USEC`)
    /// in its environment. Unlike the harness's `Daemon`, nothing polls the socket: the test waits for `READY=1`.
    private final class NotifiedDaemon: Sendable {
        let process: Process
        let notify: NotifySocket
        let logPath: String

        init(_ sandbox: Sandbox, watchdog: Duration? = nil) throws {
            try Binaries.require(Binaries.nudged)
            notify = try NotifySocket(path: sandbox.path + "/notify")
            logPath = sandbox.path + "/nudged-notified.log"
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            var environment = ProcessInfo.processInfo.environment
            for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { environment[name] = nil }
            environment["NOTIFY_SOCKET"] = notify.path
            if let watchdog {
                let (seconds, attoseconds) = watchdog.components
                environment["WATCHDOG_USEC"] = String(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
            }
            process = Process()
            process.executableURL = URL(fileURLWithPath: Binaries.nudged)
            process.arguments = ["--store", sandbox.store, "--socket", sandbox.socket]
            process.environment = environment
            process.standardError = FileHandle(forWritingAtPath: logPath)
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        /// The `READY=1` message; fails the test if another message comes first or none within 20 s.
        func ready() throws -> NotifySocket.Message {
            let (ready, before) = notify.receive(until: "READY=1", within: .seconds(20))
            #expect(before.isEmpty, "messages before READY=1: \(before)")
            return try #require(ready, "no READY=1 within 20 s; log:\n\(log)")
        }

        /// SIGTERM, as `systemctl stop` sends it: expects `STOPPING=1`, then exit status 0 within 2 s. Returns how
        /// long the exit took; nudged is killed if it still runs 5 s later.
        @discardableResult
        func terminate() -> Duration {
            let sent = ContinuousClock.now
            kill(process.processIdentifier, SIGTERM)
            let stopping = notify.receive(until: "STOPPING=1", within: .seconds(5)).match
            while process.isRunning && sent.duration(to: .now) < .seconds(5) { Thread.sleep(forTimeInterval: 0.005) }
            let took = sent.duration(to: .now)
            let exited = !process.isRunning
            kill9IfRunning()
            #expect(stopping != nil, "no STOPPING=1 after SIGTERM")
            #expect(exited, "still running 5 s after SIGTERM:\n\(log)")
            #expect(!exited || process.terminationStatus == 0, "exit status \(process.terminationStatus):\n\(log)")
            #expect(took < .seconds(2), "took \(took) to exit after SIGTERM")
            return took
        }

        func kill9IfRunning() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Whether a stream socket accepts a connection at `path`: true while something listens there, even a
    /// stopped process, since the kernel completes connections into the listen backlog.
    private func isListening(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return withUnixAddress(path) { connect(descriptor, $0, $1) } == 0
    }

    @Test func readyComesOnlyOnceTheSocketListensAndWithoutAWatchdogNothingElseIsSent() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try NotifiedDaemon(sandbox)
        defer { daemon.kill9IfRunning() }

        let ready = try daemon.ready()
        // Freeze nudged the moment READY=1 is read, so it cannot start listening afterwards; a listening socket
        // still accepts connections into its backlog.
        kill(daemon.process.processIdentifier, SIGSTOP)
        let listening = isListening(sandbox.socket)
        kill(daemon.process.processIdentifier, SIGCONT)
        #expect(listening, "READY=1 arrived before \(sandbox.socket) listened")
        #expect(try sandbox.nudge("lists").status == 0)
        #expect(ready.value("MAINPID") == String(daemon.process.processIdentifier), "\(ready)")
        #expect(ready.value("STATUS")?.contains(sandbox.socket) == true, "\(ready)")

        // No WatchdogSec=, no WATCHDOG_USEC: nudged sets no timer and sends nothing until it stops.
        let idle = daemon.notify.receiveAll(during: .seconds(1))
        #expect(idle.isEmpty, "sent without a watchdog: \(idle)")

        daemon.terminate()
    }

    @Test func watchdogPingsArriveEveryHalfIntervalWhileTheSchedulerAnswers() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let interval = Duration.milliseconds(200)
        let daemon = try NotifiedDaemon(sandbox, watchdog: interval)
        defer { daemon.kill9IfRunning() }

        let ready = try daemon.ready()
        let messages = daemon.notify.receiveAll(during: .seconds(2))
        let pings = messages.filter { $0.has("WATCHDOG=1") }
        #expect(pings.count == messages.count, "other messages: \(messages.filter { !$0.has("WATCHDOG=1") })")
        let arrivals = [ready.received] + pings.map(\.received)
        let gaps = zip(arrivals, arrivals.dropFirst()).map { $0.duration(to: $1) }.sorted()
        print(
            "WATCHDOG_USEC=200000: \(pings.count) pings in 2 s after READY=1; gaps \(gaps.first.map { "\($0)" } ?? "-") to \(gaps.last.map { "\($0)" } ?? "-")"
        )
        // About every 100 ms: 20 in 2 s. systemd would act on a gap of a whole interval.
        #expect((16...21).contains(pings.count), "\(pings.count) pings in 2 s")
        #expect(gaps.allSatisfy { $0 < interval }, "a gap reached the interval: \(gaps)")
        #expect(
            pings.last?.value("STATUS")?.contains("pending: 0") == true,
            "\(pings.last.map { "\($0)" } ?? "")"
        )

        daemon.terminate()
    }

    @Test func sigtermMidWritesSendsStoppingExitsWithinTwoSecondsAndKeepsEveryAcknowledgedChange() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try NotifiedDaemon(sandbox, watchdog: .seconds(10))
        defer { daemon.kill9IfRunning() }
        _ = try daemon.ready()

        // A client adds items one after another until nudged stops answering; SIGTERM lands among them.
        final class Acknowledged: Sendable { let texts = Mutex<[String]>([]) }
        let acknowledged = Acknowledged()
        let writer = Thread {
            for number in 1...10_000 {
                let text = "change \(number)"
                guard (try? sandbox.nudge("add", text))?.status == 0 else { return }
                acknowledged.texts.withLock { $0.append(text) }
            }
        }
        writer.start()
        while acknowledged.texts.withLock({ $0.count }) < 10 { Thread.sleep(forTimeInterval: 0.01) }
        let took = daemon.terminate()
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }

        let restarted = try Daemon(sandbox)
        defer { restarted.stop() }
        let listed = try sandbox.nudge("ls", "--json")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let stored = Set(items.compactMap { $0["text"] as? String })
        let lost = acknowledged.texts.withLock { $0 }.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but not stored after SIGTERM: \(lost)")
        print("SIGTERM after \(acknowledged.texts.withLock { $0.count }) acknowledged adds; exit after \(took)")
    }
}
