import Foundation
import Synchronization

/// Tells the wall-clock time. Reminders are due at wall-clock instants, so this is the clock that matters; it is
/// injected so tests and people testing notification logic can control it.
public protocol WallClock: Sendable {
    func now() -> Date
}
