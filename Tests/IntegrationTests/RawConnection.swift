import Foundation

/// A client connection to a Unix socket, byte by byte, for what no HTTP client sends: half a request, a request
/// and then silence, a reader that stops reading. Non-blocking: `connect` fails at once on a full listen backlog,
/// and reading takes what has come.
final class RawConnection {
    struct BacklogFull: Error {}

    let descriptor: Int32
    private(set) var received: [UInt8] = []
    /// Whether the server has closed its end.
    private(set) var ended = false

    /// Connects and sends `request`. `receiveBuffer` shrinks the socket's buffer, so that the server's writes
    /// stall sooner once this connection stops reading.
    init(_ socketPath: String, sending request: String = "", receiveBuffer: Int32? = nil) throws {
        descriptor = socket(
            AF_UNIX,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0
        )
        guard descriptor >= 0 else { throw Failure("could not make a socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard withUnixAddress(socketPath, { connect(descriptor, $0, $1) }) == 0 else {
            let error = errno
            Glibc.close(descriptor)
            if error == EAGAIN { throw BacklogFull() }
            throw Failure("could not connect to \(socketPath): errno \(error)")
        }
        if !request.isEmpty { try send(request) }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw Failure("could not send \(bytes.count) bytes: errno \(errno)")
        }
    }

    /// Reads what has come, without waiting; whether the server has closed the connection.
    @discardableResult
    func readAvailable() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !ended {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 || errno == ECONNRESET {
                ended = true
            } else if errno == EAGAIN {
                break
            } else {
                throw Failure("reading: errno \(errno)")
            }
        }
        return ended
    }

    /// Waits, holding this thread, until the server closes the connection; false if `limit` passes first.
    func awaitEnd(within limit: Duration) throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while try !readAvailable() {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(
                &waiting,
                1,
                Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            )
        }
        return true
    }

    var text: String { String(decoding: received, as: UTF8.self) }

    func close() {
        Glibc.close(descriptor)
    }
}
