import Glibc

/// An AF_UNIX socket address: a path, or a name in the abstract namespace, written `@name` as systemd writes it.
public struct UnixSocketAddress: Sendable {
    /// The bytes of `sun_path`: the path without a terminating NUL, or NUL and the abstract name.
    private let bytes: [UInt8]

    /// `@name`, or a path (relative ones too); nil for an empty name or path, or one that does not fit `sun_path`.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        bytes = utf8.first == UInt8(ascii: "@") ? [0] + utf8.dropFirst() : utf8
        guard !bytes.isEmpty, bytes != [0], bytes.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            return nil
        }
    }

    /// Calls `body` with the address as bind, connect and sendto take it. Its length covers exactly the bytes:
    /// an abstract name is as long as given, and a path may be passed without its NUL.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count)
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
