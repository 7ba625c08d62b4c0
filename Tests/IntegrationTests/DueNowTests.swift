import Foundation
import Testing

/// `--due now` on the real nudged and its wall clock: the reminder fires at once, in the same request; a due date
/// further in the past is kept, and nudge says plainly that no reminder will fire for it.
@Suite(.timeLimit(hangLimit)) struct DueNowTests {
    @Test func nowFiresAtOnceAndAPastDueDateIsKeptWithANote() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }

        let now = try await sandbox.nudge("add", "stretch", "--due", "now", "--quiet")
        #expect(now.status == 0 && now.stdout == "1\n" && now.stderr.isEmpty, "\(now)")
        let past = try await sandbox.nudge("add", "file taxes", "--due", "2020-01-01T00:00:00Z", "-q")
        #expect(past.status == 0 && past.stdout == "2\n", "\(past)")
        #expect(past.stderr.contains("no reminder will fire for it"), "\(past)")

        try await ManualClockTests.withClient(sandbox) { client in
            // The add was answered once its fire was durable: the history holds it already.
            let events = try await client.history().events
            let kinds = events.map { "\($0["itemID"] as? Int ?? 0) \($0["kind"] as? String ?? "")" }
            #expect(kinds == ["1 scheduled", "1 fired", "1 changed", "2 changed"])
            let fire = events.first { $0["kind"] as? String == "fired" }
            #expect((fire?["lateBy"] as? Double).map { $0 < 1 } == true, "\(events)")
            let item = try await client.ok("GET", "/v1/items/1")
            #expect(item["lastFiredAt"] as? String == item["dueDate"] as? String)
        }
        let listed = try await sandbox.nudge("ls")
        let line = listed.stdout.split(separator: "\n").first { $0.contains("file taxes") }
        #expect(line?.hasSuffix("overdue") == true, "\(listed)")
        // An edit that keeps a past due date says so again; the one that fired says nothing.
        let edited = try await sandbox.nudge("edit", "2", "--due", "2020-01-02T00:00:00Z")
        #expect(edited.status == 0 && edited.stderr.contains("no reminder will fire"), "\(edited)")
        let retext = try await sandbox.nudge("edit", "1", "--text", "stretch again")
        #expect(retext.status == 0 && retext.stderr.isEmpty, "\(retext)")
        // Warnings count back from a due date: without one, nudge says they will not fire.
        let undated = try await sandbox.nudge("add", "someday", "--warn", "1h")
        #expect(undated.status == 0 && undated.stderr.contains("has no due date, so its warnings"), "\(undated)")
        let dated = try await sandbox.nudge("edit", "3", "--due", "in 2h")
        #expect(dated.status == 0 && dated.stderr.isEmpty, "\(dated)")
    }
}
