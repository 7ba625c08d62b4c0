import Foundation
import Testing

/// The journal sink against the real journald (scripts/test starts one): entries read back with journalctl.
@Suite(.timeLimit(hangLimit)) struct JournalTests {
    static let firedMessageID = "28c762f3a8fece76dcfed12e357523d6"

    /// Adds an item through the API, so its text may hold anything JSON can carry (NUL included).
    private func addThroughAPI(_ sandbox: Sandbox, text: String, due: Date) async throws -> Int {
        let body = try JSONSerialization.data(withJSONObject: ["text": text, "dueDate": iso(due)])
        let response = try await sandbox.curl("POST", "/v1/items", body: String(decoding: body, as: UTF8.self))
        #expect(response.status == 201, "\(response.body.prefix(300))")
        return try Sandbox.itemID(added: Data(response.body.utf8), due: due)
    }

    @Test func itemTextCannotAddOrChangeAField() async throws {
        try JournalReader.requireJournald()
        let nudged = try await WatchedDaemon(sinks: "journal")
        defer { nudged.stop() }
        let (sandbox, daemon, watcher) = (nudged.sandbox, nudged.daemon, nudged.watcher)

        let due = TestClock.epoch + 60
        let tricky =
            "first line\nPRIORITY=0\nMESSAGE_ID=00000000000000000000000000000000\n\nNUDGE_ITEM_ID=999"
            + "\u{0}SYSLOG_IDENTIFIER=evil=\u{0}\nPRIORITY=0"
        let huge = String(repeating: "0123456789", count: 100_000)
        let texts = [
            try await addThroughAPI(sandbox, text: tricky, due: due): tricky,
            try await addThroughAPI(sandbox, text: huge, due: due): huge,
        ]
        try await sandbox.moveClock(to: due)
        for itemID in texts.keys { try await watcher.awaitEvent("fired", item: itemID) }

        let pid = daemon.process.processIdentifier
        for (itemID, text) in texts {
            let matches = ["_PID=\(pid)", "NUDGE_ITEM_ID=\(itemID)", "NUDGE_EVENT=fired"]
            for (form, entries) in [
                ("json", try await JournalReader.jsonEntries(matches)),
                ("export", try await JournalReader.exportEntries(matches)),
            ] {
                try #require(entries.count == 1, "\(form): \(entries.count) entries for item \(itemID)")
                var fields = JournalReader.sentFields(entries[0])
                let late = fields.removeValue(forKey: "NUDGE_LATE_USEC")
                #expect(late?.count == 1 && late.flatMap { Int(String(decoding: $0[0], as: UTF8.self)) } != nil)
                let eventID = fields.removeValue(forKey: "NUDGE_EVENT_ID")
                #expect(eventID?.count == 1 && eventID.flatMap { Int(String(decoding: $0[0], as: UTF8.self)) } != nil)
                let decided = fields.removeValue(forKey: "NUDGE_AT")
                #expect(decided?.count == 1 && decided.flatMap { date(String(decoding: $0[0], as: UTF8.self)) } != nil)
                let expected: [String: [[UInt8]]] = [
                    "MESSAGE": [Array(text.utf8)],
                    "PRIORITY": [Array("5".utf8)],
                    "MESSAGE_ID": [Array(Self.firedMessageID.utf8)],
                    "SYSLOG_IDENTIFIER": [Array("nudge".utf8)],
                    "NUDGE_EVENT": [Array("fired".utf8)],
                    "NUDGE_ITEM_ID": [Array(String(itemID).utf8)],
                    "NUDGE_LIST": [Array("Inbox".utf8)],
                    "NUDGE_PRIORITY": [Array("normal".utf8)],
                    "NUDGE_DUE": [Array(due.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)).utf8)],
                ]
                #expect(fields.keys.sorted() == expected.keys.sorted(), "\(form) fields: \(fields.keys.sorted())")
                for (name, value) in expected {
                    #expect(fields[name] == value, "\(form) \(name) of item \(itemID) differs from what was sent")
                }
            }
        }
        // The README's query finds every fired reminder.
        let fired = try await JournalReader.jsonEntries(["_PID=\(pid)", "MESSAGE_ID=\(Self.firedMessageID)"], count: 2)
        #expect(fired.count == 2)
    }

    @Test func withNoJournaldTheOtherSinksFireAndNudgedSaysSoOnce() async throws {
        try JournalReader.requireJournald()
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        // A mount namespace of nudged's own, where an empty tmpfs hides journald's socket.
        let daemon = try await Daemon(
            sandbox,
            sinks: "journal,command",
            arguments: recorder.onFire,
            launcher: Self.ownMountNamespace(then: "mount -t tmpfs tmpfs /run/systemd/journal")
        )
        defer { daemon.stop() }

        let due = TestClock.epoch + 60
        let first = try await sandbox.addItem("first", due: due)
        let second = try await sandbox.addItem("second", due: due)
        try await sandbox.moveClock(to: due)
        try await recorder.awaitRuns(of: [first, second], daemon: daemon)
        // Both entries went to stderr once the journal sink had handled them; a second warning would come before.
        try await daemon.awaitLog("fired: first")
        try await daemon.awaitLog("fired: second")
        let log = daemon.log
        #expect(log.components(separatedBy: "the journal is unavailable").count == 2, "\(log)")
        #expect(log.contains("fired: first") && log.contains("fired: second"), "entries go to stderr instead:\n\(log)")
        #expect(log.contains("sinks: journal, command"))
    }

    @Test func aStalledJournaldDelaysNoOtherSinkAndNoStop() async throws {
        try JournalReader.requireJournald()
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorder = try FireRecorder(in: sandbox)
        // A journald that never reads: a datagram socket nobody receives from, mounted where journald's would be.
        let stalled = sandbox.path + "/stalled-journal"
        try FileManager.default.createDirectory(atPath: stalled, withIntermediateDirectories: true)
        let socket = try boundUnixSocket(at: stalled + "/socket", type: SOCK_DGRAM)
        defer { close(socket) }
        let daemon = try await Daemon(
            sandbox,
            sinks: "journal,command",
            arguments: recorder.onFire,
            launcher: Self.ownMountNamespace(then: "mount --bind \(stalled) /run/systemd/journal")
        )
        defer { daemon.stop() }
        let watcher = try await Watcher(sandbox)
        defer { watcher.stop() }

        // Enough entries to fill the socket's queue (net.unix.max_dgram_qlen), after which every send blocks.
        let queueLength =
            Int(
                (try? String(contentsOfFile: "/proc/sys/net/unix/max_dgram_qlen", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            ) ?? 512
        let due = TestClock.epoch + 60
        // Every decision is journaled, so their `scheduled` entries fill it.
        try await sandbox.addItems(queueLength + 6, text: "later", due: due + 3600)
        let itemID = try await sandbox.addItem("on time", due: due)
        try await sandbox.moveClock(to: due)

        // The journal never reads, so its sink is stuck for good on the entries before: a command sink held up
        // behind it would never run, and this wait would detect the hang.
        try await recorder.awaitRuns(of: [itemID], daemon: daemon)
        #expect(try await watcher.awaitEvent("fired", item: itemID).at == due)

        // The journal really was stuck: its queue is full of nudged's entries.
        var pending = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 { pending += 1 }
        #expect(pending >= queueLength, "only \(pending) entries reached the stalled journal")

        // A stop that waited for the stuck journal would hang; `stop()` detects that. (How long a stop takes is a
        // figure of `scripts/bench store`.)
        #expect(daemon.stop() == 0)
    }

    /// Runs nudged in a private mount namespace, after `command` (which changes mounts there, not here).
    static func ownMountNamespace(then command: String) -> [String] {
        ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", "\(command) && exec \"$@\"", "sh"]
    }
}
