import Glibc
import Logging
import SystemPackage

/// Sends sd_notify messages (`READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…`) to the service manager: one datagram
/// of newline-separated `KEY=value` lines to the AF_UNIX socket `$NOTIFY_SOCKET` names, a path or an abstract
/// `@name`. Written by hand so nudged needs no libsystemd for it. A send that fails is logged and otherwise
/// ignored: telling systemd is never a reason for nudged to stop.
struct SystemdNotifier: Sendable {
    /// `$NOTIFY_SOCKET` as given, for messages.
    let socket: String
    /// The bytes of `sun_path`: the path without its terminating NUL, or NUL and the name for an abstract socket.
    private let address: [UInt8]
    private let logger: Logger

    /// Nil, with a warning, for an address this protocol cannot reach (systemd also knows `vsock:` addresses; a
    /// local daemon is never given one).
    init?(socket: String, logger: Logger) {
        let bytes = Array(socket.utf8)
        switch bytes.first {
        case UInt8(ascii: "/"): address = bytes
        case UInt8(ascii: "@"): address = [0] + bytes.dropFirst()
        default:
            logger.warning("NOTIFY_SOCKET=\(socket) is neither a path nor an @abstract name; not notifying systemd")
            return nil
        }
        guard address.count > 1, address.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            logger.warning("NOTIFY_SOCKET=\(socket) does not fit a Unix socket address; not notifying systemd")
            return nil
        }
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
        let descriptor = try valueOrErrno {
            Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        // Nothing was written through this descriptor that close could lose.
        defer { _ = close(descriptor) }
        var destination = sockaddr_un()
        destination.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &destination.sun_path) { $0.copyBytes(from: address) }
        // An abstract name is exactly as long as given; a path's length may include its NUL or not.
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + address.count)
        let sent = try valueOrErrno {
            withUnsafePointer(to: &destination) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { destination in
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
        }
        // A datagram is sent whole or not at all; anything else would be a kernel bug worth hearing about.
        if sent != message.count { throw Errno.messageTooLong }
    }

    private func valueOrErrno<I: FixedWidthInteger>(_ call: () -> I) throws(Errno) -> I {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno(rawValue: Glibc.errno)
            if error != .interrupted { throw error }
        }
    }
}
