import Foundation
import Testing

/// Priority and per-item catch-up on the real nudged, its clock manual: a restart long after reminders fell due
/// fires each or reports it missed by its own rule, and a command sees the priority.
@Suite(.timeLimit(hangLimit)) struct ReminderPolicyTests {
    @Test func eachItemsCatchUpRuleDecidesWhatFiresAfterDowntime() async throws {
        let start = TestClock.epoch  // 2027-01-01T00:00:00Z
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        let arguments = ["--catch-up-window", "1h"] + recorder.onFire
        let due = iso(start + 60)
        do {
            let daemon = try await Daemon(
                sandbox,
                sinks: "command",
                clock: .manual(start),
                arguments: arguments
            )
            defer { daemon.stop() }
            for (text, flags) in [
                ("always", ["--catch-up", "always", "--priority", "high"]),
                ("never", ["--catch-up", "never"]),
                ("within 3h", ["--catch-up", "3h", "--priority", "low"]),
                ("the daemon's hour", []),
            ] {
                let added = try await run(
                    Binaries.nudge,
                    ["add", text, "--due", due, "--socket", sandbox.socket] + flags
                )
                #expect(added.status == 0, "\(added)")
            }
            let shown = try await sandbox.nudge("show", "1")
            #expect(shown.stdout.contains("Priority:") && shown.stdout.contains("high"), "\(shown)")
        }
        // Down for two hours past the due instant.
        let daemon = try await Daemon(
            sandbox,
            sinks: "command",
            clock: .manual(start + 60 + 7200),
            arguments: arguments
        )
        defer { daemon.stop() }
        let events = try await ManualClockTests.withClient(sandbox) { try await $0.history().events }
        let decided = Dictionary(
            events.filter { ["fired", "missed"].contains($0["kind"] as? String) }
                .map { ($0["itemID"] as? Int ?? 0, $0) }
        ) { a, _ in a }
        #expect(decided[1]?["kind"] as? String == "fired")
        #expect(decided[2]?["kind"] as? String == "missed")
        #expect(decided[2]?["catchUp"] as? String == "never")
        #expect(decided[3]?["kind"] as? String == "fired")
        #expect(decided[4]?["kind"] as? String == "missed")
        #expect(decided[4]?["catchUp"] as? String == "PT1H", "the daemon's window, said as a duration")
        #expect(decided[1]?["priority"] as? String == "high")

        try await recorder.awaitRuns(of: [1, 3], daemon: daemon)
        #expect(recorder.environment(1)["NUDGE_PRIORITY"] == "high")
        #expect(recorder.environment(3)["NUDGE_PRIORITY"] == "low")
        #expect(recorder.firedAt(2) == nil && recorder.firedAt(4) == nil)

        let missed = try await sandbox.nudge("events", "--kind", "missed")
        #expect(missed.stdout.contains("(catch-up: never)"), "\(missed)")
        #expect(missed.stdout.contains("(catch-up: within 1h"), "\(missed)")

        let high = try await sandbox.nudge("ls", "--priority", "high", "--json")
        let items = (try? JSONSerialization.jsonObject(with: high.output) as? [[String: Any]]) ?? []
        #expect(items.map { $0["itemID"] as? Int } == [1])
        let sorted = try await sandbox.nudge("ls", "--sort", "priority", "--json")
        let order = (try? JSONSerialization.jsonObject(with: sorted.output) as? [[String: Any]]) ?? []
        #expect(order.map { $0["itemID"] as? Int } == [1, 2, 4, 3])
    }
}

