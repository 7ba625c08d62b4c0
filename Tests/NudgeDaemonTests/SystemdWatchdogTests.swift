import Logging
import NudgeTestSupport
import Synchronization
import Testing

@testable import NudgeDaemon

@Suite struct SystemdWatchdogTests {
    /// Counts probes and pings; the probe after `answering` answers never, standing for a wedged scheduler.
    final class Scheduler: Sendable {
        let answering: Int
        private let counts = Mutex<(probes: Int, pings: [String])>((0, []))
        private let wedged: AsyncStream<Void>
        private let release: AsyncStream<Void>.Continuation
        private let wedgedProbe: AsyncStream<Void>.Continuation
        let reachedWedge: AsyncStream<Void>

        init(answering: Int) {
            self.answering = answering
            (wedged, release) = AsyncStream.makeStream()
            (reachedWedge, wedgedProbe) = AsyncStream.makeStream()
        }

        var probes: Int { counts.withLock { $0.probes } }
        var pings: [String] { counts.withLock { $0.pings } }

        func probe() async -> String {
            let number = counts.withLock {
                $0.probes += 1
                return $0.probes
            }
            if number > answering {
                wedgedProbe.yield()
                for await _ in wedged {}
            }
            return "probe \(number)"
        }

        func ping(_ status: String) { counts.withLock { $0.pings.append(status) } }
        func unwedge() { release.finish() }
    }

    private func watchdog(_ scheduler: Scheduler, clock: SteppingClock) -> SystemdWatchdog<SteppingClock> {
        SystemdWatchdog(
            interval: .seconds(30),
            clock: clock,
            probe: { await scheduler.probe() },
            ping: { scheduler.ping($0) },
            logger: Logger(label: "test")
        )
    }

    @Test func pingsEveryHalfIntervalEachAfterTheSchedulerAnswered() async throws {
        let clock = SteppingClock()
        let scheduler = Scheduler(answering: 3)
        let task = Task { try await watchdog(scheduler, clock: clock).run() }
        for await _ in scheduler.reachedWedge { break }
        #expect(scheduler.pings == ["probe 1", "probe 2", "probe 3"])
        #expect(clock.sleptUntil == [.seconds(15), .seconds(30), .seconds(45), .seconds(60)])
        task.cancel()
        scheduler.unwedge()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aWedgedSchedulerStopsThePings() async throws {
        let clock = SteppingClock()
        let scheduler = Scheduler(answering: 2)
        let task = Task { try await watchdog(scheduler, clock: clock).run() }
        for await _ in scheduler.reachedWedge { break }
        // However long the probe hangs, no ping and no further probe.
        for _ in 0..<1000 { await Task.yield() }
        clock.pass(.seconds(3600))
        for _ in 0..<1000 { await Task.yield() }
        #expect(scheduler.pings.count == 2)
        #expect(scheduler.probes == 3)
        task.cancel()
        scheduler.unwedge()
        _ = try? await task.value
    }

    @Test func aSlowAnswerIsLoggedAndStillPinged() async throws {
        let clock = SteppingClock()
        let logged = LogCapture()
        let pinged = Mutex<Int>(0)
        let watchdog = SystemdWatchdog(
            interval: .seconds(30),
            clock: clock,
            probe: {
                clock.pass(.seconds(20))
                return "slow"
            },
            ping: { _ in pinged.withLock { $0 += 1 } },
            logger: Logger(label: "test") { _ in logged }
        )
        let task = Task { try await watchdog.run() }
        while pinged.withLock({ $0 }) < 1 { await Task.yield() }
        task.cancel()
        _ = try? await task.value
        #expect(
            logged.messages.contains { $0.contains("took 20.0 seconds to answer the watchdog") },
            "\(logged.messages)"
        )
    }
}
