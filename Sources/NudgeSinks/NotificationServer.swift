import Foundation
import Logging
import NudgeCore

/// The calls the desktop sink makes on the notification server (org.freedesktop.Notifications): `NotificationBus`
/// makes them on the session bus, unit tests on a fake.
public protocol NotificationServer: Sendable {
    var signals: AsyncStream<NotificationSignal> { get }
    /// What the server supports (`actions`, `body-markup`, …), and the server epoch the answer came in.
    func capabilities() async throws(BusError) -> (Set<String>, epoch: Int)
    /// Which server answers now, for telling after a restart whether it is the one that showed what nudged kept.
    func identity() async throws(BusError) -> String
    /// The notification's ID, and the server epoch the answer came in (`NotificationSignal.serverChanged`).
    func notify(_ notification: DesktopNotification) async throws(BusError) -> (UInt32, epoch: Int)
    func close(_ notificationID: UInt32) async throws(BusError)
}
