import NIOCore
import NIOPosix

/// `ContinuousClock`'s time, with sleeps timed by a NIO event loop instead of Swift concurrency's default timers.
/// On Linux a single `Task.sleep` starts libdispatch's worker-pool monitor, which then wakes the process every second
/// for as long as it runs (see `NudgedCommand.mainOnEventLoops`); every timeout in nudged sleeps on this clock.
public struct EventLoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    public init() {}

    public var now: Instant { ContinuousClock.now }
    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
        let delay = TimeAmount.nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        let scheduled = NIOSingletons.posixEventLoopGroup.any().scheduleTask(in: delay) {}
        try await withTaskCancellationHandler {
            do {
                try await scheduled.futureResult.get()
            } catch {
                throw CancellationError()
            }
        } onCancel: {
            scheduled.cancel()
        }
    }
}
