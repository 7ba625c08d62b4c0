import Foundation
import Testing

/// Steps the machine's wall clock (CLOCK_REALTIME) and puts it back: the clock is restored to where it would have
/// been had it never been stepped, the time it read before the first step plus the CLOCK_MONOTONIC time elapsed
/// since, so the stepped seconds never linger whatever the test does in between.
private final class SteppedClock {
    private let startRealtime: timespec
    private let startMonotonic: timespec
    private(set) var offset: TimeInterval = 0

    init() {
        startRealtime = Self.read(CLOCK_REALTIME)
        startMonotonic = Self.read(CLOCK_MONOTONIC)
    }

    /// Moves the wall clock by `seconds` (negative: back). Needs CAP_SYS_TIME.
    func step(by seconds: TimeInterval) throws {
        try Self.set(Self.seconds(Self.read(CLOCK_REALTIME)) + seconds)
        offset += seconds
    }

    /// Sets the wall clock to the start plus the monotonic time elapsed; records an issue if it cannot.
    func restore() {
        guard offset != 0 else { return }
        let elapsed = Self.seconds(Self.read(CLOCK_MONOTONIC)) - Self.seconds(startMonotonic)
        do {
            try Self.set(Self.seconds(startRealtime) + elapsed)
            offset = 0
        } catch {
            Issue.record("could not restore the wall clock, which is \(offset) s off: \(error)")
        }
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var now = timespec()
        clock_gettime(clock, &now)
        return now
    }

    private static func seconds(_ time: timespec) -> TimeInterval {
        TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
    }

    private static func set(_ seconds: TimeInterval) throws {
        let whole = seconds.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        guard clock_settime(CLOCK_REALTIME, &time) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
        }
    }
}

/// A wall-clock change makes nudged look again at once (DESIGN §3): its timerfd is armed with
/// TFD_TIMER_CANCEL_ON_SET, so setting the clock wakes it whichever way the clock moved.
///
/// These tests step the machine's clock, which would disturb every test running beside them, so they run only
/// with NUDGE_CLOCK_TESTS=1: `scripts/test` runs them on their own after everything else. They need root (or
/// CAP_SYS_TIME) and put the clock back even when they fail.
@Suite(
    .serialized,
    .timeLimit(hangLimit),
    .enabled(
        if: ProcessInfo.processInfo.environment["NUDGE_CLOCK_TESTS"] == "1",
        "steps the wall clock; scripts/test runs it alone, with NUDGE_CLOCK_TESTS=1"
    )
)
struct ClockChangeTests {
    /// Waits, by the monotonic clock, until `condition` holds or `limit` passes; returns how long it took, or nil. A
    /// step past a due instant is seen at once (TFD_TIMER_CANCEL_ON_SET), and the test prints how long that took; the
    /// wait's bound only tells that from never, or from waiting out the 600 s nudged's timer had left before the step.
    private func waitUntil(within limit: Duration = patience, _ condition: () -> Bool) async -> Duration? {
        let start = ContinuousClock.now
        do {
            try await eventually("", within: limit, condition)
            return start.duration(to: .now)
        } catch {
            return nil
        }
    }

    @Test func steppingTheClockPastADueInstantFiresItAtOnce() async throws {
        let nudged = try await WatchedDaemon(clock: .wall)
        defer { nudged.stop() }
        let watcher = nudged.watcher

        let due = wholeSecond(after: 600)
        let id = try await nudged.sandbox.addItem("check the oven", due: due)
        let clock = SteppedClock()
        defer { clock.restore() }
        try clock.step(by: 660)
        let took = await waitUntil { !watcher.events(kind: "fired", item: id).isEmpty }
        clock.restore()

        #expect(took != nil, "no fired event within \(patience) of the step; events: \(watcher.events)")
        let fired = watcher.events(kind: "fired", item: id)
        #expect(fired.count == 1, "events: \(watcher.events)")
        #expect(fired.first?.due == due)
        try await nudged.daemon.awaitLog("reminder: check the oven")
        print("fired \(took.map { "\($0)" } ?? "never") after the wall clock was stepped past its instant")
    }

    /// Forward past A's instant (A fires), back to before it, forward past it again (A must not fire twice), then on
    /// past B's: B, due later, stays pending throughout and fires once the clock passes its instant.
    @Test func steppingTheClockBackNeitherFiresAReminderAgainNorLosesAPendingOne() async throws {
        let nudged = try await WatchedDaemon(clock: .wall)
        defer { nudged.stop() }
        let watcher = nudged.watcher

        let dueA = wholeSecond(after: 600)
        let dueB = dueA + 600
        let a = try await nudged.sandbox.addItem("first", due: dueA)
        let b = try await nudged.sandbox.addItem("second", due: dueB)
        let clock = SteppedClock()
        defer { clock.restore() }

        try clock.step(by: 660)
        let tookA = await waitUntil { !watcher.events(kind: "fired", item: a).isEmpty }
        try clock.step(by: -660)
        let pendingAfterBack = try await nudged.sandbox.nudge("pending", "--json")
        try clock.step(by: 660)
        // nudged looks again at once when the clock is set: a refire of A, or an early B, would come before the
        // sentinel's fire, due a moment after the step.
        let sentinel = try await nudged.sentinel()
        let firedAAfterSecondPass = watcher.events(kind: "fired", item: a).count
        let firedBEarly = watcher.events(kind: "fired", item: b).count
        try clock.step(by: 600)
        let tookB = await waitUntil { !watcher.events(kind: "fired", item: b).isEmpty }
        clock.restore()

        #expect(tookA != nil, "A did not fire once the clock passed its instant; events: \(watcher.events)")
        #expect(firedAAfterSecondPass == 1, "A fired again after the clock went back; events: \(watcher.events)")
        #expect(firedBEarly == 0, "B fired before its instant; events: \(watcher.events)")
        #expect(sentinel.due < dueB)
        let pending = try JSONSerialization.jsonObject(with: Data(pendingAfterBack.stdout.utf8)) as? [[String: Any]]
        #expect(pending?.compactMap { $0["itemID"] as? Int } == [b], "pending after the step back: \(pendingAfterBack)")
        #expect(tookB != nil, "B did not fire once the clock passed its instant; events: \(watcher.events)")
        #expect(watcher.events(kind: "fired", item: b).count == 1)
        #expect(watcher.events(kind: "fired", item: a).count == 1)
        let shown = try await nudged.sandbox.nudge("show", String(a), "--json")
        let item = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect(date(item?["lastFiredAt"]) == dueA)
    }
}
