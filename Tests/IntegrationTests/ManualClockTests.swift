import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// The real nudged on a manual clock (`--clock manual:INSTANT`), driven through `POST /v1/clock`, and its event
/// history read back through `GET /v1/events`: every decision numbered, kept, replayed to a late watcher.
@Suite(.timeLimit(hangLimit)) struct ManualClockTests {
    static let start = TestClock.epoch  // 2027-01-01T00:00:00Z

    /// One client over the socket, keeping its connection.
    static func withClient<Result>(
        _ sandbox: Sandbox,
        _ body: (FullDiskTests.API) async throws -> Result
    ) async throws -> Result {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let result = try await body(FullDiskTests.API(http: http, socket: sandbox.socket))
            try await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// A reminder falls due while nudged is stopped; the catch-up fire at start comes before anyone can connect,
    /// yet a watcher that connects after start-up sees it, through the history.
    @Test func aReminderThatFellDueWhileNudgedWasDownIsSeenByAWatcherThatConnectsLater() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let itemID: Int
        do {
            let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
            defer { daemon.stop() }
            itemID = try await Self.withClient(sandbox) { client in
                let added = try await client.ok(
                    "POST",
                    "/v1/items",
                    ["text": "while down", "dueDate": iso(Self.start + 600), "shouldRemind": true]
                )
                return added["itemID"] as? Int ?? 0
            }
        }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start + 3600))
        defer { daemon.stop() }
        let watched = try await sandbox.nudge("events", "--item", "\(itemID)", "--json")
        #expect(watched.status == 0, "\(watched)")
        let events = (try? JSONSerialization.jsonObject(with: watched.output) as? [[String: Any]]) ?? []
        #expect(events.map { $0["kind"] as? String ?? "" } == ["scheduled", "changed", "fired"])
        #expect(events.last?["lateBy"] as? Double == 3000)

        // The stream too: a watcher that resumes after the first event gets the fire first, then live events.
        let watcher = try await Watcher(sandbox, since: 1)
        defer { watcher.stop() }
        let fired = try await watcher.awaitEvent("fired", item: itemID)
        #expect(fired.lateBy == 3000)
    }

    /// A watcher that reconnects with the last ID it saw gets every later event once, in order, while changes keep
    /// coming: no gap and no duplicate at the seam between the history and the live stream.
    @Test func aReconnectingWatcherMissesNothingAndSeesNothingTwiceWhileChangesFlow() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        let itemID = try await Self.withClient(sandbox) { client in
            let added = try await client.ok(
                "POST",
                "/v1/items",
                ["text": "busy", "dueDate": iso(Self.start + 86_400), "shouldRemind": true]
            )
            return added["itemID"] as? Int ?? 0
        }
        let done = Flag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Edits, one after another, each replacing the reminder: one event each, until the watchers are done.
            group.addTask {
                try await Self.withClient(sandbox) { client in
                    var edit = 0
                    while !done.isSet {
                        edit += 1
                        let due = Self.start + 86_400 + Double(edit)
                        _ = try await client.ok("PATCH", "/v1/items/\(itemID)", ["dueDate": iso(due)])
                    }
                }
            }
            // Watchers join at different points of the flow, each resuming a few events before the latest it was
            // told of, so part of what it gets comes from the history and the rest live.
            for _ in 0..<4 {
                let latest = try await Self.withClient(sandbox) { client in
                    try await client.ok("GET", "/v1/events?follow=false&limit=1&since=999999999")["latest"] as? Int ?? 0
                }
                let since = max(latest - 5, 0)
                let watcher = try await Watcher(sandbox, since: since)
                defer { watcher.stop() }
                try await IntegrationTests.eventually(
                    "the watcher resuming after event \(since) to see 100 events",
                    seen: { "events \(watcher.events.suffix(3)); not events \(watcher.linesNotUnderstood.prefix(3))" }
                ) { watcher.events.count >= 100 }
                let ids = watcher.events.map(\.id)
                #expect(ids == Array((since + 1)..<(since + 1 + ids.count)), "a gap or a duplicate at the seam")
            }
            done.set()
            try await group.waitForAll()
        }
    }

    /// A history that keeps 10 events, asked for all of them: the stream starts with a gap saying how many are gone.
    @Test func aWatcherAskingForMoreThanTheHistoryKeepsIsToldHowManyEventsAreGone() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            clock: .manual(Self.start),
            arguments: ["--history-events", "10"]
        )
        defer { daemon.stop() }
        try await Self.withClient(sandbox) { client in
            for minute in 1...30 {
                _ = try await client.ok(
                    "POST",
                    "/v1/items",
                    ["text": "item \(minute)", "dueDate": iso(Self.start + Double(minute) * 60), "shouldRemind": true]
                )
            }
            let page = try await client.ok("GET", "/v1/events?follow=false&since=0")
            // Each add is two events (scheduled, changed): 60 in all, of which the last 10 are kept.
            #expect(page["dropped"] as? Int == 50)
            #expect((page["events"] as? [[String: Any]])?.first?["id"] as? Int == 51)
        }
        let stream = try RawConnection(sandbox.socket, sending: "GET /v1/events?since=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        defer { stream.close() }
        try await daemon.eventually("the replayed stream to reach event 60") {
            try stream.readAvailable()
            return stream.text.contains("id: 60\n")
        }
        let body = stream.text.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        #expect(body.contains("event: gap\ndata: {\"dropped\":50,"), "\(body.prefix(300))")
        #expect(body.range(of: "event: gap")!.lowerBound < body.range(of: "id: 51\n")!.lowerBound)
    }

    /// `count` reminders due a tenth of a second apart from `first`, added in batches of 10,000.
    static func addReminders(_ count: Int, from first: Date, _ sandbox: Sandbox) async throws {
        for chunk in stride(from: 0, to: count, by: 10_000) {
            let operations = (chunk..<min(chunk + 10_000, count)).map { index in
                let due = (first + Double(index) / 10).formatted(
                    Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                )
                return #"{"op": "add", "item": {"text": "r\#(index)", "dueDate": "\#(due)"}}"#
            }
            let body = #"{"operations": ["# + operations.joined(separator: ",") + "]}"
            let added = try await sandbox.curl("POST", "/v1/batch", body: body)
            try #require(added.status == 200, "\(added.status): \(added.body.prefix(300))")
        }
    }

    /// Every fired event in the history after `since`, read a page at a time.
    static func fired(since: Int, _ sandbox: Sandbox) async throws -> [[String: Any]] {
        var events: [[String: Any]] = []
        var next: Int? = since
        while let after = next {
            let page = try await sandbox.curl("GET", "/v1/events?follow=false&kind=fired&limit=10000&since=\(after)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any])
            events += json["events"] as? [[String: Any]] ?? []
            next = json["next"] as? Int
        }
        return events
    }

    /// What fell due while nudged was down is decided at start a turn (1,000 events) at a time, on the manual clock
    /// too, where no timer wakes the loop and no request need come: 25,000 reminders fire once each, late, in due
    /// order. (Reading the history, as here, is not an input of the loop.)
    @Test func aCatchUpOfManyTurnsFiresEveryReminderOnceInOrder() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let count = 25_000
        do {
            let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
            defer { daemon.stop() }
            try await Self.addReminders(count, from: Self.start + 1, sandbox)
        }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start + 7200))
        defer { daemon.stop() }
        // Each add scheduled its reminder (events 1 to 25,000); each reminder then fires once.
        var latest = 0
        try await eventually("event \(2 * count) in the history", seen: { "the latest is \(latest)" }) {
            let page = try await sandbox.curl("GET", "/v1/events?follow=false&limit=1&since=\(Int.max)")
            let json = try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any]
            latest = json?["latest"] as? Int ?? 0
            return latest >= 2 * count
        }
        let fired = try await Self.fired(since: 0, sandbox)
        #expect(fired.map { $0["itemID"] as? Int ?? 0 } == Array(1...count), "each once, in due order")
        #expect(fired.allSatisfy { ($0["lateBy"] as? Double ?? 0) > 0 })
        let health = try await sandbox.curl("GET", "/v1/health")
        #expect(health.body.contains(#""pending":0"#), "\(health.body)")
    }

    /// A clock move or a batch that decides more events than one turn of nudged's loop may (10,000) goes on over
    /// several turns, answering reads meanwhile (`scripts/bench firing` prints how fast `/v1/health` answers during
    /// one): here 25,000 reminders, each fired once, in due order, on time, and the answer comes once all are. A
    /// change in the same batch after the move applies after all of it.
    @Test func aClockMoveOfManyTurnsFiresEveryReminderOnceInOrderAndAnswersAtItsEnd() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        let count = 25_000
        func addReminders(from first: Date) async throws {
            try await Self.addReminders(count, from: first, sandbox)
        }
        func fired(since: Int) async throws -> [[String: Any]] { try await Self.fired(since: since, sandbox) }

        try await addReminders(from: Self.start + 1)
        let moved = try await sandbox.curl("POST", "/v1/clock", body: #"{"advance": "PT2H"}"#)
        #expect(moved.status == 200 && moved.body.contains("2027-01-01T02:00:00.000Z"), "\(moved)")
        let first = try await fired(since: 0)
        #expect(first.count == count)
        #expect(first.map { $0["itemID"] as? Int ?? 0 } == Array(1...count), "each once, in due order")
        #expect(first.allSatisfy { $0["lateBy"] as? Double == 0 })

        try await addReminders(from: Self.start + 7201)
        let latest = try #require(first.last?["id"] as? Int)
        let batch = try await sandbox.curl(
            "POST",
            "/v1/batch",
            body: #"{"operations": [{"op": "clock", "move": {"advance": "PT2H"}}, "#
                + #"{"op": "clock", "move": {"advance": "PT1H"}}, {"op": "add", "item": {"text": "after the move"}}]}"#
        )
        #expect(batch.status == 200, "\(batch.status): \(batch.body.prefix(300))")
        // The second move goes on from where the first, of many turns, ended.
        #expect(batch.body.contains(#""now":"2027-01-01T04:00:00.000Z""#), "\(batch.body.prefix(600))")
        #expect(batch.body.contains(#""createdAt":"2027-01-01T05:00:00.000Z""#), "\(batch.body.prefix(600))")
        let second = try await fired(since: latest)
        #expect(second.map { $0["itemID"] as? Int ?? 0 } == Array((count + 1)...(2 * count)))
        let health = try await sandbox.curl("GET", "/v1/health")
        #expect(health.body.contains(#""pending":0"#), "\(health.body)")
    }

    /// A batch stops at its first refused operation: the answer names it, and what came before it is saved (it is
    /// there after a restart), what came after it is not.
    @Test func aBatchStopsAtItsFirstRefusedOperationAndKeepsThoseBeforeIt() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        do {
            let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
            defer { daemon.stop() }
            let refused = try await sandbox.curl(
                "POST",
                "/v1/batch",
                body: #"{"operations": [{"op": "add", "item": {"text": "kept", "dueDate": "2027-01-01T00:10:00Z"}}, "#
                    + #"{"op": "clock", "move": {"advance": "PT1H"}}, {"op": "edit", "itemID": 9, "patch": {}}, "#
                    + #"{"op": "add", "item": {"text": "never tried"}}]}"#
            )
            #expect(refused.status == 404, "\(refused)")
            #expect(errorCode(refused.body) == "unknown_item")
            #expect(refused.body.contains(#""operation":2"#), "\(refused.body)")
            #expect(refused.body.contains("operations 0 to 1 before it were applied and saved"), "\(refused.body)")
            // What those two answered: the item added, with its ID, and where the clock moved to.
            let error = try #require(
                (try JSONSerialization.jsonObject(with: Data(refused.body.utf8)) as? [String: Any])?["error"]
                    as? [String: Any]
            )
            let applied = try #require(error["applied"] as? [[String: Any]], "\(refused.body)")
            #expect(applied.map { $0["op"] as? String } == ["add", "clock"])
            #expect((applied[0]["item"] as? [String: Any])?["itemID"] as? Int == 1, "\(refused.body)")
            #expect((applied[1]["clock"] as? [String: Any])?["now"] as? String == "2027-01-01T01:00:00.000Z")
        }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start + 7200))
        defer { daemon.stop() }
        let items = try await sandbox.curl("GET", "/v1/items?all=true")
        #expect(items.body.contains("\"kept\"") && !items.body.contains("never tried"), "\(items.body)")
        let events = try await sandbox.curl("GET", "/v1/events?follow=false")
        // Fired by the batch's clock move, on time, not late by the restart.
        #expect(events.body.contains(#""kind":"fired","lateBy":0,"#), "\(events.body)")
    }

    /// `nudge batch`: a script of operations, one a line, drives items and the clock in one request. A refused
    /// operation stops it after what came before is shown; a line out of shape is a usage error naming it, and nothing
    /// is sent.
    @Test func nudgeBatchRunsAScriptOfOperations() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        func script(_ name: String, _ text: String) throws -> String {
            let path = sandbox.path + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let day = try script(
            "day.jsonl",
            #"""
            {"op": "add", "item": {"text": "tea", "dueDate": "2027-01-01T01:00:00Z"}}

            {"op": "edit", "itemID": 1, "patch": {"text": "green tea"}}
            {"op": "clock", "move": {"advance": "PT2H"}}
            {"op": "add", "item": {"text": "biscuits"}}
            {"op": "remove", "itemID": 2}
            """#
        )
        let ran = try await sandbox.nudge("batch", day)
        #expect(ran.status == 0, "\(ran)")
        let lines = ran.stdout.split(separator: "\n")
        #expect(lines.count == 5, "\(ran)")
        #expect(lines.first?.hasPrefix("add: ") == true && lines.first?.contains("tea") == true, "\(ran)")
        #expect(lines.dropFirst().first?.contains("green tea") == true, "\(ran)")
        #expect(lines.dropFirst(2).first?.hasPrefix("clock: now ") == true, "\(ran)")
        #expect(lines.last == "remove: removed 2", "\(ran)")
        // The edited reminder fired at its own instant, inside the batch's clock move.
        let fired = try await sandbox.curl("GET", "/v1/events?follow=false&kind=fired")
        #expect(fired.body.contains(#""lateBy":0"#) && fired.body.contains("green tea"), "\(fired.body)")

        let refusing = try script(
            "refusing.json",
            #"[{"op": "add", "item": {"text": "kept"}}, {"op": "remove", "itemID": 99}]"#
        )
        let refused = try await sandbox.nudge("batch", refusing)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.hasPrefix("add: ") && refused.stdout.contains("kept"), "\(refused)")
        #expect(
            refused.stderr.contains("operation 1 of the batch was refused: there is no item with ID 99"),
            "\(refused)"
        )
        let json = try await sandbox.nudge("batch", refusing, "--json")
        #expect(json.status == 1 && json.stdout.contains(#""applied":[{"#), "\(json)")

        let outOfShape = try script(
            "bad.jsonl",
            "{\"op\": \"add\", \"item\": {\"text\": \"never sent\"}}\n{\"op\": \"frob\"}\n"
        )
        let bad = try await sandbox.nudge("batch", outOfShape)
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.stderr.contains(#"line 2: field op: "frob" is not one of the values it takes"#), "\(bad)")
        let notJSON = try await sandbox.nudge(
            "batch",
            try script("not.jsonl", "{\"op\": \"remove\", \"itemID\": 1}\nnot json\n")
        )
        #expect(notJSON.status == 2 && notJSON.stderr.contains("not.jsonl line 2 is not JSON"), "\(notJSON)")
        let items = try await sandbox.curl("GET", "/v1/items?all=true")
        #expect(!items.body.contains("never sent") && items.body.contains("green tea"), "\(items.body)")
    }

    /// On a manual clock, dates typed on the command line ("in 1h", "until in 30m") and what nudge says about them
    /// go by nudged's clock, a month and more from the machine's here, not by the machine's.
    @Test func datesOnTheCommandLineGoByNudgedsClock() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        let added = try await sandbox.nudge("add", "tea", "--due", "in 1h")
        #expect(added.stdout.contains("in 1h · Fri 1 Jan"), "\(added)")
        let json = try await sandbox.nudge("add", "more tea", "--due", "in 2h", "--json")
        #expect(json.stdout.contains(#""dueDate":"2027-01-01T02:00:00.000Z""#), "\(json)")
        let edited = try await sandbox.nudge("edit", "1", "--due", "in 3h")
        #expect(edited.stdout.contains("in 3h · Fri 1 Jan"), "\(edited)")
        let soon = try await sandbox.nudge("ls", "--due-before", "in 150m")
        #expect(soon.stdout.contains("  2  [ ]  more tea") && !soon.stdout.contains("  1  [ ]"), "\(soon)")
        let snoozed = try await sandbox.nudge("snooze", "1", "until", "in", "30m", "--json")
        #expect(snoozed.stdout.contains(#""snoozedUntil":"2027-01-01T00:30:00.000Z""#), "\(snoozed)")
        let done = try await sandbox.nudge("done", "2")
        #expect(done.stdout.contains("[x]  more tea  in 2h"), "\(done)")
    }

    /// The clock through the command line; on the wall clock, moving it is refused with the JSON error.
    @Test func theClockMovesOnlyWhenToldAndOnlyWhenManual() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        do {
            let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
            defer { daemon.stop() }
            let shown = try await sandbox.nudge("clock", "--json")
            #expect(shown.stdout.contains("\"mode\":\"manual\""), "\(shown)")
            #expect(shown.stdout.contains("\"now\":\"2027-01-01T00:00:00.000Z\""), "\(shown)")
            let advanced = try await sandbox.nudge("clock", "advance", "1h30m", "--json")
            #expect(advanced.stdout.contains("\"now\":\"2027-01-01T01:30:00.000Z\""), "\(advanced)")
            let set = try await sandbox.nudge("clock", "set", "2027-03-01T12:00:00Z", "--json")
            #expect(set.stdout.contains("\"now\":\"2027-03-01T12:00:00.000Z\""), "\(set)")
            let wrong = try await sandbox.curl(
                "POST",
                "/v1/clock",
                body: #"{"advance":"PT1H","to":"2027-01-01T00:00:00Z"}"#
            )
            #expect(wrong.status == 400 && errorCode(wrong.body) == "invalid_body", "\(wrong)")
        }
        let daemon = try await Daemon(sandbox, clock: .wall)
        defer { daemon.stop() }
        let refused = try await sandbox.curl("POST", "/v1/clock", body: #"{"advance":"PT1H"}"#)
        #expect(refused.status == 409, "\(refused)")
        #expect(errorCode(refused.body) == "clock_not_manual")
        let cli = try await sandbox.nudge("clock", "advance", "1h")
        #expect(cli.status == 1)
        #expect(cli.stderr.contains("--clock manual"), "\(cli)")
        let shown = try await sandbox.nudge("clock")
        #expect(shown.stdout.contains("(wall clock)"), "\(shown)")
    }
}

/// The manual clock over a year: 8,760 hours of edits and clock moves, sent as batches (`POST /v1/batch`), a month
/// to a batch. In a suite of its own, for its time limit, which only catches a hang.
@Suite(.timeLimit(hangLimit)) struct YearOfEditsTests {
    /// A year of hourly edits: each hour the item's reminder is replaced, three hours in four by one due later
    /// than the next hour (it must never fire at the instant it replaced), the fourth by one due within the hour
    /// (it must fire there, once, on time). The whole history is then read back and checked event by event.
    @Test func aReminderEditedEveryHourForAYearFiresOncePerDueInstantAndNeverAtAReplacedOne() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let start = ManualClockTests.start
        // The history keeps the whole year (by default it keeps 30 days, of the manual clock too).
        let daemon = try await Daemon(sandbox, clock: .manual(start), arguments: ["--history-age", "400d"])
        defer { daemon.stop() }
        let hours = 24 * 365
        let started = ContinuousClock.now
        let (itemID, fireInstants) = try await ManualClockTests.withClient(sandbox) { client in
            let added = try await client.ok(
                "POST",
                "/v1/items",
                ["text": "hourly", "dueDate": iso(start + 7200), "shouldRemind": true]
            )
            let itemID = added["itemID"] as? Int ?? 0
            func edit(_ due: Date) -> [String: Any] {
                ["op": "edit", "itemID": itemID, "patch": ["dueDate": iso(due)]]
            }
            var fireInstants: [Date] = []
            var month: [[String: Any]] = []
            var clockReadings: [Date] = []
            for hour in 0..<hours {
                let now = start + Double(hour) * 3600
                let fires = hour % 4 == 3
                // Pending since the last hour and still in the future, so replaced either way: at :45 within the
                // hour, or at :30 and some minutes the hour after next. No instant is ever set twice.
                let due = fires ? now + 2700 : now + 5400 + 60 * Double(hour % 4)
                if fires { fireInstants.append(due) }
                month.append(edit(due))
                month.append(["op": "clock", "move": ["advance": "PT1H"]])
                clockReadings.append(now + 3600)
                // Fired within the hour: schedule one again, on the hour after next, for the next edit to replace.
                if fires { month.append(edit(now + 3 * 3600)) }
                if (hour + 1) % 730 == 0 || hour == hours - 1 {
                    let report = try await client.ok("POST", "/v1/batch", ["operations": month])
                    let results = report["results"] as? [[String: Any]] ?? []
                    #expect(results.count == month.count)
                    let nows = results.compactMap { ($0["clock"] as? [String: Any]).flatMap { date($0["now"]) } }
                    #expect(nows == clockReadings, "each hour's clock move ended on the hour")
                    month = []
                    clockReadings = []
                }
            }
            return (itemID, fireInstants)
        }
        let driven = ContinuousClock.now - started
        print("a year of hourly edits on the manual clock: \(hours) hours driven in \(driven)")

        let events = try await ManualClockTests.withClient(sandbox) { try await $0.history().events }
        let checked = ContinuousClock.now - started
        print("… and its \(events.count) events read back by \(checked)")
        // Every event, numbered 1, 2, 3, … with none missing, and all about the one item.
        #expect(events.map { $0["id"] as? Int ?? 0 } == Array(1...events.count))
        #expect(events.allSatisfy { $0["itemID"] as? Int == itemID })
        let fired = events.filter { $0["kind"] as? String == "fired" }
        #expect(fired.compactMap { date($0["due"]) } == fireInstants, "fired once at each due instant, in order")
        #expect(fired.allSatisfy { date($0["at"]) == date($0["due"]) && ($0["lateBy"] as? Double) == 0 })
        let replaced = events.filter { $0["kind"] as? String == "replaced" }
        #expect(replaced.count == hours, "each hour's edit replaced a pending reminder")
        let replacedInstants = Set(replaced.compactMap { date($0["previousDue"]) })
        #expect(fired.allSatisfy { !replacedInstants.contains(date($0["due"]) ?? .distantPast) })
        let batches = (hours + 729) / 730
        #expect(
            events.count == 1 + hours + fireInstants.count * 2 + 1 + batches,
            "scheduled once, then per hour an edit, per fire two; and the user's changes: the add, each batch"
        )
        #expect(events.filter { $0["kind"] as? String == "changed" }.count == 1 + batches)
    }
}
