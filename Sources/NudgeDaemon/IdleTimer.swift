import CLinux
import Foundation
import NudgeSystem
import Synchronization
import SystemPackage

/// The manual clock's timer: the clock moves only when told to, and the service fires what is due as it moves it, so
/// nothing ever needs waking.
struct IdleTimer: ReminderTimer {
    func arm(at instant: Date?) {}
    func stop() {}
}
