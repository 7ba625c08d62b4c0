import Foundation
import Testing

@testable import NudgeSinks

/// The real runner on real programs from coreutils.
@Suite struct SubprocessRunnerTests {
    private let runner = SubprocessRunner()
    /// For runs whose timeout is not what is tested: the integration suites, running beside these on two cores,
    /// can keep this process's tasks waiting for many seconds.
    private static let roomy: Duration = .seconds(300)

    @Test func outputAndStatusComeBack() async {
        let outcome = await runner.run(
            ProcessCommand(
                "/bin/sh",
                ["-c", "printf '%s' \"$GREETING\"; echo oops >&2; exit 4"],
                environment: ["GREETING": "hello"],
                timeout: Self.roomy,
                capturesOutput: true
            )
        )
        #expect(outcome.ending == .exited(4))
        #expect(outcome.standardOutput == "hello")
        #expect(outcome.standardError == "oops\n")
    }

    @Test func aProgramPastItsTimeoutIsStoppedAndReaped() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let outcome = await runner.run(
            ProcessCommand(
                "/bin/sh",
                ["-c", "echo $$ > \(pidFile); exec sleep 30"],
                timeout: .milliseconds(300),
                capturesOutput: true
            )
        )
        #expect(outcome.ending == .timedOut)
        let pid = try #require(
            (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
                pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        )
        // Gone, zombie included: it was stopped and reaped before `run` returned.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func aMissingProgramDoesNotStart() async {
        let outcome = await runner.run(
            ProcessCommand("/no/such/program", [], timeout: Self.roomy, capturesOutput: true)
        )
        guard case .notStarted = outcome.ending else {
            Issue.record("expected notStarted, got \(outcome.ending)")
            return
        }
    }

    @Test func aNULInAnArgumentIsShownNotTruncated() async {
        let outcome = await runner.run(
            ProcessCommand("/bin/echo", ["a\u{0}b"], timeout: Self.roomy, capturesOutput: true)
        )
        #expect(outcome.ending == .exited(0))
        #expect(outcome.standardOutput == "a\u{2400}b\n")
    }
}
