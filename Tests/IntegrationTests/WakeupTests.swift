import Foundation
import Testing

/// nudged sleeps until a reminder is due: no polling, no housekeeping ticks.
@Suite(.serialized) struct WakeupTests {
    /// Context switches of each thread of a process, from /proc: each wake-up of a sleeping thread adds one.
    private func contextSwitches(_ pid: Int32) -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var switches: [String: Int] = [:]
        for task in tasks {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            switches[task] = status.split(separator: "\n").reduce(0) { sum, line in
                guard line.hasPrefix("voluntary_ctxt_switches") || line.hasPrefix("nonvoluntary_ctxt_switches")
                else { return sum }
                return sum + (Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0)
            }
        }
        return switches
    }

    @Test func withAThousandRemindersDueNextYearTheDaemonDoesNotWakeUp() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try Daemon(sandbox)
        defer { daemon.stop() }

        let nextYear = iso(Date() + 365 * 86_400)
        let urls = Array(repeating: "http://nudged/v1/items", count: 1000)
        let added = try run(
            "/usr/bin/curl",
            [
                "-sf", "-o", "/dev/null", "--unix-socket", sandbox.socket, "-H", "Content-Type: application/json",
                "--data-binary", "{\"text\": \"annual review\", \"dueDate\": \"\(nextYear)\"}",
            ] + urls
        )
        #expect(added.status == 0, "\(added.stderr)")
        let health = try run("/usr/bin/curl", ["-s", "--unix-socket", sandbox.socket, "http://nudged/v1/health"])
        #expect(health.stdout.contains("\"pending\":1000"), "\(health.stdout)")

        // Let start-up settle (idle worker threads retire after a few seconds), then count.
        Thread.sleep(forTimeInterval: 5)
        let seconds = Double(ProcessInfo.processInfo.environment["NUDGE_WAKEUP_SECONDS"] ?? "") ?? 60
        let pid = daemon.process.processIdentifier
        let before = contextSwitches(pid)
        Thread.sleep(forTimeInterval: seconds)
        let after = contextSwitches(pid)
        let woken = after.map { thread, count in (thread: thread, wakes: count - (before[thread] ?? 0)) }
            .sorted { $0.wakes > $1.wakes }
        print(
            "nudged with 1000 pending reminders, \(Int(seconds)) s idle: wake-ups per thread "
                + woken.map { "\($0.thread): \($0.wakes)" }.joined(separator: ", ")
        )
        // Known platform limit (README): libdispatch on Linux arms a 1 s timer on its manager thread to watch its
        // worker pool, in every process that has used a Dispatch worker thread. That one thread may wake about
        // once a second; no other thread of nudged (the timer thread, the NIO loops, the workers) may wake at all.
        let busiest = woken.first?.wakes ?? 0
        #expect(busiest <= Int(seconds) + 3, "the busiest thread woke \(busiest) times in \(seconds) s")
        let others = woken.dropFirst().reduce(0) { $0 + $1.wakes }
        #expect(others < 10, "threads other than libdispatch's manager woke \(others) times in \(seconds) s")
    }
}
