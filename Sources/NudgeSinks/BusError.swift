import CLinux
import CSystemd
import Glibc
import NudgeSystem
import Synchronization
import SystemPackage

/// A failed call: the D-Bus error's name and message (`org.freedesktop.DBus.Error.NoReply` when the server did not
/// answer in time), or why there is no connection.
public struct BusError: Error, Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The server did not answer in time (sd-bus says NoReply for a lost connection too, with another message).
    public var isTimeout: Bool {
        name == "org.freedesktop.DBus.Error.Timeout"
            || (name == "org.freedesktop.DBus.Error.NoReply" && message.localizedCaseInsensitiveContains("timed out"))
    }

    public var description: String { message.isEmpty ? name : "\(message) (\(name))" }
}
