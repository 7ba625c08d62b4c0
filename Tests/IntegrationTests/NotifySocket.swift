import Foundation
import Glibc
import Testing

/// The test's stand-in for systemd's notification socket: a real AF_UNIX datagram socket that nudged finds through
/// `NOTIFY_SOCKET` and the test reads, one sd_notify message per datagram. Each message carries the instant the
/// kernel queued it (SO_TIMESTAMPNS), so intervals between messages are nudged's, whenever the test gets to read.
final class NotifySocket: Sendable {
    /// One datagram: its `KEY=value` lines, and when it arrived.
    struct Message: Sendable, CustomStringConvertible {
        let lines: [String]
        let arrived: Date

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
        // On 64-bit Linux the timestamp option is the one with 64-bit seconds either way (SO_TIMESTAMPNS_OLD).
        var on: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_TIMESTAMPNS_OLD, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
        else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
    }

    deinit { Glibc.close(descriptor) }

    /// The next message, or nil if none arrives within `timeout`. Suspends between looks, holding no thread.
    func receive(within timeout: Duration) async -> Message? {
        try? await eventually("a message on \(path)", within: timeout) { receiveNow() }
    }

    /// Reads until a message with `line` arrives; returns it and everything read before it.
    func receive(until line: String, within timeout: Duration) async -> (match: Message?, before: [Message]) {
        let deadline = ContinuousClock.now + timeout
        var before: [Message] = []
        while case let left = ContinuousClock.now.duration(to: deadline), left > .zero,
            let message = await receive(within: left)
        {
            if message.has(line) { return (message, before) }
            before.append(message)
        }
        return (nil, before)
    }

    /// Reads `count` messages, or as many as arrive within `timeout`.
    func receive(count: Int, within timeout: Duration) async -> [Message] {
        let deadline = ContinuousClock.now + timeout
        var messages: [Message] = []
        while messages.count < count, case let left = ContinuousClock.now.duration(to: deadline), left > .zero,
            let message = await receive(within: left)
        {
            messages.append(message)
        }
        return messages
    }

    /// A message already queued, with its kernel timestamp; nil if none is.
    private func receiveNow() -> Message? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Room for one control message holding a timespec.
        var control = [UInt8](repeating: 0, count: 64)
        return buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    var count: Int
                    repeat {
                        count = recvmsg(descriptor, &header, Int32(MSG_DONTWAIT))
                    } while count < 0 && errno == EINTR
                    guard count >= 0 else { return nil }
                    let text = String(decoding: UnsafeRawBufferPointer(rebasing: data[..<count]), as: UTF8.self)
                    return Message(
                        lines: text.split(separator: "\n").map(String.init),
                        arrived: Self.timestamp(in: controlBytes, length: Int(header.msg_controllen)) ?? Date()
                    )
                }
            }
        }
    }

    /// The SCM_TIMESTAMPNS control message's instant, if the kernel attached one.
    private static func timestamp(in control: UnsafeMutableRawBufferPointer, length: Int) -> Date? {
        let headerSize = MemoryLayout<cmsghdr>.size  // already a multiple of the alignment on 64-bit Linux
        guard length >= headerSize + MemoryLayout<timespec>.size else { return nil }
        let header = control.loadUnaligned(as: cmsghdr.self)
        guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == SO_TIMESTAMPNS_OLD else { return nil }
        let time = control.loadUnaligned(fromByteOffset: headerSize, as: timespec.self)
        return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
    }
}
