import Foundation
import Testing

/// The real nudged on a manual clock and the real `nudge`: a reminder that fired awaits acknowledgement, is listed as
/// such by `nudge pending` and `nudge ls --unacknowledged` across a restart, and `nudge ack` settles it.
@Suite(.timeLimit(hangLimit)) struct AcknowledgementTests {
    static let start = TestClock.epoch  // 2027-01-01T00:00:00Z

    @Test func aFiredReminderIsListedUntilAckedEvenAfterARestart() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        do {
            let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
            defer { daemon.stop() }
            let added = try await sandbox.nudge("add", "tea", "--due", iso(Self.start + 60), "--remind")
            #expect(added.status == 0, "\(added)")
            _ = try await sandbox.nudge("add", "other")
            let before = try await sandbox.nudge("pending")
            #expect(!before.stdout.contains("not acknowledged"), "\(before)")
            try await sandbox.moveClock(to: Self.start + 120)
            let pending = try await sandbox.nudge("pending")
            #expect(pending.status == 0, "\(pending)")
            #expect(pending.stdout.contains("fired, not acknowledged"), "\(pending)")
            #expect(pending.stdout.contains("tea") && !pending.stdout.contains("other"), "\(pending)")
        }
        // A restart does not acknowledge it.
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start + 180))
        defer { daemon.stop() }
        let listed = try await sandbox.nudge("ls", "--unacknowledged", "--json")
        let items = (try? JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]]) ?? []
        #expect(items.map { $0["itemID"] as? Int } == [1], "\(listed)")
        #expect(items.first?["unacknowledgedSince"] as? String == "2027-01-01T00:01:00.000Z", "the fire's instant")
        let marked = try await sandbox.nudge("ls")
        #expect(marked.stdout.split(separator: "\n").contains { $0.contains("tea") && $0.contains("🔔") }, "\(marked)")

        let acked = try await sandbox.nudge("ack", "1")
        #expect(acked.status == 0 && acked.stdout.contains("tea"), "\(acked)")
        let after = try await sandbox.nudge("ls", "--unacknowledged")
        #expect(after.status == 0 && !after.stdout.contains("tea"), "\(after)")
        let events = try await sandbox.nudge("events", "--item", "1", "--json")
        let kinds = ((try? JSONSerialization.jsonObject(with: events.output) as? [[String: Any]]) ?? []).map {
            $0["kind"] as? String ?? ""
        }
        #expect(kinds.last == "acknowledged", "\(events)")
        #expect(try await sandbox.nudge("ack", "9").status == 1, "an unknown item is refused")
    }

    /// `nudge add --nag`: the fire repeats at its instants, across a restart once (the repeats that fell while nudged
    /// was down are one), escalates, and ends exhausted; `nudge edit --no-nag` stops it.
    @Test func aNaggingReminderRepeatsUntilExhaustedAcrossARestart() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        do {
            let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
            defer { daemon.stop() }
            let added = try await sandbox.nudge(
                "add",
                "tea",
                "--due",
                iso(Self.start + 60),
                "--nag",
                "10m,3",
                "--escalate-after",
                "1"
            )
            #expect(added.status == 0, "\(added)")
            let shown = try await sandbox.nudge("show", "1")
            #expect(shown.stdout.contains("every 10m, at most 3 times, until acknowledged, high priority after 1"))
            try await sandbox.moveClock(to: Self.start + 60 + 600)
        }
        // Down through the second and third repeats' instants: one late repeat, the third, then exhausted.
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start + 60 + 1900))
        defer { daemon.stop() }
        let listed = try await sandbox.nudge("events", "--item", "1", "--json")
        let events = ((try? JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]]) ?? []).filter {
            !["scheduled", "changed"].contains($0["kind"] as? String)
        }
        #expect(
            events.map { $0["kind"] as? String } == ["fired", "renotified", "renotified", "exhausted"],
            "\(listed)"
        )
        #expect(events.map { $0["repeatNumber"] as? Int } == [nil, 1, 3, 3])
        #expect(events.map { $0["priority"] as? String } == ["normal", "normal", "high", "high"])
        #expect(events[2]["coalesced"] as? Int == 2 && events[2]["due"] as? String == "2027-01-01T00:01:00.000Z")

        #expect(try await sandbox.nudge("edit", "1", "--no-nag").status == 0)
        #expect(try await sandbox.nudge("show", "1").stdout.contains("no: a reminder fires once"))
        let alone = try await sandbox.nudge("add", "x", "--escalate-after", "1")
        #expect(alone.status == 2 && alone.stderr.contains("go with --nag"), "\(alone)")
        let tooOften = try await sandbox.nudge("add", "x", "--nag", "10s")
        #expect(tooOften.status == 2 && tooOften.stderr.contains("from 1m to 366d"), "\(tooOften)")
    }
}
