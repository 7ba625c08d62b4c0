import Foundation
import Testing

/// `nudge export` and `nudge import` against real programs: Python's icalendar parses the export (and dateutil
/// expands its RRULEs, which must give what systemd-analyze gives for the rule they came from), calcurse imports
/// it, and a file calcurse exported imports, twice to the same effect. nudged runs in a zone with DST, where floating
/// times and rules can go wrong. `scripts/install-deps --tests` installs the tools.
@Suite(.timeLimit(hangLimit)) struct CalendarFileTests {
    static let python = Binaries.packageRoot + "/.build/test-tools/python/bin/python3"
    static let zone = "Europe/Berlin"
    static var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["TZ": zone]) { $1 }
    }
    /// nudged's clock stands still at an instant with no DST change within the rules' first occurrences (which
    /// dateutil and systemd treat differently in a gap), and nothing fires between two exports.
    static let clock = TestClock.manual(Date(timeIntervalSince1970: 1_894_276_800))  // 2030-01-10T12:00:00Z

    @Test func theExportIsReadByPythonsIcalendarAndByCalcurseAndItsRulesRepeatAsSystemdSays() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: Self.clock, environment: Self.environment)
        defer { daemon.stop() }
        let rules = ["Mon..Fri 09:30", "*-*-01,15 08:00", "*-02-29 12:00", "Sat,Sun 10:00,14:30", "*:0/20"]
        try await add(in: sandbox, "Buy milk, eggs; bread", "--due", "2030-03-01T09:00:00+01:00", "--warn", "1h,10m")
        for rule in rules { try await add(in: sandbox, "Repeat \(rule)", "--repeat", rule) }
        try await add(in: sandbox, "Last day", "--repeat", "*-*~01 12:00", "--priority", "low")
        try await add(in: sandbox, "Called mum", "--due", "2030-01-01T10:00:00Z", "--no-remind", "--priority", "high")
        #expect(try await sandbox.nudge("done", "8").status == 0)

        let export = try await sandbox.nudge("export")
        #expect(export.status == 0, "\(export)")
        let file = sandbox.path + "/tasks.ics"
        try export.output.write(to: URL(fileURLWithPath: file))
        // The same store gives the same bytes.
        #expect(try await sandbox.nudge("export").output == export.output)

        let parsed = try await Self.pythonTasks(file)
        try #require(parsed.count == 8, "\(parsed)")
        let milk = parsed[0]
        #expect(milk["summary"] as? String == "Buy milk, eggs; bread")
        #expect(milk["due"] as? String == "2030-03-01T08:00:00+00:00")
        #expect(milk["priority"] as? Int == 5 && milk["status"] as? String == "NEEDS-ACTION")
        #expect(milk["alarms"] as? [Double] == [-3600, -600, 0], "\(milk)")
        #expect(
            (milk["uid"] as? String)?.hasPrefix("1-") == true && (milk["uid"] as? String)?.hasSuffix("@nudge") == true
        )
        for (index, rule) in rules.enumerated() {
            let task = parsed[index + 1]
            #expect(task["oncalendar"] as? String != nil && task["alarms"] as? [Double] == [0], "\(task)")
            let occurrences = try #require(task["occurrences"] as? [String], "no RRULE for \(rule): \(task)")
            let expected = try await Self.systemdElapses(
                task["oncalendar"] as? String ?? "",
                after: task["before"] as? String ?? "",
                count: occurrences.count
            )
            #expect(occurrences == expected, "\(rule): RRULE \(task["rrule"] ?? "") from \(task["dtstart"] ?? "")")
        }
        // A rule with no exact RRULE travels as X-NUDGE-ONCALENDAR alone.
        #expect(parsed[6]["rrule"] == nil && parsed[6]["oncalendar"] as? String == "*-*~01 12:00:00", "\(parsed[6])")
        #expect(parsed[6]["priority"] as? Int == 9)
        #expect(parsed[7]["status"] as? String == "COMPLETED" && parsed[7]["priority"] as? Int == 1)
        #expect(parsed[7]["alarms"] as? [Double] == [], "\(parsed[7])")

        let calcurse = sandbox.path + "/calcurse"
        try FileManager.default.createDirectory(atPath: calcurse, withIntermediateDirectories: true)
        let imported = try await run("/usr/bin/calcurse", ["-D", calcurse, "-i", file], environment: Self.environment)
        #expect(imported.status == 0 && imported.stdout.contains("8 todos"), "\(imported)")
        let todo = try String(contentsOfFile: calcurse + "/todo", encoding: .utf8)
        #expect(todo.contains("[5] Buy milk, eggs; bread") && todo.contains("[9] Last day"), "\(todo)")
        #expect(todo.contains("[-1] Called mum"), "a completed task is calcurse's negative priority: \(todo)")
    }

    @Test func aFileCalcurseExportedImportsAndImportingItAgainChangesNothing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: Self.clock, environment: Self.environment)
        defer { daemon.stop() }
        let calcurse = sandbox.path + "/calcurse"
        try FileManager.default.createDirectory(atPath: calcurse, withIntermediateDirectories: true)
        try "[1] Renew passport\n[7] Water the plants\n[-3] Return library books\n[5] Water the plants\n"
            .write(toFile: calcurse + "/todo", atomically: true, encoding: .utf8)
        try "12/01/2030 @ 09:00 -> 12/01/2030 @ 10:00 |Dentist\n"
            .write(toFile: calcurse + "/apts", atomically: true, encoding: .utf8)
        let exported = try await run(
            "/usr/bin/calcurse",
            ["-D", calcurse, "--export=ical"],
            environment: Self.environment
        )
        #expect(exported.status == 0 && exported.stdout.contains("BEGIN:VTODO"), "\(exported)")
        let file = sandbox.path + "/calcurse.ics"
        try exported.output.write(to: URL(fileURLWithPath: file))

        let first = try await sandbox.nudge("import", file, "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: first.output) as? [String: Any], "\(first)")
        #expect(report["created"] as? Int == 4 && report["skipped"] as? Int == 1, "\(report)")
        let skipped = (report["results"] as? [[String: Any]])?.first { $0["outcome"] as? String == "skipped" }
        #expect((skipped?["notes"] as? [String])?.first?.contains("VEVENT") == true, "\(report)")
        let items = try await Self.items(in: sandbox)
        // calcurse writes its todos in its own order (by priority).
        let summary = items.map { "\($0["text"] ?? "") \($0["priority"] ?? "") \($0["checked"] as? Bool == true)" }
        #expect(
            summary.sorted() == [
                "Renew passport high false", "Return library books high true", "Water the plants low false",
                "Water the plants normal false",
            ],
            "\(items)"
        )

        let listed = try await sandbox.nudge("ls", "--all", "--json")
        let commits = try await sandbox.health()["commits"] as? Int
        let again = try await sandbox.nudge("import", file)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.hasPrefix("\(file): 0 created, 0 updated, 4 unchanged, 1 skipped\n"), "\(again)")
        #expect(try await sandbox.nudge("ls", "--all", "--json").output == listed.output)
        #expect(try await sandbox.health()["commits"] as? Int == commits, "a second import committed something")
    }

    @Test func anEditedExportUpdatesItsItemsAndAMalformedFileChangesNothing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: Self.clock, environment: Self.environment)
        defer { daemon.stop() }
        try await add(in: sandbox, "Book flights", "--due", "2030-06-01T09:00:00Z")
        try await add(in: sandbox, "Pack", "--due", "2030-06-10T18:00:00Z", "--warn", "1d")
        let file = sandbox.path + "/tasks.ics"
        try await sandbox.nudge("export").output.write(to: URL(fileURLWithPath: file))

        // Edited elsewhere: another text and priority, an alarm more; and a task of the other program's.
        let edit = """
            import icalendar, sys
            from datetime import datetime, timedelta
            from zoneinfo import ZoneInfo
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            pack = [t for t in calendar.walk('VTODO') if t['SUMMARY'] == 'Pack'][0]
            pack['SUMMARY'] = 'Pack bags'
            pack['PRIORITY'] = 2
            alarm = icalendar.Alarm()
            alarm.add('ACTION', 'DISPLAY')
            alarm.add('TRIGGER', timedelta(hours=-2), parameters={'RELATED': 'END'})
            pack.add_component(alarm)
            todo = icalendar.Todo()
            todo.add('UID', 'other-1@example.com')
            todo.add('SUMMARY', 'Check in')
            todo.add('DUE', datetime(2030, 6, 10, 8, 0, tzinfo=ZoneInfo('Europe/Berlin')))
            calendar.add_component(todo)
            open(sys.argv[1], 'wb').write(calendar.to_ical())
            """
        let edited = try await run(Self.python, ["-c", edit, file])
        #expect(edited.status == 0, "\(edited)")
        let imported = try await sandbox.nudge("import", file)
        #expect(imported.stdout.hasPrefix("\(file): 1 created, 1 updated, 1 unchanged, 0 skipped\n"), "\(imported)")
        let listed = try await sandbox.nudge("ls", "--all", "--json")
        let items = try await Self.items(in: sandbox)
        #expect(items.count == 3)
        #expect(items[1]["text"] as? String == "Pack bags" && items[1]["priority"] as? String == "high")
        #expect(items[1]["warnings"] as? [String] == ["P1D", "PT2H"], "\(items[1])")
        #expect(
            items[2]["text"] as? String == "Check in" && items[2]["dueDate"] as? String == "2030-06-10T06:00:00.000Z"
        )
        // Its own UID comes back out, so the other program sees the same task.
        #expect(try await sandbox.nudge("export").stdout.contains("UID:other-1@example.com\r\n"))

        let broken =
            "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:Ok\r\nEND:VTODO\r\nBEGIN:VTODO\r\nSUMMARY:New\r\n"
            + "DUE:2030-07-01\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        try broken.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await sandbox.nudge("import", file)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("line 7: DUE \"2030-07-01\" is not a date-time"), "\(refused)")
        #expect(
            try await sandbox.nudge("ls", "--all", "--json").output == listed.output,
            "a refused file changed items"
        )
    }

    // MARK: Helpers

    private func add(in sandbox: Sandbox, _ text: String, _ options: String...) async throws {
        let result = try await run(Binaries.nudge, ["add", "-q", "--socket", sandbox.socket] + options + ["--", text])
        guard result.status == 0 else { throw Failure("nudge add \(text): \(result)") }
    }

    /// Every item, checked ones too, in ID order, as `nudge ls --json` gives them.
    private static func items(in sandbox: Sandbox) async throws -> [[String: Any]] {
        let listed = try await sandbox.nudge("ls", "--all", "--json")
        return try #require(try JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]], "\(listed)")
    }

    /// Each VTODO as Python's icalendar reads it; for one with an RRULE, its first occurrences as dateutil expands
    /// the rule from DTSTART (floating: wall times, as systemd-analyze prints them in the local zone).
    private static func pythonTasks(_ file: String) async throws -> [[String: Any]] {
        let script = """
            import icalendar, json, re, sys, time
            from dateutil.rrule import rrulestr
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            tasks = []
            for todo in calendar.walk('VTODO'):
                task = {'uid': str(todo['UID']), 'summary': str(todo['SUMMARY']), 'status': str(todo['STATUS']),
                        'priority': int(todo['PRIORITY']),
                        'alarms': [a['TRIGGER'].dt.total_seconds() for a in todo.walk('VALARM')]}
                if 'DUE' in todo: task['due'] = todo['DUE'].dt.isoformat()
                # An X- property is TEXT (RFC 5545 3.8.8.2), which icalendar leaves escaped as it does not know it.
                if 'X-NUDGE-ONCALENDAR' in todo:
                    task['oncalendar'] = re.sub(r'\\\\(.)', lambda m: '\\n' if m.group(1) in 'nN' else m.group(1),
                                                str(todo['X-NUDGE-ONCALENDAR']))
                if 'RRULE' in todo:
                    start = todo['DTSTART'].dt
                    task['rrule'] = todo['RRULE'].to_ical().decode()
                    task['dtstart'] = start.strftime('%Y-%m-%d %H:%M:%S')
                    seconds = start.timestamp() if start.tzinfo else time.mktime(start.timetuple())
                    task['before'] = '@%d' % (seconds - 1)
                    rule = rrulestr(task['rrule'], dtstart=start)
                    task['occurrences'] = [d.strftime('%Y-%m-%d %H:%M:%S') for d, _ in zip(rule, range(25))]
                tasks.append(task)
            print(json.dumps(tasks))
            """
        let result = try await run(python, ["-c", script, file], environment: environment)
        guard result.status == 0 else {
            throw Failure("Python's icalendar could not read the export (run scripts/install-deps --tests): \(result)")
        }
        return try #require(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
    }

    /// The next `count` elapses of a calendar expression after `base` (`@SECONDS`), as systemd-analyze prints them
    /// in the local zone: `2030-03-01 09:00:00`.
    private static func systemdElapses(_ expression: String, after base: String, count: Int) async throws -> [String] {
        let result = try await run(
            "/usr/bin/systemd-analyze",
            ["calendar", "--iterations", String(count), "--base-time", base, expression],
            environment: environment
        )
        guard result.status == 0 else { throw Failure("systemd-analyze calendar \(expression): \(result)") }
        // "Next elapse: Fri 2030-03-01 09:00:00 CET" and "Iter. #2: …", the local lines; then "(in UTC): …".
        return result.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("Next elapse:") || line.contains("Iter. #") else { return nil }
            let words = line.split(separator: " ")
            guard let colon = words.firstIndex(where: { $0.hasSuffix(":") }), words.count > colon + 3 else {
                return nil
            }
            return words[colon + 2] + " " + words[colon + 3]
        }
    }
}
