import Foundation

/// What the user did with a reminder's desktop notification.
public enum NotificationResponse: String, Sendable, Equatable {
    /// Pressed Done.
    case done
    /// Pressed Snooze.
    case snooze
    /// Closed it.
    case dismissed
    /// The server took it off the screen by itself.
    case expired
}
