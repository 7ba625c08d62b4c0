import Foundation
import Glibc
import Synchronization
import Testing

/// nudged started the way systemd starts a `Type=notify` service: with `NOTIFY_SOCKET` (and `WATCHDOG_USEC`)
/// in its environment. Unlike the harness's `Daemon`, nothing polls the socket: the test waits for `READY=1`.
private final class NotifiedDaemon: Sendable {
    let process: Process
    let notify: NotifySocket
    let logLines: LineCollector<String>

    init(_ sandbox: Sandbox, clock: TestClock = .manual(TestClock.epoch), watchdog: Duration? = nil) throws {
        try Binaries.require(Binaries.nudged)
        notify = try NotifySocket(path: sandbox.path + "/notify")
        logLines = try LineCollector(path: sandbox.path + "/nudged-notified.log")
        var environment = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { environment[name] = nil }
        environment["NOTIFY_SOCKET"] = notify.path
        if let watchdog {
            let (seconds, attoseconds) = watchdog.components
            environment["WATCHDOG_USEC"] = String(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nudged)
        process.arguments = ["--store", sandbox.store, "--socket", sandbox.socket, "--sinks", "log"] + clock.arguments
        process.environment = environment
        process.standardError = try logLines.writer()
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var log: String { logLines.text }

    /// The `READY=1` message; fails the test if another message comes first or none within the patience.
    func ready() async throws -> NotifySocket.Message {
        let (ready, before) = await notify.receive(until: "READY=1", within: patience)
        #expect(before.isEmpty, "messages before READY=1: \(before)")
        return try #require(ready, "no READY=1 within \(patience); log:\n\(log)")
    }

    /// SIGTERM, as `systemctl stop` sends it: expects `STOPPING=1`, then exit status 0. Returns how long the exit
    /// took (a figure; `scripts/bench store` measures the clean stop) and what nudged sent before `STOPPING=1`;
    /// nudged still running `patience` later is a hang, and is killed.
    @discardableResult
    func terminate() async -> (took: Duration?, before: [NotifySocket.Message]) {
        let sent = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        let (stopping, before) = await notify.receive(until: "STOPPING=1", within: patience)
        let process = process
        let status = try? await eventually("", within: patience) { process.exitStatus }
        let took = status.map { _ in sent.duration(to: .now) }
        kill9IfRunning()
        #expect(stopping != nil, "no STOPPING=1 within \(patience) of SIGTERM")
        #expect(status != nil, "still running \(patience) after SIGTERM:\n\(log)")
        #expect(status == nil || status == 0, "exit status \(status.map { "\($0)" } ?? "-"):\n\(log)")
        return (took, before)
    }

    func kill9IfRunning() {
        if process.exitStatus == nil { kill(process.processIdentifier, SIGKILL) }
        process.awaitExit()
    }
}

/// nudged under a service manager's eyes: the test plays systemd, owning the `NOTIFY_SOCKET` datagram socket and
/// reading what nudged tells it.
@Suite(.timeLimit(hangLimit)) struct SystemdTests {
    @Test func readyComesOnlyOnceTheSocketListensAndWithoutAWatchdogNothingElseIsSent() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try NotifiedDaemon(sandbox)
        defer { daemon.kill9IfRunning() }

        let ready = try await daemon.ready()
        // Freeze nudged the moment READY=1 is read, so it cannot start listening afterwards; a listening socket
        // still accepts connections into its backlog.
        kill(daemon.process.processIdentifier, SIGSTOP)
        let listening = isListening(sandbox.socket)
        kill(daemon.process.processIdentifier, SIGCONT)
        #expect(listening, "READY=1 arrived before \(sandbox.socket) listened")
        #expect(try await sandbox.nudge("lists").status == 0)
        #expect(ready.value("MAINPID") == String(daemon.process.processIdentifier), "\(ready)")
        #expect(ready.value("STATUS")?.contains(sandbox.socket) == true, "\(ready)")

        // No WatchdogSec=, no WATCHDOG_USEC: nudged sets no timer, and neither changes nor a reminder firing make it
        // send anything between READY=1 and STOPPING=1.
        let itemID = try await sandbox.addItem("stretch", due: TestClock.epoch + 60)
        #expect(try await sandbox.nudge("edit", String(itemID), "--text", "stretch well").status == 0)
        try await sandbox.moveClock(to: TestClock.epoch + 60)
        try await eventually("the reminder to fire", seen: { daemon.log }) {
            daemon.log.contains("reminder: stretch well")
        }
        let (_, before) = await daemon.terminate()
        #expect(before.isEmpty, "sent without a watchdog: \(before)")
    }

    @Test func sigtermMidWritesSendsStoppingExitsAndKeepsEveryAcknowledgedChange() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try NotifiedDaemon(sandbox, watchdog: .seconds(10))
        defer { daemon.kill9IfRunning() }
        _ = try await daemon.ready()

        // A client adds items one after another until nudged stops answering; SIGTERM lands among them.
        final class Acknowledged: Sendable {
            let texts = Mutex<[String]>([])
            /// The add that ended the run, refused or unanswered.
            let last = Mutex<String?>(nil)
        }
        let acknowledged = Acknowledged()
        let writer = Task {
            for number in 1...10_000 {
                let text = "change \(number)"
                let result = try? await sandbox.nudge("add", text)
                guard result?.status == 0 else {
                    acknowledged.last.withLock { $0 = result.map { "\($0)" } ?? "nudge did not run" }
                    return
                }
                acknowledged.texts.withLock { $0.append(text) }
            }
        }
        try await eventually(
            "10 acknowledged adds",
            seen: { "the add that ended them: \(acknowledged.last.withLock { $0 } ?? "none yet"); \(daemon.log)" }
        ) {
            acknowledged.texts.withLock { $0.count } >= 10
        }
        let (took, _) = await daemon.terminate()
        await writer.value

        let restarted = try await Daemon(sandbox)
        defer { restarted.stop() }
        let listed = try await sandbox.nudge("ls", "--json")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let stored = Set(items.compactMap { $0["text"] as? String })
        let lost = acknowledged.texts.withLock { $0 }.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but not stored after SIGTERM: \(lost)")
        print(
            "SIGTERM after \(acknowledged.texts.withLock { $0.count }) acknowledged adds; exit after \(took.map { "\($0)" } ?? "-")"
        )
    }
}