/// Snooze on the real nudged, its clock manual: the reminder moves, the due date stays, a fire and a snooze in the
/// same instant both stand, and what is refused is refused with the API's error.
@Suite(.timeLimit(hangLimit)) struct SnoozeFlowTests {
    @Test func aSnoozedReminderFiresAtTheSnoozedInstantOnlyAndTheEventsSayWhy() async throws {
        let start = TestClock.epoch  // 2027-01-01T00:00:00Z
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(start))
        defer { daemon.stop() }
        try await ManualClockTests.withClient(sandbox) { client in
            for (text, due) in [("tea", start + 60), ("call", start + 900)] {
                let added = try await sandbox.nudge("add", text, "--due", iso(due))
                #expect(added.status == 0, "\(added)")
            }
            let snoozed = try await sandbox.nudge("snooze", "1", "--json")
            let item = try JSONSerialization.jsonObject(with: snoozed.output) as? [String: Any]
            #expect(date(item?["pendingDue"]) == start + 600, "10 minutes by nudged's clock: \(snoozed)")
            #expect(date(item?["dueDate"]) == start + 60)

            _ = try await client.ok("POST", "/v1/clock", ["advance": "PT5M"])
            // The clock's answer comes once everything due on the way is decided: nothing fired at the due date.
            #expect(try await client.history().events.allSatisfy { $0["kind"] as? String != "fired" })

            // Item 2 fires at 00:15; a snooze in that same instant schedules it again, after the fire.
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 900)])
            let again = try await client.ok("POST", "/v1/items/2/snooze", ["for": "PT5M"])
            #expect(date(again["pendingDue"]) == start + 1200)
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 1200)])

            let events = try await client.history().events
            // The reminders' decisions; the user's changes (`changed`) aside.
            let decisions = events.filter { $0["kind"] as? String != "changed" }
            let tea = decisions.filter { $0["itemID"] as? Int == 1 }
            #expect(tea.map { $0["kind"] as? String ?? "" } == ["scheduled", "snoozed", "fired"])
            #expect(date(tea[1]["due"]) == start + 600 && date(tea[1]["previousDue"]) == start + 60)
            #expect(date(tea[2]["due"]) == start + 600 && date(tea[2]["at"]) == start + 600)
            let call = decisions.filter { $0["itemID"] as? Int == 2 }
            #expect(call.map { $0["kind"] as? String ?? "" } == ["scheduled", "fired", "snoozed", "fired"])
            #expect(call.compactMap { date($0["at"]) }.suffix(3) == [start + 900, start + 900, start + 1200])

            let shown = try await sandbox.nudge("events", "--item", "1")
            #expect(shown.stdout.contains("snoozed") && shown.stdout.contains("until 00:10:00"), "\(shown)")

            let both = try await client.request("POST", "/v1/items/1/snooze", ["for": "PT5M", "until": iso(start)])
            #expect(both.status == 400)
            let past = try await client.request("POST", "/v1/items/1/snooze", ["until": iso(start)])
            #expect(
                past.status == 409
                    && ((past.json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
                        == "instant_out_of_reach"
            )
            _ = try await sandbox.nudge("done", "1")
            let checked = try await client.request("POST", "/v1/items/1/snooze", ["for": "PT5M"])
            #expect(checked.status == 409)
        }
        let refused = try await sandbox.nudge("snooze", "2", "soon")
        #expect(refused.status == 2, "\(refused)")
    }
}

