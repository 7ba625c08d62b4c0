import Foundation
import Testing

/// Repeat after completion on the real nudged, driven by its manual clock, through the command line and the API: a
/// check-off leaves the item open and due again that long after, its reminder fires then, and the export says so.
@Suite(.timeLimit(hangLimit)) struct RepeatAfterTests {
    static let start = TestClock.epoch  // 2027-01-01T00:00:00Z
    static let twoWeeks: TimeInterval = 14 * 86_400

    private func json(_ result: CommandResult) throws -> [String: Any] {
        try #require(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any], "\(result)")
    }

    @Test func aCheckOffMakesItDueAgainTwoWeeksLaterAndItFiresThen() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "Europe/Berlin"
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start), environment: environment)
        defer { daemon.stop() }
        let due = Self.start + 86_400
        let added = try json(
            try await sandbox.nudge("add", "haircut", "--due", iso(due), "--repeat-after", "2w", "--json")
        )
        let id = try #require(added["itemID"] as? Int)
        #expect(added["repeatAfter"] as? String == "P14D" && added["shouldRemind"] as? Bool == true, "\(added)")
        #expect(date(added["pendingDue"]) == due)

        // It fires, and stays due (then overdue) until it is done.
        try await sandbox.moveClock(to: due + 3 * 86_400)
        let done = try await sandbox.nudge("done", String(id))
        #expect(done.status == 0 && done.stdout.contains("↻ 2w after done"), "\(done)")
        let shown = try json(try await sandbox.nudge("show", String(id), "--json"))
        let next = due + 3 * 86_400 + Self.twoWeeks
        #expect(shown["checked"] as? Bool == false && date(shown["dueDate"]) == next, "\(shown)")
        #expect(date(shown["completedThrough"]) == due && date(shown["pendingDue"]) == next, "\(shown)")
        let details = try await sandbox.nudge("show", String(id))
        #expect(details.stdout.contains("2w after each check-off"), "\(details)")

        try await sandbox.moveClock(to: next)
        let events = try await ManualClockTests.withClient(sandbox) { try await $0.history().events }
        let kinds = events.filter { $0["itemID"] as? Int == id }.compactMap { $0["kind"] as? String }
        #expect(kinds == ["scheduled", "changed", "fired", "completed", "scheduled", "changed", "fired"], "\(kinds)")
        let fires = events.filter { $0["itemID"] as? Int == id && $0["kind"] as? String == "fired" }
        #expect(fires.map { date($0["due"]) } == [due, next] && fires.allSatisfy { date($0["at"]) == date($0["due"]) })

        let export = try await sandbox.nudge("export")
        #expect(export.status == 0 && export.stdout.contains("X-NUDGE-REPEAT-AFTER:P14D\r\n"), "\(export)")

        // `done --stop` checks it off for good.
        let stopped = try json(try await sandbox.nudge("done", String(id), "--stop", "--json"))
        #expect(stopped["checked"] as? Bool == true && stopped["repeatAfter"] == nil, "\(stopped)")
    }

    @Test func aLengthOrACombinationItCannotUseIsRefusedSayingWhatToGive() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        let both = try await sandbox.nudge("add", "x", "--repeat", "daily", "--repeat-after", "1d")
        #expect(both.status == 2 && both.stderr.contains("--repeat and --repeat-after"), "\(both)")
        let short = try await sandbox.nudge("add", "x", "--repeat-after", "30m")
        #expect(short.status == 2 && short.stderr.contains("\"30m\" as a repeat after completion"), "\(short)")

        try await ManualClockTests.withClient(sandbox) { client in
            let item = try await client.ok("POST", "/v1/items", ["text": "filter", "repeatAfter": "P8W"])
            let id = try #require(item["itemID"] as? Int)
            #expect(item["repeatAfter"] as? String == "P56D" && item["dueDate"] == nil, "\(item)")
            let refusals: [([String: Any], Int, String)] = [
                (["repeatAfter": "PT5M"], 400, "invalid_repeat"),
                (["repeat": "daily", "repeatAfter": "P1D"], 422, "conflicting_repeat"),
            ]
            for (body, status, code) in refusals {
                let refused = try await client.request("PATCH", "/v1/items/\(id)", body)
                let error = (refused.json as? [String: Any])?["error"] as? [String: Any]
                #expect(refused.status == status && error?["code"] as? String == code, "\(body): \(refused)")
            }
            // A rule takes its place, and `"repeatAfter": null` ends the repeating.
            let ruled = try await client.ok("PATCH", "/v1/items/\(id)", ["repeat": "weekly"])
            #expect(ruled["repeatAfter"] == nil && ruled["repeat"] != nil, "\(ruled)")
            let again = try await client.ok("PATCH", "/v1/items/\(id)", ["repeatAfter": "P1W"])
            #expect(again["repeat"] == nil && again["repeatAfter"] as? String == "P7D", "\(again)")
            let ended = try await client.ok("PATCH", "/v1/items/\(id)", ["repeatAfter": NSNull()])
            #expect(ended["repeat"] == nil && ended["repeatAfter"] == nil, "\(ended)")
        }
    }
}
