import Foundation
import Testing

/// nudged sleeps until a reminder is due: no polling, no housekeeping ticks.
@Suite(.serialized) struct WakeupTests {
    /// One thread's name and context switches, from /proc: each wake-up of a sleeping thread adds one.
    private struct ThreadSwitches {
        var name: String
        var switches: Int
    }

    private func contextSwitches(_ pid: Int32) -> [String: ThreadSwitches] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var threads: [String: ThreadSwitches] = [:]
        for task in tasks {
            let directory = "/proc/\(pid)/task/\(task)"
            let status = (try? String(contentsOfFile: directory + "/status", encoding: .utf8)) ?? ""
            let name = (try? String(contentsOfFile: directory + "/comm", encoding: .utf8)) ?? "?"
            let switches = status.split(separator: "\n").reduce(0) { sum, line in
                guard line.hasPrefix("voluntary_ctxt_switches") || line.hasPrefix("nonvoluntary_ctxt_switches")
                else { return sum }
                return sum + (Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0)
            }
            threads[task] = ThreadSwitches(
                name: name.trimmingCharacters(in: .whitespacesAndNewlines),
                switches: switches
            )
        }
        return threads
    }

    /// Before counting, the daemon serves what a user does: curl's 1,000 adds, then `nudge` adding, editing, listing
    /// and watching, and a reminder firing to the journal and the log. None of it may leave anything behind that
    /// ticks; the watcher stays attached while it idles. (The desktop and command sinks are left out: they run
    /// programs through swift-subprocess, which starts libdispatch's monitor; see the README's known limits.)
    @Test func withAThousandRemindersDueNextYearTheDaemonDoesNotWakeUp() throws {
        try JournalReader.requireJournald()
        let nudged = try WatchedDaemon(sinks: "journal,log")
        defer { nudged.stop() }
        let sandbox = nudged.sandbox
        let soon = try sandbox.addItem("stretch", due: wholeSecond(after: 1))
        #expect(eventually(within: 4) { nudged.daemon.log.contains("reminder: stretch") })
        #expect(!nudged.watcher.events(kind: "fired", item: soon).isEmpty)

        let nextYear = Date() + 365 * 86_400
        let urls = Array(repeating: "http://nudged/v1/items", count: 1000)
        let added = try run(
            "/usr/bin/curl",
            [
                "-sf", "-o", "/dev/null", "--unix-socket", sandbox.socket, "-H", "Content-Type: application/json",
                "--data-binary", "{\"text\": \"annual review\", \"dueDate\": \"\(iso(nextYear))\"}",
            ] + urls
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try sandbox.addItem("renew the lease", due: nextYear) == 1002)
        #expect(try sandbox.nudge("edit", "1002", "--text", "renew the lease, early").status == 0)
        #expect(try sandbox.nudge("ls").status == 0)
        #expect(try sandbox.nudge("pending").status == 0)
        let health = try run("/usr/bin/curl", ["-s", "--unix-socket", sandbox.socket, "http://nudged/v1/health"])
        #expect(health.stdout.contains("\"pending\":1001"), "\(health.stdout)")
        #expect(nudged.watcher.events(kind: "replaced", item: 1002).count == 1, "\(nudged.watcher.events.suffix(3))")

        // Let start-up settle (threads that were only needed briefly end), then count.
        Thread.sleep(forTimeInterval: 5)
        let seconds = Double(ProcessInfo.processInfo.environment["NUDGE_WAKEUP_SECONDS"] ?? "") ?? 60
        let pid = nudged.daemon.process.processIdentifier
        let before = contextSwitches(pid)
        Thread.sleep(forTimeInterval: seconds)
        let after = contextSwitches(pid)
        let woken = after.map { id, thread in
            (id: id, name: thread.name, wakes: thread.switches - (before[id]?.switches ?? 0))
        }
        .sorted { $0.id < $1.id }
        let total = woken.reduce(0) { $0 + $1.wakes }
        print(
            "nudged with 1001 pending reminders and a watcher, \(Int(seconds)) s idle: \(total) wake-ups; per thread "
                + woken.map { "\($0.id) \($0.name): \($0.wakes)" }.joined(separator: ", ")
        )
        // Summed over every thread: libdispatch's 1 s pool monitor alone would make about 60 (see
        // NudgedCommand.mainOnEventLoops()).
        #expect(total < 10, "nudged woke \(total) times in \(seconds) s")
    }
}