/// Advance warnings on the real nudged, its clock manual: each comes at its lead in the journal and a command's
/// environment, an edit in the instant a warning came replaces the rest, a check-off between a warning and the due
/// date cancels what is left, a warning already past when set never comes, and a restart never sends one twice.
@Suite(.timeLimit(hangLimit)) struct WarningFlowTests {
    @Test func warningsComeAtTheirLeadsAndEditsAndCheckOffsReplaceAndCancelThem() async throws {
        try JournalReader.requireJournald()
        let start = TestClock.epoch  // 2027-01-01T00:00:00Z
        let hour: TimeInterval = 3600
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        var daemon = try await Daemon(
            sandbox,
            sinks: "journal,command",
            clock: .manual(start),
            arguments: recorder.onFire
        )
        defer { daemon.stop() }
        try await ManualClockTests.withClient(sandbox) { client in
            for (text, due, warn) in [
                ("dentist", start + 2 * hour, "1h,10m"), ("bins", start + 2 * hour, "1h"),
                ("call", start + 1800, "10m,1h"), ("pills", start + 5 * hour, "PT1H"),
            ] {
                let added = try await sandbox.nudge("add", text, "--due", iso(due), "--warn", warn)
                #expect(added.status == 0, "\(added)")
            }
            let pending = try await client.ok("GET", "/v1/pending")["reminders"] as? [[String: Any]] ?? []
            let warnings = Dictionary(
                pending.map { ($0["itemID"] as? Int ?? 0, ($0["warnings"] as? [String] ?? []).compactMap(date)) }
            ) { a, _ in a }
            #expect(warnings[1] == [start + hour, start + 2 * hour - 600])
            #expect(warnings[3] == [start + 1200], "the warning an hour ahead was already past when set")
            let listed = try await sandbox.nudge("pending")
            #expect(listed.stdout.contains("warns"), "\(listed)")

            // 00:20 item 3 warns, 00:30 it fires; 01:00 items 1 and 2 warn, an hour ahead.
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + hour)])
            try await recorder.awaitRuns(of: [1, 2], daemon: daemon)
            #expect(recorder.environment(1)["NUDGE_WARNING"] == "PT1H")
            #expect(recorder.environment(1)["NUDGE_DUE"] == preciseISO(start + 2 * hour))
            let pid = daemon.process.processIdentifier
            let journaled = try await JournalReader.jsonEntries(
                ["_PID=\(pid)", "NUDGE_EVENT=warned", "NUDGE_ITEM_ID=1"]
            )
            let fields = journaled.first.map(JournalReader.sentFields) ?? [:]
            #expect(fields["NUDGE_WARNING"] == [Array("PT1H".utf8)])
            #expect(fields["MESSAGE"].map { String(decoding: $0[0], as: UTF8.self) }?.hasPrefix("due in 1h") == true)

            // In the instant the warning came, the due date moves: the warning stands, and both leads come again
            // before the new due date.
            let edited = try await sandbox.nudge("edit", "1", "--due", iso(start + 3 * hour))
            #expect(edited.status == 0, "\(edited)")
            // Between its warning and its due date, item 2 is checked off: nothing more comes of it.
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 1.5 * hour)])
            #expect(try await sandbox.nudge("done", "2").status == 0)
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 4 * hour)])

            let events = try await client.history().events
            // The reminders' decisions about an item; the user's changes (`changed`) aside.
            func timeline(_ itemID: Int) -> [String] {
                events.filter { $0["itemID"] as? Int == itemID && $0["kind"] as? String != "changed" }.map {
                    ($0["kind"] as? String ?? "") + (($0["warning"] as? String).map { " " + $0 } ?? "")
                }
            }
            #expect(timeline(1) == ["scheduled", "warned PT1H", "replaced", "warned PT1H", "warned PT10M", "fired"])
            #expect(timeline(2) == ["scheduled", "warned PT1H", "cancelled"])
            #expect(timeline(3) == ["scheduled", "warned PT10M", "fired"])
            #expect(timeline(4) == ["scheduled", "warned PT1H"])
            let first = events.first { $0["itemID"] as? Int == 1 && $0["kind"] as? String == "warned" }
            #expect(date(first?["at"]) == start + hour && date(first?["due"]) == start + 2 * hour)

            let shown = try await sandbox.nudge("show", "1")
            #expect(shown.stdout.contains("1h, 10m before"), "\(shown)")
            let history = try await sandbox.nudge("events", "--item", "1", "--kind", "warned")
            #expect(history.stdout.contains("warning 10m ahead"), "\(history)")

            let refused = try await client.request("PATCH", "/v1/items/1", ["warnings": ["soon"]])
            #expect(
                refused.status == 400
                    && ((refused.json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
                        == "invalid_warning"
            )
            let typo = try await sandbox.nudge("edit", "1", "--warn", "1h,soon")
            #expect(typo.status == 2 && typo.stderr.contains("\"soon\" is not a duration"), "\(typo)")
            let cleared = try await sandbox.nudge("edit", "1", "--no-warn", "--json")
            let item = try JSONSerialization.jsonObject(with: cleared.output) as? [String: Any]
            #expect(item?["warnings"] == nil, "\(cleared)")
        }

        // Item 4 warned at 04:00; restarted a minute later, nudged does not send that warning again.
        daemon.stop()
        daemon = try await Daemon(
            sandbox,
            sinks: "journal,command",
            clock: .manual(start + 4 * hour + 60),
            arguments: recorder.onFire
        )
        try await ManualClockTests.withClient(sandbox) { client in
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(start + 5 * hour)])
            let pills = try await client.history().events.filter { $0["itemID"] as? Int == 4 }
            #expect(pills.map { $0["kind"] as? String ?? "" } == ["scheduled", "changed", "warned", "fired"])
        }
    }
}
