import Foundation
import Synchronization

/// A wall clock that moves only when told to: for tests, never for production.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date) { current = Mutex(start) }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by interval: TimeInterval) {
        current.withLock { $0 += interval }
    }

    /// Sets the time, forward or backward, as a wall-clock jump would.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
