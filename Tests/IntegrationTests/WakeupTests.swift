import Foundation
import Testing

/// nudged sleeps until a reminder is due: no polling, no housekeeping ticks. Of the wall clock (its timerfd), so
/// scripts/test runs it in the alone group; how long anything takes here decides how long the test takes, never
/// whether it passes.
@Suite(.timeLimit(hangLimit)) struct WakeupTests {
    /// Voluntary context switches of each of a process's threads, from /proc: each time a sleeping thread wakes, its
    /// count goes up by one. (Involuntary switches are left out: they count preemptions of a thread that was already
    /// running, which a busy machine adds and an idle daemon does not cause.)
    private struct Switches {
        var names: [String: String] = [:]
        var counts: [String: Int] = [:]

        init(_ pid: Int32) {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let directory = "/proc/\(pid)/task/\(task)"
                guard let status = try? String(contentsOfFile: directory + "/status", encoding: .utf8) else { continue }
                let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
                counts[task] = line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
                names[task] = (try? String(contentsOfFile: directory + "/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }

        var total: Int { counts.values.reduce(0, +) }

        /// Per thread, the wake-ups since `earlier` (a thread born since counts from zero).
        func since(_ earlier: Switches) -> String {
            counts.keys.sorted().map { "\($0) \(names[$0] ?? "?"): \(counts[$0]! - (earlier.counts[$0] ?? 0))" }
                .joined(separator: ", ")
        }
    }

    /// Before counting, the daemon serves what a user does: curl's 1,000 adds, a list linked to a folder of 1,000
    /// task files (which it then watches, with inotify), then `nudge` adding, editing, listing and watching, and a
    /// reminder firing to the journal and the log. None of it may leave anything behind that ticks; the watcher stays
    /// attached while it idles.
    @Test func withAThousandRemindersDueNextYearTheDaemonDoesNotWakeUp() async throws {
        try JournalReader.requireJournald()
        let nudged = try await WatchedDaemon(sinks: "journal,log", clock: .wall)
        defer { nudged.stop() }
        let (sandbox, watcher) = (nudged.sandbox, nudged.watcher)
        let soon = try await sandbox.addDueSoon([("stretch", 0)]).ids[0]
        try await watcher.awaitEvent("fired", item: soon)
        try await nudged.daemon.awaitLog("reminder: stretch")

        let nextYear = Date() + 365 * 86_400
        try await sandbox.addItems(1000, text: "annual review", due: nextYear)
        let folder = sandbox.path + "/calendars/tasks"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: nextYear)
        let due = String(
            format: "%04d%02d%02dT%02d%02d%02dZ",
            parts.year!,
            parts.month!,
            parts.day!,
            parts.hour!,
            parts.minute!,
            parts.second!
        )
        for index in 1...1000 {
            let task = "BEGIN:VTODO\r\nUID:task-\(index)\r\nSUMMARY:task \(index)\r\nDUE:\(due)\r\nEND:VTODO\r\n"
            try ("BEGIN:VCALENDAR\r\n" + task + "END:VCALENDAR\r\n")
                .write(toFile: folder + "/task-\(index).ics", atomically: true, encoding: .utf8)
        }
        let linked = try await sandbox.nudge("list", "link", "Tasks", folder)
        #expect(linked.status == 0 && linked.stdout.contains("1000 tasks"), "\(linked)")
        let lease = try await sandbox.addItem("renew the lease", due: nextYear)
        #expect(try await sandbox.nudge("edit", String(lease), "--text", "renew the lease, early").status == 0)
        #expect(try await sandbox.nudge("ls").status == 0)
        #expect(try await sandbox.nudge("pending").status == 0)
        #expect(try await sandbox.health()["pending"] as? Int == 2001)
        try await watcher.awaitEvent("replaced", item: lease)

        let idle = Double(ProcessInfo.processInfo.environment["NUDGE_WAKEUP_SECONDS"] ?? "") ?? 15
        let measured = try await idleWakeUps(nudged, idle: idle) { _ in
            _ = try await nudged.daemon.awaitLog("reminder: A")
        }
        // Anything that ticks would show: libdispatch's 1 s pool monitor alone makes one a second (see
        // NudgedCommand.mainOnEventLoops()). Allowed: one per five seconds of the window measured.
        let allowed = Int(measured.window / 5)
        #expect(
            measured.wakeUps <= allowed,
            "nudged woke \(measured.wakeUps) times in \(measured.window) s idle (allowed \(allowed)); per thread: \(measured.perThread)"
        )
    }

    /// The desktop and command sinks: after 200 reminders shown by dunst (where they wait for a click) and 200
    /// `--on-fire` runs, an idle nudged makes fewer than 10 wake-ups in 60 s, all threads together. Talking to the
    /// notification server (sd-bus on a thread blocked in poll) and waiting for a program (a pidfd) must leave
    /// nothing that ticks.
    @Test func afterHundredsOfNotificationsAndProgramsTheDaemonDoesNotWakeUp() async throws {
        let desktop = try await DesktopSession()
        defer { desktop.stop() }
        let nudged = try await WatchedDaemon(
            sinks: "desktop,command",
            clock: .wall,
            arguments: ["--log-level", "debug", "--on-fire", "/bin/true"],
            environment: desktop.environment
        )
        defer { nudged.stop() }
        let count = 200
        let drinks = try await nudged.sandbox.addDueSoon(Array(repeating: ("drink water", 0), count: count)).ids
        // However long dunst takes to show them all (a few a second on a loaded machine): each one shown restarts
        // the wait.
        try await nudged.daemon.awaitLog("shows as notification", times: count)
        for itemID in drinks { try await nudged.daemon.awaitLog("/bin/true for item \(itemID) exited with status 0") }
        // Every one of them waits for a click: none was stacked into another (nor closed as expired, for it).
        try await nudged.daemon.eventually("dunst to hold all \(count)") { await desktop.dunstHolds() == count }
        let expired = try await nudged.sandbox.nudge("events", "--kind", "expired", "--json")
        #expect(expired.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        let idle = Double(ProcessInfo.processInfo.environment["NUDGE_DESKTOP_WAKEUP_SECONDS"] ?? "") ?? 60
        let measured = try await idleWakeUps(nudged, idle: idle) { fired in
            _ = try await nudged.daemon.awaitLog("item \(fired) shows as notification")
            _ = try await nudged.daemon.awaitLog("/bin/true for item \(fired) exited with status 0")
        }
        let allowed = Int(measured.window * 9 / 60)
        #expect(
            measured.wakeUps <= allowed,
            "nudged woke \(measured.wakeUps) times in \(measured.window) s idle (allowed \(allowed)); per thread: \(measured.perThread)"
        )
    }

    /// How often nudged woke while idle for `idle` seconds, with a reminder pending next year. The window holds no
    /// fire, so nothing of a fire's cost (which varies by several switches on a busy machine) is in it or has to be
    /// subtracted: reminder A fires, `settled` awaits the signs that its sinks are done, and then nudged must be
    /// still, no thread waking, for two seconds; only then does the window open, and it closes `idle` seconds later.
    /// A daemon that ticks is never still: after `patience` the test says so and fails.
    private func idleWakeUps(
        _ nudged: WatchedDaemon,
        idle: Double,
        settled: (_ itemID: Int) async throws -> Void
    ) async throws -> (window: Double, wakeUps: Int, perThread: String) {
        _ = try await nudged.sandbox.addItem("B", due: Date() + 365 * 86_400)
        let fireA = try await nudged.sandbox.addDueSoon([("A", 0)]).ids[0]
        try await nudged.watcher.awaitEvent("fired", item: fireA)
        try await settled(fireA)
        let pid = nudged.daemon.process.processIdentifier
        let opened = try await still(pid, for: .seconds(2))
        let openedAt = ContinuousClock.now
        try await Task.sleep(for: .seconds(idle))
        let closed = Switches(pid)
        let window = (ContinuousClock.now - openedAt) / .seconds(1)
        let wakeUps = closed.total - opened.total
        let perThread = closed.since(opened)
        print("nudged: \(wakeUps) wake-ups in \(String(format: "%.1f", window)) s idle; per thread: \(perThread)")
        return (window, wakeUps, perThread)
    }

    /// The process's switches once no thread of it has woken for `quiet`, read from /proc (which wakes nothing).
    private func still(_ pid: Int32, for quiet: Duration) async throws -> Switches {
        var last = Switches(pid)
        var unchangedSince = ContinuousClock.now
        return try await eventually(
            "nudged to stay still for \(quiet)",
            seen: { "wake-ups per thread since the last change: \(Switches(pid).since(last))" }
        ) {
            let now = Switches(pid)
            if now.total != last.total { (last, unchangedSince) = (now, ContinuousClock.now) }
            return ContinuousClock.now - unchangedSince >= quiet ? now : nil
        }
    }
}
