import CLinux
import CSystemd
import Glibc
import NudgeSystem
import Synchronization
import SystemPackage

/// A value of a method call's arguments, in the few D-Bus types the notification interface needs.
public enum BusValue: Sendable, Equatable {
    case string(String)
    case uint32(UInt32)
    case int32(Int32)
    case strings([String])
    /// `a{sv}` whose values are all bytes: the notification hints nudge sends (`urgency`).
    case byteHints([String: UInt8])
}
