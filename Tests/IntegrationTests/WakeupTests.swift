import Foundation
import Testing

/// nudged sleeps until a reminder is due: no polling, no housekeeping ticks.
@Suite(.timeLimit(.minutes(3))) struct WakeupTests {
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

    /// Before counting, the daemon serves what a user does: curl's 1,000 adds, then `nudge` adding, editing, listing
    /// and watching, and a reminder firing to the journal and the log. None of it may leave anything behind that
    /// ticks; the watcher stays attached while it idles. (The desktop and command sinks are left out: they run
    /// programs through swift-subprocess, which starts libdispatch's monitor; see the README's known limits.)
    ///
    /// The idle window is opened and closed by reminders, not by a sleep: A fires, nudged idles `NUDGE_WAKEUP_SECONDS`
    /// (default 15), B fires, then C1, C2 and C3 fire a second apart. From A to B is one fire plus the idle window;
    /// each step from B to C3 is one fire plus one idle second. A fire's own cost varies by a few switches on a busy
    /// machine, so the most expensive of those three stands for it: what A to B cost beyond that is what idling cost.
    @Test func withAThousandRemindersDueNextYearTheDaemonDoesNotWakeUp() async throws {
        try JournalReader.requireJournald()
        let nudged = try await WatchedDaemon(sinks: "journal,log")
        defer { nudged.stop() }
        let (sandbox, watcher) = (nudged.sandbox, nudged.watcher)
        let soon = try await sandbox.addItem("stretch", due: dueSoon())
        try await watcher.awaitEvent("fired", item: soon)
        try await nudged.daemon.awaitLog("reminder: stretch")

        let nextYear = Date() + 365 * 86_400
        try await sandbox.addItems(1000, text: "annual review", due: nextYear)
        #expect(try await sandbox.addItem("renew the lease", due: nextYear) == 1002)
        #expect(try await sandbox.nudge("edit", "1002", "--text", "renew the lease, early").status == 0)
        #expect(try await sandbox.nudge("ls").status == 0)
        #expect(try await sandbox.nudge("pending").status == 0)
        #expect(try await sandbox.health()["pending"] as? Int == 1001)
        try await watcher.awaitEvent("replaced", item: 1002)

        let idle = Double(ProcessInfo.processInfo.environment["NUDGE_WAKEUP_SECONDS"] ?? "") ?? 15
        let dueA = dueSoon()
        var itemIDs: [Int] = []
        for (name, due) in [("A", dueA), ("B", dueA + idle)] + (1...3).map({ ("C\($0)", dueA + idle + Double($0)) }) {
            itemIDs.append(try await sandbox.addItem(name, due: due))
        }
        let pid = nudged.daemon.process.processIdentifier
        var fired: [WatchedEvent] = []
        var switches: [Switches] = []
        for itemID in itemIDs {
            fired.append(try await watcher.awaitEvent("fired", item: itemID, within: .seconds(idle) + patience))
            switches.append(Switches(pid))
        }

        let window = fired[1].at.timeIntervalSince(fired[0].at)
        let fireAndWindow = switches[1].total - switches[0].total
        let fireAndOneSecond = zip(switches.dropFirst(), switches.dropFirst(2)).map { $1.total - $0.total }
        let idleWakeUps = fireAndWindow - fireAndOneSecond.max()!
        print(
            "nudged with 1005 pending reminders and a watcher: \(fireAndWindow) wake-ups over one fire and "
                + "\(String(format: "%.1f", window)) s idle, \(fireAndOneSecond) over one fire and 1 s; idle cost "
                + "\(idleWakeUps). Per thread over the window: \(switches[1].since(switches[0]))"
        )
        // Anything that ticks would show: libdispatch's 1 s pool monitor alone makes one a second (see
        // NudgedCommand.mainOnEventLoops()). Allowed: one per five seconds of the window measured.
        let allowed = Int(window / 5)
        #expect(
            idleWakeUps <= allowed,
            """
            nudged woke \(idleWakeUps) times in \(window) s idle (allowed \(allowed)); per thread: \
            \(switches[1].since(switches[0]))
            """
        )
    }
}
