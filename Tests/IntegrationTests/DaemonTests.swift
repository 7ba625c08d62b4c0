import Foundation
import Testing

/// The real nudged, driven by the real nudge over its real socket; each test owns a daemon, on a manual clock that
/// the test moves.
@Suite(.timeLimit(hangLimit)) struct DaemonTests {
    @Test func anEditMovingTheDueInstantFiresOnceAtTheNewInstantAndNeverAtTheOld() async throws {
        let nudged = try await WatchedDaemon()
        defer { nudged.stop() }
        let (sandbox, watcher) = (nudged.sandbox, nudged.watcher)

        let first = TestClock.epoch + 60
        let id = try await sandbox.addItem("stretch", due: first)
        let second = first + 1
        #expect(try await sandbox.nudge("edit", String(id), "--due", iso(second)).status == 0)
        // A fire at the old instant would come before the one at the new; a second fire at the new, before the
        // sentinel's.
        try await nudged.sentinel(due: second + 1)

        let fired = watcher.events(kind: "fired", item: id)
        #expect(fired.count == 1, "events: \(watcher.events)")
        #expect(fired.first?.due == second)
        #expect(fired.first?.at == second, "fired at \(fired.first.map { preciseISO($0.at) } ?? "-"), due \(second)")
        #expect(watcher.events(kind: "replaced", item: id).count == 1)
        #expect(!watcher.events.contains { $0.due == first && $0.kind == "fired" }, "events: \(watcher.events)")
    }

    @Test func anItemCheckedOffBeforeItIsDueNeverFires() async throws {
        let nudged = try await WatchedDaemon()
        defer { nudged.stop() }
        let (sandbox, daemon, watcher) = (nudged.sandbox, nudged.daemon, nudged.watcher)

        let due = TestClock.epoch + 60
        let id = try await sandbox.addItem("post the letter", due: due)
        #expect(try await sandbox.nudge("done", String(id)).status == 0)
        try await nudged.sentinel(due: due + 1)
        try await daemon.awaitLog("reminder: sentinel")
        #expect(watcher.events(kind: "cancelled", item: id).count == 1)
        #expect(watcher.events(kind: "fired", item: id).isEmpty, "events: \(watcher.events)")
        #expect(!daemon.log.contains("reminder: post the letter"))
    }

    @Test func deletingAnItemReportsItsReminderCancelled() async throws {
        let nudged = try await WatchedDaemon()
        defer { nudged.stop() }
        let (sandbox, watcher) = (nudged.sandbox, nudged.watcher)

        let id = try await sandbox.addItem("renew passport", due: TestClock.epoch + 3600)
        #expect(try await sandbox.nudge("rm", String(id)).status == 0)
        try await watcher.awaitEvent("cancelled", item: id)
        #expect(watcher.events(kind: "cancelled", item: id).count == 1, "events: \(watcher.events)")
        #expect(try await sandbox.nudge("show", String(id)).status == 1)
    }

    @Test func itemIDsStayMonotonicAcrossARestart() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var daemon = try await Daemon(sandbox)
        defer { daemon.stop() }  // whichever runs when the test ends
        var ids: [Int] = []
        for text in ["a", "b", "c"] { ids.append(try await sandbox.addItem(text)) }
        #expect(ids == [1, 2, 3])
        #expect(try await sandbox.nudge("rm", "3").status == 0)
        #expect(daemon.stop() == 0)

        daemon = try await Daemon(sandbox)
        #expect(try await sandbox.addItem("d") == 4)
    }

    @Test func aReminderDueWhileStoppedFiresOnceLateAfterRestartAndNotAgain() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var daemon = try await Daemon(sandbox)
        defer { daemon.stop() }  // whichever runs when the test ends
        let due = TestClock.epoch + 60
        let id = try await sandbox.addItem("take the bins out", due: due)
        #expect(daemon.stop() == 0)

        // Down until the reminder is a whole second overdue: nudged calls a fire late from one second on.
        daemon = try await Daemon(sandbox, clock: .manual(due + 1))
        let delivery = try await daemon.awaitLog("reminder: take the bins out")
        #expect(!delivery.contains("late=no"), "not marked late: \(delivery)")
        #expect(daemon.stop() == 0)
        let deliveries = daemon.log.split(separator: "\n").filter { $0.contains("reminder: take the bins out") }
        #expect(deliveries.count == 1, "log:\n\(daemon.log)")

        // The log sink delivers in order: once a reminder added after the start is logged, a second delivery of the
        // old one, made at start, would have been logged before it.
        daemon = try await Daemon(sandbox, clock: .manual(due + 2))
        _ = try await sandbox.addItem("sentinel", due: due + 3)
        try await sandbox.moveClock(to: due + 3)
        try await daemon.awaitLog("reminder: sentinel")
        #expect(!daemon.log.contains("reminder: take the bins out"), "fired again:\n\(daemon.log)")
        let shown = try await sandbox.nudge("show", String(id), "--json")
        let item = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect(date(item?["lastFiredAt"]) == due)
    }

    @Test func aSecondDaemonOnTheSameStoreExitsWithTheLockError() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        let second = try await run(
            Binaries.nudged,
            ["--store", sandbox.store, "--socket", sandbox.path + "/other.sock"]
        )
        #expect(second.status == 3, "the store's exit status")
        #expect(second.stderr.contains(sandbox.store), "\(second.stderr)")
        #expect(second.stderr.contains("in use by process \(daemon.process.processIdentifier)"), "\(second.stderr)")

        // Another store, the same socket: the socket's exit status.
        let third = try await run(
            Binaries.nudged,
            ["--store", sandbox.path + "/other.plist", "--socket", sandbox.socket]
        )
        #expect(third.status == 4, "\(third.stderr)")
        #expect(third.stderr.contains("another nudged is already serving \(sandbox.socket)"), "\(third.stderr)")
        #expect(try await run(Binaries.nudged, ["--bogus"]).status == 64)
    }

    @Test func aCorruptStoreStopsTheDaemonAndIsLeftByteForByte() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try FileManager.default.createDirectory(atPath: sandbox.path + "/data", withIntermediateDirectories: true)
        let garbage = Data("GARBAGE, not a property list\n".utf8)
        _ = FileManager.default.createFile(atPath: sandbox.store, contents: garbage)
        let result = try await run(Binaries.nudged, ["--store", sandbox.store, "--socket", sandbox.socket])
        #expect(result.status == 3)
        #expect(result.stderr.contains(sandbox.store), "\(result.stderr)")
        #expect(result.stderr.contains("bplist00"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: sandbox.store) == garbage)
    }

    @Test func anotherUserIsRefusedEvenWhenTheSocketIsReachable() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        // nudged keeps the socket's directory 0700; open it up, as a careless admin might, to reach the peer check.
        chmod(sandbox.path, 0o755)
        chmod(sandbox.path + "/run", 0o755)
        chmod(sandbox.socket, 0o777)
        let asNobody = try await run(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", Binaries.nudge, "lists", "--socket",
                sandbox.socket,
            ]
        )
        #expect(asNobody.status == 1, "\(asNobody)")
        #expect(asNobody.stderr.contains("only the user it runs as"), "\(asNobody.stderr)")
        let refusal = try await daemon.awaitLog("refused a connection from another user")
        #expect(refusal.contains("peer.uid=65534"), "\(refusal)")
    }

    /// nudge's own directories are made 0700 again and the store 0600, and the log says so; a socket directory that
    /// is not nudge's own and is open to others is refused, not changed (it might be /tmp); so is the fallback
    /// `nudge-$UID` when others may write in it.
    @Test func looseModesAreTightenedOnNudgesOwnAndRefusedElsewhere() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let directory = sandbox.path + "/nudge"
        let store = directory + "/Checklists.plist"
        let first = try await Daemon(sandbox, arguments: ["--store", store])
        first.stop()
        chmod(directory, 0o755)
        chmod(store, 0o644)
        let daemon = try await Daemon(sandbox, arguments: ["--store", store])
        defer { daemon.stop() }
        try await daemon.awaitLog("made \(directory) private: its mode was 755, now 700")
        try await daemon.awaitLog("made \(store) private: its mode was 644, now 600")
        #expect(try Self.mode(directory) == 0o700)
        #expect(try Self.mode(store) == 0o600)

        // A socket directory open to others, nudge's or not, is refused (exit 4) and left as it is.
        let open = sandbox.path + "/open"
        // The fallback under /tmp, made first by someone else (here: left open to others).
        let fallback = sandbox.path + "/nudge-\(getuid())"
        for (directory, mode, socket, refusal) in [
            (open, 0o1777, open + "/nudged.sock", "the socket directory \(open) is open to others (mode 1777)"),
            (
                fallback, 0o777, fallback + "/nudge/nudged.sock",
                "\(fallback) is not yours alone (owner uid \(getuid()), mode 777)"
            ),
        ] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, mode_t(mode))
            let refused = try await run(
                Binaries.nudged,
                ["--store", sandbox.path + "/other.plist", "--socket", socket]
            )
            #expect(refused.status == 4, "\(refused)")
            #expect(refused.stderr.contains(refusal), "\(refused)")
            #expect(try Self.mode(directory) == mode, "nudged changed \(directory)")
        }
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }
}
