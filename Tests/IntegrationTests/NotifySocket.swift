import Foundation
import Glibc
import Testing

/// The test's stand-in for systemd's notification socket: a real AF_UNIX datagram socket that nudged finds through
/// `NOTIFY_SOCKET` and the test reads, one sd_notify message per datagram.
final class NotifySocket: Sendable {
    /// One datagram: its `KEY=value` lines, and when the test read it.
    struct Message: Sendable, CustomStringConvertible {
        let lines: [String]
        let received: ContinuousClock.Instant

        func has(_ line: String) -> Bool { lines.contains(line) }
        func value(_ key: String) -> String? {
            lines.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        var description: String { lines.joined(separator: " | ") }
    }

    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = try boundUnixSocket(at: path, type: SOCK_DGRAM)
    }

    deinit { Glibc.close(descriptor) }

    /// The next message, or nil if none arrives within `timeout`.
    func receive(within timeout: Duration) -> Message? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = max(
                0,
                Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            )
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            return Message(lines: text.split(separator: "\n").map(String.init), received: .now)
        }
    }

    /// Every message that arrives within `duration`.
    func receiveAll(during duration: Duration) -> [Message] {
        let deadline = ContinuousClock.now + duration
        var messages: [Message] = []
        while case let left = ContinuousClock.now.duration(to: deadline), left > .zero,
            let message = receive(within: left)
        {
            messages.append(message)
        }
        return messages
    }

    /// Reads until a message with `line` arrives; returns it and everything read before it.
    func receive(until line: String, within timeout: Duration) -> (match: Message?, before: [Message]) {
        let deadline = ContinuousClock.now + timeout
        var before: [Message] = []
        while case let left = ContinuousClock.now.duration(to: deadline), left > .zero,
            let message = receive(within: left)
        {
            if message.has(line) { return (message, before) }
            before.append(message)
        }
        return (nil, before)
    }
}
