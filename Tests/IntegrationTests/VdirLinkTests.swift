import Foundation
import Glibc
import Testing

/// A list linked to a folder of task files that the real todoman keeps: nudged brings its tasks in as items, follows
/// what changed while it was down when it starts, keeps the items of a folder gone as last read, and writes what
/// nudge changes to the task's file, where todoman sees it. `scripts/install-deps --tests` installs todoman and
/// Python's icalendar.
@Suite(.timeLimit(hangLimit)) struct VdirLinkTests {
    /// todoman, with a configuration and a cache of its own, keeping the lists in `lists` (one folder each).
    struct Todoman {
        let home: String
        let lists: String

        init(in sandbox: Sandbox) throws {
            home = sandbox.path + "/todoman-home"
            lists = sandbox.path + "/calendars"
            try FileManager.default.createDirectory(atPath: home + "/todoman", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: lists, withIntermediateDirectories: true)
            try """
            path = "\(lists)/*"
            date_format = "%Y-%m-%d"
            time_format = "%H:%M"
            default_due = 0
            """.write(toFile: home + "/todoman/config.py", atomically: true, encoding: .utf8)
        }

        @discardableResult
        func callAsFunction(_ arguments: String...) async throws -> CommandResult {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = home
            environment["XDG_CACHE_HOME"] = home
            environment["TZ"] = "Europe/Berlin"
            let result = try await run(
                Binaries.packageRoot + "/.build/test-tools/python/bin/todo",
                arguments,
                environment: environment
            )
            guard result.status == 0 else {
                throw Failure("todo \(arguments) failed (scripts/install-deps --tests): \(result)")
            }
            return result
        }

        /// todoman's number for the task with `summary`.
        func number(of summary: String) async throws -> String {
            let listed = try JSONSerialization.jsonObject(
                with: try await self("--porcelain", "list", "--status", "ANY").output
            )
            guard
                let id = (listed as? [[String: Any]])?.first(where: { $0["summary"] as? String == summary })?["id"]
                    as? Int
            else { throw Failure("todoman lists no task \"\(summary)\"") }
            return String(id)
        }
    }

    private func json(_ result: CommandResult) throws -> Any {
        guard result.status == 0 else { throw Failure("nudge failed: \(result)") }
        return try JSONSerialization.jsonObject(with: result.output)
    }

    private func items(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        try json(try await sandbox.nudge("ls", "--all", "--json")) as? [[String: Any]] ?? []
    }

    /// Every item, by its text (the first of two with the same text).
    private func itemsByText(_ sandbox: Sandbox) async throws -> [String: [String: Any]] {
        Dictionary(try await items(sandbox).map { ($0["text"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The linked list, once nudged has read its folder since it started.
    private func readList(_ sandbox: Sandbox, _ daemon: Daemon) async throws -> [String: Any] {
        var found: [String: Any] = [:]
        try await daemon.eventually("the linked folder read") {
            let lists = try json(try await sandbox.nudge("lists", "--json")) as? [[String: Any]] ?? []
            guard let list = lists.first(where: { $0["link"] != nil }),
                (list["link"] as? [String: Any])?["state"] as? String != "unread"
            else { return false }
            found = list
            return true
        }
        return found
    }

    @Test func todomansTasksAreItemsAndWhatChangedWhileNudgedWasDownComesInAtStart() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let todo = try Todoman(in: sandbox)
        let folder = todo.lists + "/errands"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "Errands\n".write(toFile: folder + "/displayname", atomically: true, encoding: .utf8)
        try await todo("new", "-l", "Errands", "--due", "2027-01-20 09:00", "--priority", "high", "Pay rent")
        try await todo("new", "-l", "Errands", "Call the plumber")
        try await todo("new", "-l", "Errands", "--due", "2027-01-21 18:30", "Water the plants")

        var daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        // The one running at the end, whichever it is.
        defer { daemon.stop() }
        let linked = try json(try await sandbox.nudge("list", "link", "Work", folder, "--json")) as? [String: Any]
        #expect(linked?["name"] as? String == "Errands", "the folder's displayname names the list")
        #expect(linked?["itemCount"] as? Int == 3)
        #expect((linked?["link"] as? [String: Any])?["state"] as? String == "ok")
        var byText = try await itemsByText(sandbox)
        let rent = try #require(byText["Pay rent"])
        #expect((rent["pendingDue"] as? String)?.hasPrefix("2027-01-20T08:00:00") == true, "\(rent)")
        #expect(rent["priority"] as? String == "high")
        #expect((rent["file"] as? String)?.hasSuffix(".ics") == true && rent["uid"] != nil)
        #expect(byText["Call the plumber"]?["pendingDue"] == nil)
        let rentID = try #require(rent["itemID"] as? Int)
        let plumberID = try #require(byText["Call the plumber"]?["itemID"] as? Int)
        let shown = try await sandbox.nudge("show", String(rentID))
        #expect(shown.stdout.contains("File:") && shown.stdout.contains(rent["file"] as? String ?? "?"), "\(shown)")

        // A folder that cannot be listed is refused, saying why, and the list made for it is not left behind.
        let nowhere = try await sandbox.nudge("list", "link", "Nowhere", sandbox.path + "/no-such-folder")
        #expect(nowhere.status != 0 && nowhere.stderr.contains("No such file or directory"), "\(nowhere)")
        #expect(!(try await sandbox.nudge("lists").stdout.contains("Nowhere")))

        let plantsID = try #require(byText["Water the plants"]?["itemID"] as? Int)

        // While nudged is down: a due date moved, a task deleted, one done before its due time passed, one added,
        // and a file nudge cannot take. nudged comes back after the done one's due time.
        #expect(daemon.stop() == 0)
        try await todo("done", try await todo.number(of: "Water the plants"))
        try await todo("edit", try await todo.number(of: "Pay rent"), "--due", "2027-01-22 10:15")
        try await todo("delete", "--yes", try await todo.number(of: "Call the plumber"))
        try await todo("new", "-l", "Errands", "--due", "2027-01-25 12:00", "Renew the passport")
        try "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:broken\r\nEND:VTODO\r\nEND:VCALENDAR\r\n".write(
            toFile: folder + "/broken.ics",
            atomically: true,
            encoding: .utf8
        )
        let later = TestClock.manual(Date(timeIntervalSince1970: 1_800_561_600))  // 2027-01-21T20:00:00Z
        daemon = try await Daemon(sandbox, clock: later, environment: ["TZ": "Europe/Berlin"])
        let list = try await readList(sandbox, daemon)
        let link = try #require(list["link"] as? [String: Any])
        #expect(link["state"] as? String == "ok")
        #expect((link["skipped"] as? [[String: Any]])?.map { $0["file"] as? String } == ["broken.ics"], "\(link)")
        byText = try await itemsByText(sandbox)
        #expect(Set(byText.keys) == ["Pay rent", "Water the plants", "Renew the passport"])
        #expect(byText["Pay rent"]?["itemID"] as? Int == rentID, "an edited file keeps its item")
        #expect((byText["Pay rent"]?["pendingDue"] as? String)?.hasPrefix("2027-01-22T09:15:00") == true)
        #expect((byText["Renew the passport"]?["itemID"] as? Int ?? 0) > plumberID, "a new file is a new ID")
        #expect(daemon.log.contains("broken.ics skipped"), "a skipped file is logged with why")
        // Done in the folder while nudged was down, before its due time passed: it neither fires late nor is missed.
        #expect(byText["Water the plants"]?["checked"] as? Bool == true)
        let plants =
            try json(try await sandbox.nudge("events", "--item", String(plantsID), "--json")) as? [[String: Any]]
        let kinds = (plants ?? []).map { $0["kind"] as? String ?? "" }
        #expect(!kinds.contains("fired") && !kinds.contains("missed"), "\(kinds)")

        // A folder gone (a disk not mounted) keeps the items and their reminders as last read.
        #expect(daemon.stop() == 0)
        try FileManager.default.moveItem(atPath: folder, toPath: folder + ".away")
        daemon = try await Daemon(sandbox, clock: later, environment: ["TZ": "Europe/Berlin"])
        let gone = try #require(try await readList(sandbox, daemon)["link"] as? [String: Any])
        #expect(gone["state"] as? String == "unavailable" && (gone["reason"] as? String)?.isEmpty == false, "\(gone)")
        #expect(try await items(sandbox).count == 3)
        let lists = try await sandbox.nudge("lists")
        #expect(lists.stdout.contains("linked to \(folder): unavailable"), "\(lists)")

        // Unlinked, the folder's items leave nudge, and the files stay.
        let unlinked = try await sandbox.nudge("list", "unlink", "Errands")
        #expect(unlinked.status == 0, "\(unlinked)")
        #expect(try await items(sandbox).isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder + ".away/broken.ics"))
    }

    /// todoman, keeping a folder `errands` with one task, "Pay rent", due 2027-01-20 09:00 (in Europe/Berlin).
    private func errands(in sandbox: Sandbox) async throws -> (Todoman, folder: String) {
        let todo = try Todoman(in: sandbox)
        let folder = todo.lists + "/errands"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await todo("new", "-l", "errands", "--due", "2027-01-20 09:00", "Pay rent")
        return (todo, folder)
    }

    /// The items, by text, once `condition` holds of them (the deadline detects a hang, never a speed).
    private func items(
        _ sandbox: Sandbox,
        _ daemon: Daemon,
        when awaited: String,
        _ condition: @escaping ([String: [String: Any]]) -> Bool
    ) async throws -> [String: [String: Any]] {
        var found: [String: [String: Any]] = [:]
        try await daemon.eventually(awaited) {
            let byText = try await itemsByText(sandbox)
            found = byText
            return condition(byText)
        }
        return found
    }

    @Test func whileNudgedRunsWhatTodomanChangesComesInAndAFolderMovedAwayAndBackIsReadAgain() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (todo, folder) = try await errands(in: sandbox)
        let daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        defer { daemon.stop() }
        #expect(try await sandbox.nudge("list", "link", "Errands", folder).status == 0)
        let rentID = try #require(try await items(sandbox).first?["itemID"] as? Int)

        // Added, its due time moved (todoman writes a temporary file and renames it over the task's), removed.
        try await todo("new", "-l", "errands", "--due", "2027-01-25 12:00", "Renew the passport")
        _ = try await items(sandbox, daemon, when: "the new task") { $0["Renew the passport"] != nil }
        try await todo("edit", try await todo.number(of: "Pay rent"), "--due", "2027-01-22 10:15")
        let moved = try await items(sandbox, daemon, when: "the due time moved") {
            ($0["Pay rent"]?["pendingDue"] as? String)?.hasPrefix("2027-01-22T09:15:00") == true
        }
        #expect(moved["Pay rent"]?["itemID"] as? Int == rentID)
        let events = try json(try await sandbox.nudge("events", "--item", String(rentID), "--json")) as? [[String: Any]]
        let replaced = (events ?? []).last { $0["kind"] as? String == "replaced" }
        #expect(replaced?["source"] as? String == "vdir", "\(events ?? [])")
        try await todo("delete", "--yes", try await todo.number(of: "Renew the passport"))
        _ = try await items(sandbox, daemon, when: "the task removed") { $0.keys.sorted() == ["Pay rent"] }

        // A second file of a task's UID is skipped; the first removed, the second holds the task, the same item. Only
        // the files the kernel names are read again, and those of the UIDs they hold.
        let rentFile = try #require(moved["Pay rent"]?["file"] as? String)
        try FileManager.default.copyItem(atPath: folder + "/" + rentFile, toPath: folder + "/zz-copy.ics")
        try await daemon.eventually("the copy skipped") {
            try await sandbox.nudge("lists").stdout.contains("ok, 1 skipped")
        }
        try FileManager.default.removeItem(atPath: folder + "/" + rentFile)
        let copied = try await items(sandbox, daemon, when: "the copy taken") {
            $0["Pay rent"]?["file"] as? String == "zz-copy.ics"
        }
        #expect(copied["Pay rent"]?["itemID"] as? Int == rentID)
        #expect(!(try await sandbox.nudge("lists").stdout.contains("skipped")), "nothing skipped now")

        // A repeat nudge cannot follow exactly is its one occurrence, and `nudge lists` says so.
        try [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VTODO", "UID:weekly",
            "SUMMARY:Weekly review",
            "DTSTART:20270110T090000Z", "DUE:20270111T170000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO", "END:VTODO",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n").write(toFile: folder + "/weekly.ics", atomically: true, encoding: .utf8)
        try await daemon.eventually("the repeat said limited") {
            try await sandbox.nudge("lists").stdout.contains("ok, 1 limited")
        }
        let limited = try await readList(sandbox, daemon)["link"] as? [String: Any]
        let why = (limited?["limited"] as? [[String: Any]])?.first?["reason"] as? String
        #expect(why?.hasPrefix("taken without its repeat: its RRULE places its starts") == true, "\(limited ?? [:])")
        try FileManager.default.removeItem(atPath: folder + "/weekly.ics")
        _ = try await items(sandbox, daemon, when: "the repeat removed") { $0.keys.sorted() == ["Pay rent"] }

        // Moved away: unavailable, the item kept; moved back, with a task added meanwhile: read again.
        try FileManager.default.moveItem(atPath: folder, toPath: folder + ".away")
        try await daemon.eventually("the folder unavailable") {
            let lists = try json(try await sandbox.nudge("lists", "--json")) as? [[String: Any]] ?? []
            return lists.contains { ($0["link"] as? [String: Any])?["state"] as? String == "unavailable" }
        }
        #expect(try await items(sandbox).count == 1)
        try await todo("new", "-l", "errands.away", "--due", "2027-01-26 12:00", "Call the bank")
        try FileManager.default.moveItem(atPath: folder + ".away", toPath: folder)
        _ = try await items(sandbox, daemon, when: "the folder back and read") {
            $0.keys.sorted() == ["Call the bank", "Pay rent"]
        }
    }

    /// Whether the tests may mount a file system (root with CAP_SYS_ADMIN, as on a machine; not in an unprivileged
    /// container, where the test that needs it is skipped: docs/TESTING.md).
    static let canMount: Bool = {
        let point = NSTemporaryDirectory() + "nudge-mount-" + UUID().uuidString
        guard (try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)) != nil else {
            return false
        }
        defer { try? FileManager.default.removeItem(atPath: point) }
        guard mount("tmpfs", point, "tmpfs", 0, nil) == 0 else { return false }
        return umount2(point, 0) == 0
    }()

    /// A disk mounted over a linked folder while nudged runs, which no watch hears, is read and then followed; when
    /// it goes again (unmounted), the folder left empty behind its items is a disk not mounted: they stay.
    @Test(.enabled(if: canMount, "it mounts a tmpfs, which needs CAP_SYS_ADMIN (docs/TESTING.md)"))
    func aDiskMountedOverALinkedFolderIsReadAndFollowedAndItsItemsStayWhenItGoes() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let folder = sandbox.path + "/disk"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        defer { daemon.stop() }
        #expect(try await sandbox.nudge("list", "link", "Disk", folder).status == 0)
        _ = try await readList(sandbox, daemon)
        func task(_ uid: String, _ summary: String) -> String {
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VTODO", "UID:\(uid)",
                "SUMMARY:\(summary)",
                "DUE:20270120T080000Z", "END:VTODO", "END:VCALENDAR", "",
            ].joined(separator: "\r\n")
        }

        #expect(mount("tmpfs", folder, "tmpfs", 0, nil) == 0, "mount: \(String(cString: strerror(errno)))")
        var mounted = true
        defer { if mounted { umount2(folder, Int32(MNT_DETACH)) } }
        try task("a", "On the disk").write(toFile: folder + "/a.ics", atomically: true, encoding: .utf8)
        _ = try await items(sandbox, daemon, when: "the disk's task") { $0["On the disk"] != nil }
        try task("b", "Added to the disk").write(toFile: folder + "/b.ics", atomically: true, encoding: .utf8)
        _ = try await items(sandbox, daemon, when: "the disk followed") { $0.count == 2 }

        #expect(umount2(folder, 0) == 0, "umount: \(String(cString: strerror(errno)))")
        mounted = false
        try await daemon.eventually("the folder unavailable") {
            let lists = try json(try await sandbox.nudge("lists", "--json")) as? [[String: Any]] ?? []
            return lists.contains { ($0["link"] as? [String: Any])?["state"] as? String == "unavailable" }
        }
        #expect(try await items(sandbox).count == 2)
    }

    /// nudge's changes to a linked list's items are made to their files, as todoman sees them: done, undone, an edit,
    /// a new item and a removal; a snooze stays in nudge. Every line nudge does not own stays as it was, byte for byte
    /// and as Python's icalendar reads it. A change nudge does not write is refused, and so is a change to a file
    /// nudge has not read since it started.
    @Test func whatNudgeChangesIsWrittenToTheTaskFileWhereTodomanSeesIt() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let todo = try Todoman(in: sandbox)
        let folder = todo.lists + "/errands"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await todo("new", "-l", "errands", "--due", "2027-01-20 09:00", "--priority", "high", "Pay rent")
        try await todo("new", "-l", "errands", "--due", "2027-01-21 18:30", "Water the plants")
        // Another program's lines in the rent task: an X- property with a parameter, and an alarm.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).map { folder + "/" + $0 }
        let rentFile = try #require(
            try files.first { try String(contentsOfFile: $0, encoding: .utf8).contains("rent") }
        )
        let plantsFile = try #require(files.first { $0 != rentFile })
        let written = try String(contentsOfFile: rentFile, encoding: .utf8)
        let end = written.contains("\r\n") ? "\r\n" : "\n"
        let before = written.replacingOccurrences(
            of: "END:VTODO",
            with: [
                "X-OTHER-APP;X-FLAVOUR=mild:keep me", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:rent",
                "TRIGGER:-PT30M", "END:VALARM", "END:VTODO",
            ].joined(separator: end)
        )
        try before.write(toFile: rentFile, atomically: true, encoding: .utf8)

        var daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        defer { daemon.stop() }
        #expect(try await sandbox.nudge("list", "link", "Errands", folder).status == 0)
        let byText = try await itemsByText(sandbox)
        let rentID = try #require(byText["Pay rent"]?["itemID"] as? Int)
        let plantsID = try #require(byText["Water the plants"]?["itemID"] as? Int)
        func todoman() async throws -> [String: [String: Any]] {
            let listed = try JSONSerialization.jsonObject(
                with: try await todo("--porcelain", "list", "--status", "ANY").output
            )
            return Dictionary(
                ((listed as? [[String: Any]]) ?? []).map { ($0["summary"] as? String ?? "", $0) },
                uniquingKeysWith: { a, _ in a }
            )
        }

        // Done: todoman lists the task completed; nudge changed its own lines and no other.
        let done = try await sandbox.nudge("done", String(rentID))
        #expect(done.status == 0, "\(done)")
        #expect(try await todoman()["Pay rent"]?["completed"] as? Bool == true)
        let after = try String(contentsOfFile: rentFile, encoding: .utf8)
        let owned: Set = ["STATUS", "COMPLETED", "PERCENT-COMPLETE", "DTSTAMP", "LAST-MODIFIED", "SEQUENCE"]
        func othersLines(_ text: String) -> [String] {
            text.components(separatedBy: end).filter { !owned.contains(String($0.prefix { $0 != ":" && $0 != ";" })) }
        }
        #expect(othersLines(after) == othersLines(before), "\(after)")
        #expect(after.contains("PERCENT-COMPLETE:100") && after.contains("STATUS:COMPLETED"), "\(after)")
        try before.write(toFile: sandbox.path + "/rent-before.ics", atomically: true, encoding: .utf8)
        let compared = try await run(
            Binaries.packageRoot + "/.build/test-tools/python/bin/python",
            ["-c", Self.sameButOwned, sandbox.path + "/rent-before.ics", rentFile]
        )
        #expect(compared.status == 0 && compared.stdout == "same\n", "\(compared)")
        // The change is the user's, not a change of the folder's read after it.
        let rentEvents =
            try json(try await sandbox.nudge("events", "--item", String(rentID), "--json")) as? [[String: Any]] ?? []
        let cancelled = rentEvents.filter { $0["kind"] as? String == "cancelled" }
        #expect(cancelled.count == 1 && cancelled.first?["source"] == nil, "\(rentEvents)")
        // And a change of the user's, which `nudge undo` sees and refuses: the file is the truth.
        #expect(rentEvents.last?["kind"] as? String == "changed", "\(rentEvents)")
        let undo = try await sandbox.nudge("undo")
        #expect(undo.status == 1 && undo.stderr.contains(folder), "\(undo)")

        // A snooze is nudge's alone: the file does not change.
        let plantsBefore = try Data(contentsOf: URL(fileURLWithPath: plantsFile))
        #expect(try await sandbox.nudge("snooze", String(plantsID), "1h").status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: plantsFile)) == plantsBefore)

        // An edit, undone, a new item and a removal.
        let edited = try await sandbox.nudge(
            "edit",
            String(plantsID),
            "--text",
            "Water the ferns",
            "--due",
            "2027-01-22T17:30:00Z",
            "--priority",
            "low"
        )
        #expect(edited.status == 0, "\(edited)")
        #expect(try await sandbox.nudge("undone", String(rentID)).status == 0)
        let added =
            try json(
                try await sandbox.nudge(
                    "add",
                    "--list",
                    "Errands",
                    "Buy stamps",
                    "--due",
                    "2027-01-23T11:00:00Z",
                    "--json"
                )
            ) as? [String: Any]
        let stampsFile = try #require(added?["file"] as? String)
        #expect(stampsFile == (added?["uid"] as? String ?? "?") + ".ics", "\(added ?? [:])")
        var listed = try await todoman()
        #expect(listed["Pay rent"]?["completed"] as? Bool == false)
        #expect(listed["Water the plants"] == nil)
        #expect(listed["Water the ferns"]?["due"] as? Int == 1_800_639_000)  // 2027-01-22T17:30:00Z
        #expect((listed["Water the ferns"]?["priority"] as? Int ?? 0) >= 6)
        #expect(listed["Buy stamps"]?["due"] as? Int == 1_800_702_000)  // 2027-01-23T11:00:00Z
        let stampsID = try #require(added?["itemID"] as? Int)
        #expect(try await sandbox.nudge("rm", String(stampsID)).status == 0)
        listed = try await todoman()
        #expect(listed["Buy stamps"] == nil && !FileManager.default.fileExists(atPath: folder + "/" + stampsFile))

        // Its alarms are nudge's to write: a warning half an hour before replaces the task's alarms with nudge's
        // own, and the item reads it back from the file.
        let warned = try json(try await sandbox.nudge("edit", String(plantsID), "--warn", "30m", "--json"))
        #expect((warned as? [String: Any])?["warnings"] as? [String] == ["PT30M"], "\(warned)")
        let alarmed = try String(contentsOfFile: plantsFile, encoding: .utf8)
        #expect(alarmed.contains("TRIGGER;RELATED=END:-PT30M") && alarmed.contains("ACTION:DISPLAY"), "\(alarmed)")
        let silent = try await sandbox.nudge("edit", String(plantsID), "--no-remind")
        #expect(silent.status == 1 && silent.stderr.contains("does not remind"), "\(silent)")

        // What nudge does not write is refused, saying what and where.
        let repeating = try await sandbox.nudge("edit", String(plantsID), "--repeat", "daily")
        #expect(repeating.status == 1 && repeating.stderr.contains("repeat") && repeating.stderr.contains(folder))

        // A file nudge has not read since it started (its folder was away) is not written.
        #expect(daemon.stop() == 0)
        try FileManager.default.moveItem(atPath: folder, toPath: folder + ".away")
        daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        _ = try await readList(sandbox, daemon)
        let unread = try await sandbox.nudge("done", String(plantsID), "--json")
        #expect(unread.status == 1 && unread.stdout.contains("changed_on_disk"), "\(unread)")
    }

    /// Done on a recurring task is what todoman's own `todo done` makes of it: two copies of one folder, one
    /// completed by todoman and one by nudge, list the same in todoman afterwards (the task done, no longer
    /// recurring; a new one due at the next occurrence, recurring).
    @Test func aRecurringTaskDoneInNudgeIsWhatTodomansOwnDoneMakesOfIt() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let todo = try Todoman(in: sandbox)
        let task = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Other//App//EN", "BEGIN:VTODO", "UID:water-1",
            "DTSTAMP:20270101T000000Z", "SUMMARY:Water the plants", "DUE;TZID=Europe/Berlin:20270120T090000",
            "RRULE:FREQ=WEEKLY", "END:VTODO", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        for list in ["by-nudge", "by-todoman"] {
            try FileManager.default.createDirectory(atPath: todo.lists + "/" + list, withIntermediateDirectories: true)
            try task.write(toFile: todo.lists + "/\(list)/water-1.ics", atomically: true, encoding: .utf8)
        }
        func listed(_ list: String) async throws -> [String] {
            let all = try JSONSerialization.jsonObject(
                with: try await todo("--porcelain", "list", "--status", "ANY", list).output
            )
            return ((all as? [[String: Any]]) ?? []).map { task in
                "\(task["summary"] ?? "") completed \(task["completed"] ?? "") due \(task["due"] ?? "") recurring "
                    + "\(task["recurring"] ?? "")"
            }.sorted()
        }
        let inTodomans = try JSONSerialization.jsonObject(
            with: try await todo("--porcelain", "list", "by-todoman").output
        )
        let id = try #require(((inTodomans as? [[String: Any]]) ?? []).first?["id"] as? Int)
        try await todo("done", String(id))
        let byTodoman = try await listed("by-todoman")
        #expect(byTodoman.count == 2, "\(byTodoman)")

        let daemon = try await Daemon(sandbox, environment: ["TZ": "Europe/Berlin"])
        defer { daemon.stop() }
        #expect(try await sandbox.nudge("list", "link", "Plants", todo.lists + "/by-nudge").status == 0)
        let waterID = try #require(try await items(sandbox).first?["itemID"] as? Int)
        let done = try await sandbox.nudge("done", String(waterID))
        #expect(done.status == 0, "\(done)")
        #expect(try await listed("by-nudge") == byTodoman)
        // In nudge: the task done, and the next occurrence an item of its own, due a week later.
        let byText = try await items(sandbox)
        #expect(byText.count == 2 && byText.filter { $0["checked"] as? Bool == true }.count == 1, "\(byText)")
        let next = try #require(byText.first { $0["checked"] as? Bool == false })
        #expect((next["pendingDue"] as? String)?.hasPrefix("2027-01-27T08:00:00") == true, "\(next)")
    }

    /// The config file links lists too (`links`): at start the list is made and linked, a restart with it linked
    /// already reads it as any linked list, and an entry that is not NAME=FOLDER stops the start, saying so.
    @Test func theConfigFileLinksAListWhenNudgedStarts() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (_, folder) = try await errands(in: sandbox)
        // The folder names its list, as when nudge links it.
        try "Chores\n".write(toFile: folder + "/displayname", atomically: true, encoding: .utf8)
        let file = sandbox.path + "/config.json"
        try #"{"links": ["Errands=\#(folder)"]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        var daemon = try await Daemon(sandbox, arguments: ["--config", file], environment: ["TZ": "Europe/Berlin"])
        defer { daemon.stop() }
        let list = try await readList(sandbox, daemon)
        #expect(list["name"] as? String == "Chores" && list["itemCount"] as? Int == 1, "\(list)")
        #expect((list["link"] as? [String: Any])?["folder"] as? String == folder, "\(list)")
        let rentID = try #require(try await items(sandbox).first?["itemID"] as? Int)
        #expect(daemon.stop() == 0)
        daemon = try await Daemon(sandbox, arguments: ["--config", file], environment: ["TZ": "Europe/Berlin"])
        _ = try await readList(sandbox, daemon)
        #expect(try await items(sandbox).map { $0["itemID"] as? Int } == [rentID], "linked already: the same item")
        let lists = try await sandbox.nudge("lists")
        #expect(!lists.stdout.contains("Errands") && !daemon.log.contains("not linked"), "\(lists)\n\(daemon.log)")
        #expect(daemon.stop() == 0)

        try #"{"links": ["Errands"]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await run(
            Binaries.nudged,
            ["--config", file, "--store", sandbox.store, "--socket", sandbox.socket]
        )
        #expect(refused.status == 78 && refused.stderr.contains("not NAME=FOLDER"), "\(refused)")
    }

    /// Python's icalendar on a task file before nudge wrote it (argv[1]) and after (argv[2]): "same" if the two read
    /// the same, line for line as icalendar writes them again, but for the properties nudge owns.
    static let sameButOwned = """
        import sys, icalendar
        owned = {"STATUS", "COMPLETED", "PERCENT-COMPLETE", "DTSTAMP", "LAST-MODIFIED", "SEQUENCE"}
        def shape(text):
            return [line for line in icalendar.Calendar.from_ical(text).content_lines()
                    if line.split(":")[0].split(";")[0].upper() not in owned]
        before, after = shape(open(sys.argv[1]).read()), shape(open(sys.argv[2]).read())
        print("same" if before == after else f"before {before}\\nafter {after}")
        """
}
