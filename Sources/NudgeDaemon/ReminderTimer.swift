import CLinux
import Foundation
import NudgeSystem
import Synchronization
import SystemPackage

/// Wakes the service at an instant. `WallClockTimer` is the real one; unit tests record what they were asked.
protocol ReminderTimer: Sendable {
    /// Wakes at `instant`, replacing any earlier arming; nil disarms. An instant in the past wakes at once.
    func arm(at instant: Date?)
    /// No more wake-ups.
    func stop()
}
