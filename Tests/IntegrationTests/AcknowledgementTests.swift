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
}
