import CLinux
import CSystemd
import Glibc
import NudgeSystem
import Synchronization
import SystemPackage

/// What the notification server says unasked.
public enum NotificationSignal: Sendable, Equatable {
    /// The user chose one of the notification's actions (`done`, `snooze`).
    case actionInvoked(notificationID: UInt32, action: String)
    /// The notification left the screen: 1 it expired, 2 the user dismissed it, 3 a CloseNotification call, 4 other.
    case closed(notificationID: UInt32, reason: UInt32)
    /// The server went away, another took its place, or the connection to the bus was lost: notification IDs from
    /// before mean nothing now. `epoch` counts these changes; a reply stamped with an older one came from before.
    case serverChanged(epoch: Int)
}
