import Foundation
import Synchronization

@testable import NudgeDaemon

/// Records every arming, in order (nil is a disarm), and wakes the service when told, as the real timer would when
/// its instant came.
package final class RecordingTimer: ReminderTimer {
    private let state = Mutex<(arms: [Date?], onWake: (@Sendable () -> Void)?)>(([], nil))
    /// Yields at every arming.
    package let armings: AsyncStream<Date?>
    private let arming: AsyncStream<Date?>.Continuation

    package init() {
        (armings, arming) = AsyncStream.makeStream()
    }

    package var arms: [Date?] { state.withLock { $0.arms } }

    package func onWake(_ onWake: @escaping @Sendable () -> Void) {
        state.withLock { $0.onWake = onWake }
    }

    package func wake() {
        state.withLock { $0.onWake }?()
    }

    package func arm(at instant: Date?) {
        state.withLock { $0.arms.append(instant) }
        arming.yield(instant)
    }

    package func stop() {}
}
