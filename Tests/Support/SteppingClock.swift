import Synchronization

/// A clock whose sleeps return at once, moving its time to the deadline: the watchdog's loop runs at full speed and
/// the test sees the instants it slept until, with no real waiting.
package final class SteppingClock: Clock, Sendable {
    package struct Instant: InstantProtocol {
        package var offset: Duration
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Instant, sleptUntil: [Duration])>((Instant(offset: .zero), []))
    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .nanoseconds(1) }
    package var sleptUntil: [Duration] { state.withLock { $0.sleptUntil } }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.now = max($0.now, deadline)
            $0.sleptUntil.append(deadline.offset)
        }
        await Task.yield()
    }

    /// Moves time on without a sleep, as a slow probe would.
    package func pass(_ duration: Duration) {
        state.withLock { $0.now = $0.now.advanced(by: duration) }
    }
}
