import Glibc
import Logging
import NudgeSystem
import SystemPackage

/// Sends sd_notify messages (`READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…`) to the service manager: one datagram
/// of newline-separated `KEY=value` lines to the AF_UNIX socket `$NOTIFY_SOCKET` names, a path or an abstract
/// `@name`. Written by hand so nudged needs no libsystemd for it. A send that fails is logged and otherwise
/// ignored: telling systemd is never a reason for nudged to stop.
struct SystemdNotifier: Sendable {
    /// `$NOTIFY_SOCKET` as given, for messages.
    let socket: String
    private let address: UnixSocketAddress
    private let logger: Logger

    /// Nil, with a warning, for an address this protocol cannot reach (systemd also knows `vsock:` addresses; a
    /// local daemon is never given one).
    init?(socket: String, logger: Logger) {
        // systemd hands out absolute paths and abstract names only.
        guard socket.hasPrefix("/") || socket.hasPrefix("@"), let address = UnixSocketAddress(socket) else {
            logger.warning(
                "NOTIFY_SOCKET=\(socket) is neither a path nor an @abstract name that fits a Unix socket address; not notifying systemd"
            )
            return nil
        }
        self.address = address
        self.socket = socket
        self.logger = logger
    }

    /// Sends `assignments` (like `READY=1`) as one message. Never blocks: a manager that is not reading loses the
    /// message, as it would lose it by not listening at all.
    func send(_ assignments: [String]) {
        let message = assignments.joined(separator: "\n")
        do throws(Errno) {
            try sendDatagram(Array(message.utf8))
        } catch {
            logger.warning(
                "could not notify systemd at \(socket) (\(assignments.first ?? "")): \(error)",
                metadata: ["errno": "\(error.rawValue)"]
            )
        }
    }

    private func sendDatagram(_ message: [UInt8]) throws(Errno) {
        let descriptor = try SystemCall.valueOrErrno {
            Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        // Nothing was written through this descriptor that close could lose.
        defer { try? FileDescriptor(rawValue: descriptor).close() }
        let sent = try SystemCall.valueOrErrno {
            address.withSockaddr { destination, length in
                message.withUnsafeBytes { bytes in
                    sendto(
                        descriptor,
                        bytes.baseAddress,
                        bytes.count,
                        Int32(MSG_NOSIGNAL | MSG_DONTWAIT),
                        destination,
                        length
                    )
                }
            }
        }
        // A datagram is sent whole or not at all; anything else would be a kernel bug worth hearing about.
        if sent != message.count { throw Errno.messageTooLong }
    }

}
