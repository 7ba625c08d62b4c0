import AsyncHTTPClient
import Foundation
import NudgeCore
import Synchronization

/// `nudge-bench firing`: how firing scales. A day of `--items` reminders (due evenly over it) on the manual clock,
/// fired by one `POST /v1/clock {"advance": "P1D"}`, then read back from the event history: each fired once, in due
/// order, on time. Then, on the wall clock, a burst of `--burst` reminders due in the same second, delivered to the
/// log sink: how late the last delivery comes.
/// Whether the clock move under measurement has been answered.
private final class Moved: Sendable {
    let done = Atomic<Bool>(false)
}

enum FiringBench {
    static let dayStart = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z

    static func run(_ options: Options, http: HTTPClient) async throws {
        let items = options.sizes.first ?? 1_000_000
        say("nudge-bench firing: \(options.nudged), \(items) reminders over a day, a burst of \(options.burst)")
        try await day(items: items, options: options, http: http)
        try await burst(count: options.burst, options: options, http: http)
    }

    private static func day(items: Int, options: Options, http: HTTPClient) async throws {
        let spacing = 86_400 / Double(items)
        let template = try StoreTemplate.prepare(
            items: items,
            layout: 2,
            fullLog: false,
            in: options.work,
            name: "store-day-\(items)",
            dueDates: { dayStart + Double($0 - 1) * spacing + spacing / 2 }
        )
        let (daemon, api) = try startOnTheManualClock(template: template, items: items, options: options, http: http)
        defer { daemon.kill() }
        // While the move goes on (over many turns of nudged's loop), how long `/v1/health` takes to answer.
        let moved = Moved()
        let moving = Task {
            defer { moved.done.store(true, ordering: .releasing) }
            return try await api.timed { _ = try await api.send("POST", "/v1/clock", body: #"{"advance":"P1D"}"#) }
        }
        var health: [Double] = []
        while !moved.done.load(ordering: .acquiring) {
            let asked = ContinuousClock.now
            _ = try await api.send("GET", "/v1/health")
            health.append(asked.duration(to: .now).seconds)
            try await Task.sleep(for: .milliseconds(20))
        }
        let advanced = try await moving.value
        let peak = daemon.peakResidentBytes()
        health.sort()
        say(
            health.isEmpty
                ? "== /v1/health during the move: the move was answered before it was asked"
                : "== /v1/health during the move: asked \(health.count) times, p50 "
                    + "\(format(health[health.count / 2] * 1000)) ms, max \(format((health.last ?? 0) * 1000)) ms"
        )
        // Read back every fired event, in the order decided.
        var fired: [(itemID: Int, due: Date, at: Date, lateBy: Double)] = []
        var cursor: Int? = 0
        let reading = ContinuousClock.now
        while let since = cursor {
            let data = try await api.send("GET", "/v1/events?follow=false&kind=fired&limit=10000&since=\(since)")
            let page = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            for event in page["events"] as? [[String: Any]] ?? [] {
                guard let itemID = event["itemID"] as? Int, let due = instant(event["due"]),
                    let at = instant(event["at"])
                else { throw BenchError("an event without its fields: \(event)") }
                fired.append((itemID, due, at, event["lateBy"] as? Double ?? -1))
            }
            cursor = page["next"] as? Int
        }
        let read = reading.duration(to: .now)
        let once = Set(fired.map(\.itemID)).count == fired.count
        let inOrder = zip(fired, fired.dropFirst()).allSatisfy { $0.due <= $1.due }
        let onTime = fired.allSatisfy { $0.at == $0.due && $0.lateBy == 0 }
        say(
            "== \(items) reminders over a day: one clock move took \(format(advanced.seconds)) s "
                + "(\(Int(Double(items) / advanced.seconds)) fires/s), peak RSS \(peak >> 20) MiB; "
                + "\(fired.count) fired (\(fired.count == items ? "all" : "NOT all")), "
                + "\(once ? "each once" : "SOME TWICE"), \(inOrder ? "in due order" : "OUT OF ORDER"), "
                + "\(onTime ? "each at its instant" : "SOME LATE"); history read back in \(format(read.seconds)) s"
        )
        guard fired.count == items, once, inOrder, onTime else { throw BenchError("the day did not fire as it must") }
        _ = try daemon.stop()
        try await stopDuringAMove(template: template, items: items, options: options, http: http)
    }

    /// nudged on a fresh copy of the day's store, on the manual clock at the day's start, keeping all of its events,
    /// ready; and a client of its socket.
    private static func startOnTheManualClock(
        template: StoreTemplate,
        items: Int,
        options: Options,
        http: HTTPClient
    ) throws -> (RunningDaemon, API) {
        let directory = try template.freshCopy(in: options.work)
        let daemon = try RunningDaemon(
            nudged: options.nudged,
            directory: directory,
            arguments: [
                "--clock", "manual:2027-01-01T00:00:00Z", "--history-events", "\(items + 1000)", "--history-age",
                "400d",
            ]
        )
        do {
            _ = try daemon.awaitReady()
        } catch {
            daemon.kill()
            throw error
        }
        return (daemon, API(http: http, socket: directory + "/nudged.sock"))
    }

    /// SIGTERM a few seconds into the same move, on a fresh copy: how soon the move is answered (503 `stopping`,
    /// what it decided saved) and how soon nudged exits, its closing compaction included.
    private static func stopDuringAMove(
        template: StoreTemplate,
        items: Int,
        options: Options,
        http: HTTPClient
    ) async throws {
        let (daemon, api) = try startOnTheManualClock(template: template, items: items, options: options, http: http)
        defer { daemon.kill() }
        let moving = Task {
            _ = try? await api.send("POST", "/v1/clock", body: #"{"advance":"P1D"}"#)
            return ContinuousClock.now
        }
        try await Task.sleep(for: .seconds(3))
        let asked = ContinuousClock.now
        let (took, _) = try daemon.stop()
        let answered = asked.duration(to: await moving.value)
        say(
            "== SIGTERM 3 s into that move: "
                + (answered < .zero
                    ? "the move had ended before it"
                    : "the move answered \(format(answered.seconds)) s after it")
                + ", nudged exited after \(format(took.seconds)) s (a closing compaction of \(items) items included)"
        )
    }

    private static func burst(count: Int, options: Options, http: HTTPClient) async throws {
        let template = try StoreTemplate.prepare(items: 1_000, layout: 2, fullLog: false, in: options.work)
        let directory = try template.freshCopy(in: options.work)
        let daemon = try RunningDaemon(nudged: options.nudged, directory: directory)
        defer { daemon.kill() }
        _ = try daemon.awaitReady()
        let api = API(http: http, socket: directory + "/nudged.sock")
        // Whole seconds, far enough ahead for the adds (16 clients) to finish first.
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 20).rounded(.up))
        let body = #"{"text":"burst","dueDate":"\#(due.formatted(.iso8601))"}"#
        try await withThrowingTaskGroup(of: Void.self) { clients in
            for client in 0..<16 {
                clients.addTask {
                    for _ in stride(from: client, to: count, by: 16) {
                        _ = try await api.send("POST", "/v1/items", body: body)
                    }
                }
            }
            try await clients.waitForAll()
        }
        guard Date() < due else { throw BenchError("adding the burst took past its due instant") }
        // The log sink writes a line per delivery; the last one's arrival is the burst's lateness.
        let log = directory + "/nudged.log"
        var delivered = 0
        while delivered < count {
            guard Date() < due + 60 else { throw BenchError("\(delivered) of \(count) delivered after a minute") }
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            delivered = text.components(separatedBy: "] reminder: burst").count - 1
            if delivered < count { usleep(5_000) }
        }
        let late = Date().timeIntervalSince(due)
        say(
            "== a burst of \(count) reminders due in the same second: the last delivered \(format(late)) s late (log sink, read every 5 ms)"
        )
        _ = try daemon.stop()
    }

    private static func instant(_ value: Any?) -> Date? {
        (value as? String).flatMap { InstantFormat.parse($0) }
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
