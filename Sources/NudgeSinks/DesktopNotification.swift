import Foundation
import Logging
import NudgeCore

/// One notification as the desktop sink asks the server to show it.
public struct DesktopNotification: Sendable, Equatable {
    /// The notification this one replaces in place; 0 for a new one.
    public var replacesID: UInt32
    public var summary: String
    public var body: String
    /// Pairs of action key and label (`done`, `Done`), as the specification lists them.
    public var actions: [String]
    /// 0 low, 1 normal, 2 critical.
    public var urgency: UInt8
}
