import Foundation
import Testing

/// Recurring items on the real nudged, driven by its manual clock, checked against `systemd-analyze calendar` on
/// this machine: the same expression must elapse at the same instants.
@Suite(.timeLimit(hangLimit)) struct RecurrenceTests {
    /// The next `count` elapses of `expression` after `base`, as systemd computes them with `TZ=zone`.
    static func systemdElapses(_ expression: String, zone: String, after base: Date, count: Int) async throws -> [Date]
    {
        let result = try await run(
            "/usr/bin/env",
            [
                "TZ=\(zone)", "systemd-analyze", "calendar", "--iterations=\(count)",
                "--base-time=@\(Int(base.timeIntervalSince1970))", expression,
            ]
        )
        guard result.status == 0 else { throw Failure("systemd-analyze calendar \(expression): \(result)") }
        // "(in UTC): Mon 2027-03-15 06:30:00 UTC", or under TZ=UTC the elapse lines themselves.
        return result.stdout.split(separator: "\n").compactMap { line -> Date? in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard parts.count >= 5, parts.last == "UTC" else { return nil }
            let label = parts.dropLast(4).joined(separator: " ")
            guard label == "(in UTC):" || zone == "UTC" && (label == "Next elapse:" || label.hasPrefix("Iter.")) else {
                return nil
            }
            let count = parts.count
            return date(parts[count - 3] + "T" + parts[count - 2] + "Z")
        }
    }

    /// nudged on a manual clock at `start`, with `TZ=zone`, and one client.
    private static func withDaemon<Result>(
        zone: String,
        start: Date,
        _ body: (Sandbox, FullDiskTests.API) async throws -> Result
    ) async throws -> Result {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = zone
        let daemon = try await Daemon(
            sandbox,
            clock: .manual(start),
            arguments: ["--history-age", "400d"],
            environment: environment
        )
        defer { daemon.stop() }
        return try await ManualClockTests.withClient(sandbox) { try await body(sandbox, $0) }
    }

    /// A year of `Mon..Fri 09:00 Europe/Berlin`, with nudged itself in New York: one fire per weekday, at 09:00 in
    /// Berlin (08:00 UTC in winter, 07:00 UTC in summer), across both of Berlin's DST changes, each on time, each
    /// followed by the next occurrence's scheduling; the instants are systemd's.
    @Test func aYearOfWeekdaysInBerlinFiresOncePerWeekdayAtNineLocalTime() async throws {
        let start = TestClock.epoch  // 2027-01-01T00:00:00Z
        let end = Date(timeIntervalSince1970: 1_830_297_600)  // 2028-01-01T00:00:00Z
        let expression = "Mon..Fri 09:00 Europe/Berlin"
        let events = try await Self.withDaemon(zone: "America/New_York", start: start) { _, client in
            let added = try await client.ok("POST", "/v1/items", ["text": "standup", "repeat": expression])
            #expect(added["repeat"] as? String == "Mon..Fri *-*-* 09:00:00 Europe/Berlin")
            #expect(added["shouldRemind"] as? Bool == true)
            let moved = try await client.ok("POST", "/v1/clock", ["to": iso(end)])
            #expect(date(moved["now"]) == end)
            return try await client.history().events
        }
        let fired = events.filter { $0["kind"] as? String == "fired" }
        let instants = fired.compactMap { date($0["due"]) }

        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        #expect(instants.count == 261, "2027 has 261 weekdays")
        #expect(Set(instants.map { berlin.startOfDay(for: $0) }).count == instants.count, "once a day at most")
        for instant in instants {
            let local = berlin.dateComponents([.weekday, .hour, .minute, .second], from: instant)
            #expect((2...6).contains(local.weekday ?? 0) && local.hour == 9 && local.minute == 0 && local.second == 0)
        }
        #expect(fired.allSatisfy { date($0["at"]) == date($0["due"]) && ($0["lateBy"] as? Double) == 0 })
        let systemd = try await Self.systemdElapses(expression, zone: "America/New_York", after: start, count: 262)
        #expect(instants == Array(systemd.prefix(261)), "the instants systemd-analyze gives")
        // Both DST changes are crossed: 08:00 UTC in January and December, 07:00 UTC in July.
        let utcHours = Set(instants.map { Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: $0).hour })
        #expect(utcHours == [7, 8])

        // Each fire is followed by the scheduling of the next occurrence; the last one is pending into 2028.
        let scheduled = events.filter { $0["kind"] as? String == "scheduled" }.compactMap { date($0["due"]) }
        #expect(scheduled == Array(systemd.prefix(262)))
    }

    /// `*-*-* 02:30` in New York across the spring-forward night (2027-03-14: 02:00 EST jumps to 03:00 EDT): as
    /// systemd does, the day without a 02:30 has no occurrence; the next is 02:30 EDT the day after.
    @Test func halfPastTwoInNewYorkOnTheSpringForwardDayBehavesAsSystemdDoes() async throws {
        let start = Date(timeIntervalSince1970: 1_804_939_200)  // 2027-03-13T12:00:00Z
        let end = start + 4 * 86_400
        let fired = try await Self.withDaemon(zone: "America/New_York", start: start) { sandbox, client in
            let added = try await sandbox.nudge("add", "night job", "--repeat", "*-*-* 02:30", "--json")
            #expect(added.status == 0, "\(added)")
            _ = try await client.ok("POST", "/v1/clock", ["to": iso(end)])
            return try await client.history().events.filter { $0["kind"] as? String == "fired" }
        }
        let systemd = try await Self.systemdElapses("*-*-* 02:30", zone: "America/New_York", after: start, count: 4)
        let instants = fired.compactMap { date($0["due"]) }
        #expect(instants == systemd.filter { $0 <= end })
        // 2027-03-14T06:30Z / 07:30Z would be the missing day; Mar 15 and 16 at 06:30Z (02:30 EDT) fire.
        #expect(instants.map(iso) == ["2027-03-15T06:30:00Z", "2027-03-16T06:30:00Z", "2027-03-17T06:30:00Z"])
    }

    /// Occurrences that fell due while nudged was down make one late fire saying how many passed, never a burst;
    /// the series goes on from the next occurrence.
    @Test func occurrencesMissedWhileDownFireOnceSayingHowMany() async throws {
        let start = TestClock.epoch  // 2027-01-01T00:00:00Z (a Friday)
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        do {
            let daemon = try await Daemon(
                sandbox,
                clock: .manual(start),
                environment: environment
            )
            defer { daemon.stop() }
            let added = try await sandbox.nudge("add", "hourly check", "--repeat", "hourly", "--json")
            #expect(added.status == 0, "\(added)")
        }
        // Down from 00:00 to 05:30: the occurrences at 01:00 … 05:00 passed.
        let daemon = try await Daemon(
            sandbox,
            clock: .manual(start + 5.5 * 3600),
            environment: environment
        )
        defer { daemon.stop() }
        let events = try await ManualClockTests.withClient(sandbox) { try await $0.history().events }
        let kinds = events.map { $0["kind"] as? String ?? "" }
        #expect(kinds == ["scheduled", "changed", "fired", "scheduled"])
        let fire = try #require(events.first { $0["kind"] as? String == "fired" })
        #expect(fire["coalesced"] as? Int == 5)
        #expect(date(fire["due"]) == start + 5 * 3600)
        #expect(fire["lateBy"] as? Double == 1800)
        #expect(date(events.last?["due"]) == start + 6 * 3600)

        let shown = try await sandbox.nudge("events", "--item", "1")
        #expect(shown.stdout.contains("for 5 occurrences that passed unwatched"), "\(shown)")
    }

    /// `nudge calendar` prints what `systemd-analyze calendar` prints, line by line, but for the "From now" lines
    /// (each takes its own now); both exit 1 when an expression is refused.
    @Test func nudgeCalendarPrintsWhatSystemdAnalyzePrints() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "Europe/Berlin"
        let expressions = [
            "Mon..Fri 09:30", "*-*~1 18:00", "quarterly", "*:0/15", "Sat 2027-*-* 1:2:3.5 America/New_York",
            "*-02-29 12:00",
        ]
        let arguments = ["calendar", "--base-time=@1806192000", "--iterations=5"] + expressions  // 2027-03-28T00:00Z, an hour before Berlin springs forward
        let ours = try await run(Binaries.nudge, arguments, environment: environment)
        let systemds = try await run("/usr/bin/systemd-analyze", arguments, environment: environment)
        #expect(ours.status == 0 && systemds.status == 0, "\(ours)\n\(systemds)")
        func comparable(_ text: String) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                .filter { !$0.contains("From now:") }
        }
        #expect(comparable(ours.stdout) == comparable(systemds.stdout))
        #expect(comparable(ours.stdout).count > 6 * 11)

        let refused = try await run(Binaries.nudge, ["calendar", "Mon..Fri 25:00"], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("25"), "\(refused)")
        let systemdRefused = try await run("/usr/bin/systemd-analyze", ["calendar", "Mon..Fri 25:00"])
        #expect(systemdRefused.status == 1)
    }

    /// A rule systemd refuses is refused by `nudge add`, naming the part that is wrong; nothing is added.
    @Test func aRuleSystemdRefusesIsRefusedWithThePartNamed() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        let added = try await sandbox.nudge("add", "standup", "--repeat", "Mon..Fri 9:61")
        #expect(added.status == 1, "\(added)")
        #expect(added.stderr.contains("61"), "\(added)")
        let items = try await sandbox.nudge("ls", "--json")
        #expect(items.stdout.contains("standup") == false)
    }

    /// The command line end to end: `add --repeat`, `ls` and `show` with the rule and the next occurrence, `done`
    /// completing one occurrence (the item stays open), `done --stop` ending the series.
    @Test func theCommandLineAddsShowsCompletesAndStopsASeries() async throws {
        let start = Date(timeIntervalSince1970: 1_798_790_400)  // Fri 2027-01-01T08:00:00Z
        try await Self.withDaemon(zone: "UTC", start: start) { sandbox, _ in
            let added = try await sandbox.nudge("add", "water", "--repeat", "daily", "--quiet")
            #expect(added.status == 0 && added.stdout == "1\n", "\(added)")
            let listed = try await sandbox.nudge("ls")
            #expect(listed.stdout.contains("in 16h · Sat 2 Jan 00:00  ↻ *-*-* 00:00:00  ⏰"), "\(listed)")

            let done = try await sandbox.nudge("done", "1", "--json")
            let item = try JSONSerialization.jsonObject(with: done.output) as? [String: Any]
            #expect(item?["checked"] as? Bool == false)
            #expect(date(item?["completedThrough"]) == start + 16 * 3600)
            #expect(date(item?["dueDate"]) == start + 40 * 3600)
            let shown = try await sandbox.nudge("show", "1")
            let rows = shown.stdout.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1) }
            let fields = Dictionary(
                rows.map { (String($0[0]), String($0.last ?? "").trimmingCharacters(in: .whitespaces)) }
            ) { a, _ in a }
            #expect(fields["Repeat:"] == "*-*-* 00:00:00", "\(shown)")
            #expect(fields["Completed:"]?.hasPrefix("Sat 2 Jan 2027 00:00:00") == true, "\(shown)")
            let events = try await sandbox.nudge("events", "--item", "1")
            #expect(events.stdout.contains("completed"), "\(events)")

            let stopped = try await sandbox.nudge("done", "1", "--stop", "--json")
            let final = try JSONSerialization.jsonObject(with: stopped.output) as? [String: Any]
            #expect(final?["checked"] as? Bool == true)
            #expect(final?["repeat"] == nil)
            #expect(final?["pendingDue"] == nil)
        }
    }
    /// The first `count` occurrences of an RRULE from a DTSTART in `zone`, as python-dateutil gives them (UTC).
    static func dateutilOccurrences(_ rule: String, start: String, zone: String, count: Int) async throws -> [Date] {
        let script = """
            import sys
            from datetime import datetime, timezone
            from zoneinfo import ZoneInfo
            from dateutil.rrule import rrulestr
            start = datetime.strptime(sys.argv[2], '%Y%m%dT%H%M%S').replace(tzinfo=ZoneInfo(sys.argv[3]))
            rule = rrulestr(sys.argv[1], dtstart=start)
            for found, _ in zip(rule, range(int(sys.argv[4]))):
                print(found.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
            """
        let result = try await run(CalendarFileTests.python, ["-c", script, rule, start, zone, String(count)])
        guard result.status == 0 else { throw Failure("dateutil: \(result)") }
        return result.stdout.split(separator: "\n").compactMap { date(String($0)) }
    }

    /// `nudge add --rrule` end to end, on nudged in Berlin: a fortnightly rule with a COUNT fires at the instants
    /// python-dateutil gives, across both DST changes, and then no more; `ls` shows the rule; an export says where
    /// the series stands and reads back unchanged; a rule that cannot repeat is refused, saying why.
    @Test func anRRuleFiresAtTheInstantsDateutilGivesAndRoundTripsThroughAFile() async throws {
        let start = TestClock.epoch  // 2027-01-01T00:00:00Z
        let rule = "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=20"
        try await Self.withDaemon(zone: "Europe/Berlin", start: start) { sandbox, client in
            // Tue 5 January, 19:00 in Berlin.
            let added = try await sandbox.nudge("add", "bins out", "--rrule", rule, "--due", "2027-01-05T18:00:00Z")
            #expect(added.status == 0, "\(added)")
            let listed = try await sandbox.nudge("ls")
            #expect(listed.stdout.contains("↻ RRULE:\(rule)  ⏰"), "\(listed)")
            let shown = try await sandbox.nudge("show", "1")
            #expect(shown.stdout.contains("DTSTART:20270105T190000 RRULE:\(rule)"), "\(shown)")

            // Halfway: an export reads back unchanged.
            _ = try await client.ok("POST", "/v1/clock", ["to": "2027-06-01T00:00:00Z"])
            let exported = try await sandbox.nudge("export")
            #expect(exported.status == 0, "\(exported)")
            let text = exported.stdout
            let file = sandbox.path + "/bins.ics"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            // 8 June, the 12th occurrence, is due: 9 are left, it among them.
            #expect(
                text.contains(
                    "DTSTART:20270608T190000\r\nDUE:20270608T190000\r\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=9"
                ),
                "\(text)"
            )
            let imported = try await sandbox.nudge("import", file)
            #expect(imported.stdout.contains("0 created, 0 updated, 1 unchanged"), "\(imported)")

            _ = try await client.ok("POST", "/v1/clock", ["to": "2028-01-01T00:00:00Z"])
            let events = try await client.history().events
            let fired = events.filter { $0["kind"] as? String == "fired" }.compactMap { date($0["due"]) }
            let expected = try await Self.dateutilOccurrences(
                rule,
                start: "20270105T190000",
                zone: "Europe/Berlin",
                count: 30
            )
            #expect(expected.count == 20)
            #expect(fired == expected)
            // Winter and summer: 18:00 UTC in January, 17:00 UTC in June.
            #expect(fired.first.map(iso) == "2027-01-05T18:00:00Z" && fired[11] == date("2027-06-08T17:00:00Z"))
            let pending = try await sandbox.nudge("pending", "--json")
            #expect(pending.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(pending)")

            let refused = try await sandbox.nudge("add", "often", "--rrule", "FREQ=MINUTELY;INTERVAL=5")
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stderr.contains("a repeat by RRULE at most 24 (hourly)"), "\(refused)")
        }
    }
}
