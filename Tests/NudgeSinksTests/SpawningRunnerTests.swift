import CLinux
import Foundation
import Testing

@testable import NudgeSinks

/// The real runner on real programs from coreutils.
@Suite struct SpawningRunnerTests {
    private let runner = SpawningRunner()
    /// For runs whose timeout is not what is tested: the integration suites, running beside these on two cores,
    /// can keep this process's tasks waiting for many seconds.
    private static let roomy: Duration = .seconds(300)

    private func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(name)-\(UUID().uuidString)").path
    }

    private func contents(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    @Test func theStatusComesBackAndTheEnvironmentIsAddedToNudgedsOwn() async {
        let file = temporaryFile("env")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let outcome = await runner.run(
            ProcessCommand(
                "sh",
                ["-c", "printf '%s %s' \"$GREETING\" \"${PATH:+has-path}\" > \"$0\"; exit 4", file],
                environment: ["GREETING": "hello"],
                timeout: Self.roomy
            )
        )
        #expect(outcome == .exited(4))
        #expect(contents(file) == "hello has-path")
    }

    @Test func theProgramGetsNothingOfNudgedsButItsStandardStreams() async throws {
        let file = temporaryFile("fds")
        defer { try? FileManager.default.removeItem(atPath: file) }
        // A descriptor without close-on-exec, as a store file opened without it would be.
        let leaky = open("/dev/null", O_RDONLY)
        defer { close(leaky) }
        let outcome = await runner.run(
            ProcessCommand(
                "/bin/sh",
                ["-c", "ls /proc/self/fd > \"$0\"; read line; echo \"read:$line\" >> \"$0\"", file],
                timeout: Self.roomy
            )
        )
        #expect(outcome == .exited(0))
        let lines = contents(file).split(separator: "\n")
        // 0, 1, 2, and the one ls opens to list the directory (not `leaky`, nor any of the test runner's); stdin is
        // /dev/null, so `read` gets nothing.
        #expect(lines.filter { Int($0) != nil }.count == 4, "\(lines)")
        #expect(lines.contains("read:"))
    }

    @Test func aProgramPastItsTimeoutIsStoppedWithWhatItStartedAndReaped() async throws {
        let pidFile = temporaryFile("pid")
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let outcome = await runner.run(
            ProcessCommand(
                "/bin/sh",
                // The child ignores SIGTERM: only the SIGKILL a second later stops it.
                ["-c", "(trap '' TERM; exec sleep 30) & echo $$ $! > \"$0\"; wait", pidFile],
                timeout: .seconds(1)
            )
        )
        #expect(outcome == .timedOut)
        let pids = contents(pidFile).split(separator: " ").compactMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try #require(pids.count == 2, "the shell wrote \(contents(pidFile))")
        // The shell is gone, zombie included: stopped and reaped before `run` returned.
        #expect(kill(pids[0], 0) == -1 && errno == ESRCH)
        // Its child was in its process group, and was stopped too (the test runner reaps it, if it is adopted).
        try await confirmGone(pids[1])
    }

    /// A process sent SIGKILL ends within moments: waits for its end on a pidfd (readable once it has exited, zombie
    /// or not), with a 30 s deadline; a process already reaped is gone.
    private func confirmGone(_ pid: pid_t) async throws {
        let pidfd = nudge_pidfd_open(pid)
        if pidfd < 0 {
            #expect(errno == ESRCH, "pidfd_open(\(pid)): \(String(cString: strerror(errno)))")
            return
        }
        defer { close(pidfd) }
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 30_000) == 1, "process \(pid) still runs 30 s after its group was stopped")
    }

    @Test func aMissingProgramDoesNotStart() async {
        for executable in ["/no/such/program", "no-such-program-\(UUID().uuidString)"] {
            let outcome = await runner.run(ProcessCommand(executable, [], timeout: Self.roomy))
            guard case .notStarted(let reason) = outcome else {
                Issue.record("expected notStarted, got \(outcome)")
                continue
            }
            #expect(reason.contains(executable))
        }
    }

    @Test func aNULInAnArgumentIsShownNotTruncated() async {
        let file = temporaryFile("nul")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let outcome = await runner.run(
            ProcessCommand("/bin/sh", ["-c", "printf '%s' \"$1\" > \"$0\"", file, "a\u{0}b"], timeout: Self.roomy)
        )
        #expect(outcome == .exited(0))
        #expect(contents(file) == "a\u{2400}b")
    }

    @Test func aSignalEndingTheProgramIsSaid() async {
        let outcome = await runner.run(ProcessCommand("/bin/sh", ["-c", "kill -9 $$"], timeout: Self.roomy))
        #expect(outcome == .signalled(9))
    }
}
