import Foundation
import Testing

/// `nudge undo` on the real nudged, on its manual clock: the last change taken back and redone, an older one by its
/// event ID, refusals that change nothing, an import and a batch each as a whole, and the steps kept across a
/// restart.
@Suite(.timeLimit(hangLimit)) struct UndoTests {
    static let start = TestClock.epoch  // 2027-01-01T00:00:00Z

    private func json(_ result: CommandResult) throws -> [String: Any] {
        try #require(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any], "\(result)")
    }

    /// `nudge undo --list --json`: the changes, newest first.
    private func changes(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        try #require(try json(try await sandbox.nudge("undo", "--list", "--json"))["changes"] as? [[String: Any]])
    }

    /// `nudge ls --all --json`: every item, checked ones too.
    private func allItems(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        let listed = try await sandbox.nudge("ls", "--all", "--json")
        try #require(listed.status == 0, "\(listed)")
        return try #require(try JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]], "\(listed)")
    }

    private func event(_ change: [String: Any]) -> [String: Any] { change["event"] as? [String: Any] ?? [:] }

    @Test func undoTakesBackTheLastChangeAndUndoAgainRedoesIt() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        let due = Self.start + 3600
        let id = try await sandbox.addItem("milk", due: due)
        #expect(try await sandbox.nudge("done", String(id)).status == 0)

        let undone = try await sandbox.nudge("undo")
        #expect(
            undone.status == 0 && undone.stdout.contains("Undid event") && undone.stdout.contains("“milk”"),
            "\(undone)"
        )
        var shown = try json(try await sandbox.nudge("show", String(id), "--json"))
        #expect(shown["checked"] as? Bool == false && date(shown["pendingDue"]) == due, "\(shown)")

        // The undo is a change: undone in turn, the item is checked off again and its reminder cancelled.
        let redone = try json(try await sandbox.nudge("undo", "--json"))
        #expect(redone["kind"] as? String == "undone" && redone["itemIDs"] as? [Int] == [id], "\(redone)")
        shown = try json(try await sandbox.nudge("show", String(id), "--json"))
        #expect(shown["checked"] as? Bool == true && shown["pendingDue"] == nil, "\(shown)")

        // Newest first: the redo; the undo, which the redo took back; the check-off, undoable again (its undo and the
        // redo cancel out); the add, which the check-off touched since.
        let listed = try await changes(sandbox)
        #expect(listed.map { event($0)["kind"] as? String } == ["undone", "undone", "changed", "changed"], "\(listed)")
        #expect(listed.map { $0["undoable"] as? Bool } == [true, false, true, false], "\(listed)")
        #expect(event(listed[1])["undid"] as? Int == event(listed[2])["id"] as? Int)
        #expect((listed[1]["reason"] as? String)?.contains("undid it already") == true, "\(listed[1])")
        let text = try await sandbox.nudge("undo", "--list")
        #expect(text.status == 0 && text.stdout.contains("reopened “milk”  not undoable"), "\(text)")
    }

    @Test func anOlderChangeIsTakenBackByItsEventWithItsIDsAndRefusalsChangeNothing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        let dentist = try await sandbox.addItem("dentist", due: Self.start + 7200)
        let call = try await sandbox.addItem("call the bank")
        #expect(try await sandbox.nudge("rm", String(dentist)).status == 0)
        let listed = try await changes(sandbox)
        let removal = try #require(event(listed[0])["id"] as? Int)
        let addOfCall = try #require(event(listed[1])["id"] as? Int)
        let addOfDentist = try #require(event(listed[2])["id"] as? Int)

        // The add of the dentist: the removal touched it since. Refused, naming why; nothing changes.
        let refused = try await sandbox.nudge("undo", String(addOfDentist))
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("event \(removal) changed item \(dentist) since"), "\(refused)")
        #expect(refused.stderr.contains("nothing changed"), "\(refused)")
        let unknown = try await sandbox.nudge("undo", "999999")
        #expect(unknown.status == 1 && unknown.stderr.contains("does not hold event 999999"), "\(unknown)")
        // An event ID out of range, through the API (the command line refuses it itself): 400, and nudged goes on.
        let outOfRange = try await sandbox.curl("POST", "/v1/undo", body: #"{"event": -9223372036854775808}"#)
        #expect(outOfRange.status == 400 && errorCode(outOfRange.body) == "invalid_body", "\(outOfRange)")
        let notAChange = try await sandbox.nudge("undo", "1")  // the dentist's `scheduled`
        #expect(notAChange.status == 1 && notAChange.stderr.contains("not a change of yours"), "\(notAChange)")

        // The add of the call, older than the removal but of another item: it goes, and its ID is not reused.
        #expect(try await sandbox.nudge("undo", String(addOfCall)).status == 0)
        #expect(try await sandbox.nudge("show", String(call)).status != 0)
        // The removal taken back: the dentist is back with its ID, its reminder pending again.
        #expect(try await sandbox.nudge("undo", String(removal)).status == 0)
        let back = try json(try await sandbox.nudge("show", String(dentist), "--json"))
        #expect(back["text"] as? String == "dentist" && date(back["pendingDue"]) == Self.start + 7200, "\(back)")
        let next = try await sandbox.addItem("new")
        #expect(next == call + 1, "IDs are never handed out twice")
    }

    @Test func anImportAndABatchAreEachTakenBackAsAWholeAlsoAfterARestart() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        let calendar = sandbox.path + "/tasks.ics"
        let tasks = ["a", "b", "c"].map { "BEGIN:VTODO\r\nUID:task-\($0)\r\nSUMMARY:task \($0)\r\nEND:VTODO\r\n" }
        let document = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + tasks.joined() + "END:VCALENDAR\r\n"
        try document.write(toFile: calendar, atomically: true, encoding: .utf8)
        #expect(try await sandbox.nudge("import", calendar).status == 0)
        let batch = """
            {"operations": [{"op": "add", "item": {"text": "one"}}, {"op": "edit", "itemID": 1, "patch": \
            {"checked": true}}, {"op": "remove", "itemID": 2}]}
            """
        let answered = try await sandbox.curl("POST", "/v1/batch", body: batch)
        #expect(answered.status == 200, "\(answered)")
        let listed = try await changes(sandbox)
        #expect(event(listed[0])["text"] as? String == "batch: 3 items (1 added, 1 changed, 1 removed)", "\(listed)")
        #expect(event(listed[1])["text"] as? String == "import: 3 items (3 added)", "\(listed)")

        // After a restart, the steps come from the store.
        #expect(daemon.stop() == 0)
        daemon = try await Daemon(sandbox, clock: .manual(Self.start))
        defer { daemon.stop() }
        #expect(try await sandbox.nudge("undo").status == 0)
        var items = try await allItems(sandbox)
        #expect(items.map { $0["text"] as? String } == ["task a", "task b", "task c"], "\(items)")
        #expect(items.allSatisfy { $0["checked"] as? Bool == false }, "\(items)")
        // The batch and its undo cancel out: the import, older, can be taken back now, as a whole.
        #expect(try await sandbox.nudge("undo", String(try #require(event(listed[1])["id"] as? Int))).status == 0)
        items = try await allItems(sandbox)
        #expect(items.isEmpty, "\(items)")
    }
}
