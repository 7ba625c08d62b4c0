import Foundation
import Testing

/// The real nudged, driven by the real nudge over its real socket. Serialized: each test owns a daemon, and the
/// timing tests must not compete for the two cores.
@Suite(.serialized) struct DaemonTests {
    @Test func anEditMovingTheDueInstantFiresOnceAtTheNewInstantAndNeverAtTheOld() throws {
        let nudged = try WatchedDaemon()
        defer { nudged.stop() }
        let (sandbox, watcher) = (nudged.sandbox, nudged.watcher)

        let first = wholeSecond(after: 2)
        let id = try sandbox.addItem("stretch", due: first)
        let second = first + 1
        #expect(try sandbox.nudge("edit", String(id), "--due", iso(second)).status == 0)
        Thread.sleep(until: second + 1.5)

        let fired = watcher.events(kind: "fired", item: id)
        #expect(fired.count == 1, "events: \(watcher.events)")
        #expect(date(fired.first?["due"]) == second)
        let firedAt = try #require(date(fired.first?["at"]))
        #expect(firedAt >= second && firedAt < second + 0.5, "fired at \(firedAt), due \(second)")
        #expect(watcher.events(kind: "replaced", item: id).count == 1)
        #expect(!watcher.events.contains { date($0["due"]) == first && $0["kind"] as? String == "fired" })
    }

    @Test func anItemCheckedOffBeforeItIsDueNeverFires() throws {
        let nudged = try WatchedDaemon()
        defer { nudged.stop() }
        let (sandbox, daemon, watcher) = (nudged.sandbox, nudged.daemon, nudged.watcher)

        let due = wholeSecond(after: 2)
        let id = try sandbox.addItem("post the letter", due: due)
        #expect(try sandbox.nudge("done", String(id)).status == 0)
        Thread.sleep(until: due + 1.5)
        #expect(watcher.events(kind: "cancelled", item: id).count == 1)
        #expect(watcher.events(kind: "fired", item: id).isEmpty, "events: \(watcher.events)")
        #expect(!daemon.log.contains("reminder: post the letter"))
    }

    @Test func deletingAnItemReportsItsReminderCancelled() throws {
        let nudged = try WatchedDaemon()
        defer { nudged.stop() }
        let (sandbox, watcher) = (nudged.sandbox, nudged.watcher)

        let id = try sandbox.addItem("renew passport", due: wholeSecond(after: 3600))
        #expect(try sandbox.nudge("rm", String(id)).status == 0)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(watcher.events(kind: "cancelled", item: id).count == 1, "events: \(watcher.events)")
        #expect(try sandbox.nudge("show", String(id)).status == 1)
    }

    @Test func itemIDsStayMonotonicAcrossARestart() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var daemon = try Daemon(sandbox)
        let ids = try ["a", "b", "c"].map { try sandbox.addItem($0) }
        #expect(ids == [1, 2, 3])
        #expect(try sandbox.nudge("rm", "3").status == 0)
        #expect(daemon.stop() == 0)

        daemon = try Daemon(sandbox)
        defer { daemon.stop() }
        #expect(try sandbox.addItem("d") == 4)
    }

    @Test func aReminderDueWhileStoppedFiresOnceLateAfterRestartAndNotAgain() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var daemon = try Daemon(sandbox)
        let due = wholeSecond(after: 2)
        let id = try sandbox.addItem("take the bins out", due: due)
        #expect(daemon.stop() == 0)
        Thread.sleep(until: due + 1)

        daemon = try Daemon(sandbox)
        let firstLog = daemon.log
        #expect(daemon.stop() == 0)
        let deliveries = firstLog.split(separator: "\n").filter { $0.contains("reminder: take the bins out") }
        #expect(deliveries.count == 1, "log:\n\(firstLog)")
        #expect(deliveries.first.map { !$0.contains("late=no") } == true, "not marked late: \(deliveries)")

        daemon = try Daemon(sandbox)
        defer { daemon.stop() }
        #expect(!daemon.log.contains("reminder: take the bins out"), "fired again:\n\(daemon.log)")
        let shown = try sandbox.nudge("show", String(id), "--json")
        let item = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect(date(item?["lastFiredAt"]) == due)
    }

    @Test func aSecondDaemonOnTheSameStoreExitsWithTheLockError() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try Daemon(sandbox)
        defer { daemon.stop() }
        let second = try run(Binaries.nudged, ["--store", sandbox.store, "--socket", sandbox.path + "/other.sock"])
        #expect(second.status != 0)
        #expect(second.stderr.contains(sandbox.store), "\(second.stderr)")
        #expect(second.stderr.contains("in use by process \(daemon.process.processIdentifier)"), "\(second.stderr)")
    }

    @Test func aCorruptStoreStopsTheDaemonAndIsLeftByteForByte() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try FileManager.default.createDirectory(atPath: sandbox.path + "/data", withIntermediateDirectories: true)
        let garbage = Data("GARBAGE, not a property list\n".utf8)
        _ = FileManager.default.createFile(atPath: sandbox.store, contents: garbage)
        let result = try run(Binaries.nudged, ["--store", sandbox.store, "--socket", sandbox.socket])
        #expect(result.status != 0)
        #expect(result.stderr.contains(sandbox.store), "\(result.stderr)")
        #expect(result.stderr.contains("bplist00"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: sandbox.store) == garbage)
    }

    @Test func anotherUserIsRefusedEvenWhenTheSocketIsReachable() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try Daemon(sandbox)
        defer { daemon.stop() }
        // nudged keeps the socket's directory 0700; open it up, as a careless admin might, to reach the peer check.
        chmod(sandbox.path, 0o755)
        chmod(sandbox.path + "/run", 0o755)
        chmod(sandbox.socket, 0o777)
        let asNobody = try run(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", Binaries.nudge, "lists", "--socket",
                sandbox.socket,
            ]
        )
        #expect(asNobody.status == 1, "\(asNobody)")
        #expect(asNobody.stderr.contains("only the user it runs as"), "\(asNobody.stderr)")
        #expect(daemon.log.contains("refused a connection from another user"))
        #expect(daemon.log.contains("peer.uid=65534"))
    }
}