/// systemd's watchdog, on the wall clock: nudged pings every half `WatchdogSec=` while its loop answers. Its figures
/// are of time, so scripts/test runs it in the alone group, with nothing beside it.
@Suite(.timeLimit(hangLimit)) struct WatchdogTests {
    @Test func watchdogPingsArriveEveryHalfIntervalWhileTheSchedulerAnswers() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // systemd units use tens of seconds; one second keeps the test short and still leaves a ping half a second of
        // slack on a loaded machine before it would count as missed.
        let interval = 1.0
        let daemon = try NotifiedDaemon(sandbox, clock: .wall, watchdog: .seconds(interval))
        defer { daemon.kill9IfRunning() }

        let ready = try await daemon.ready()
        let messages = await daemon.notify.receive(count: 10, within: patience)
        let pings = messages.filter { $0.has("WATCHDOG=1") }
        #expect(pings.count == 10, "\(messages.count) messages within \(patience)")
        #expect(pings.count == messages.count, "other messages: \(messages.filter { !$0.has("WATCHDOG=1") })")
        let arrivals = [ready.arrived] + pings.map(\.arrived)
        let gaps = zip(arrivals, arrivals.dropFirst()).map { $1.timeIntervalSince($0) }.sorted()
        let span = (arrivals.last ?? ready.arrived).timeIntervalSince(ready.arrived)
        print(
            "WATCHDOG_USEC=1000000: \(pings.count) pings in \(String(format: "%.2f", span)) s after READY=1; gaps "
                + "\(gaps.first.map { String(format: "%.3f", $0) } ?? "-") to "
                + "\(gaps.last.map { String(format: "%.3f", $0) } ?? "-") s"
        )
        // Every half interval; systemd would act on a gap of a whole one. Ten pings at every half interval take 5 s;
        // at every quarter, 2.5 s.
        #expect(gaps.allSatisfy { $0 < interval }, "a gap reached the interval: \(gaps)")
        #expect(span > 4, "10 pings came in \(span) s: faster than every half interval")
        #expect(
            pings.last?.value("STATUS")?.contains("pending: 0") == true,
            "\(pings.last.map { "\($0)" } ?? "")"
        )

        await daemon.terminate()
    }
}
