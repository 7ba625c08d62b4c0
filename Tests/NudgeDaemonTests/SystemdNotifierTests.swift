import Foundation
import Glibc
import Logging
import NudgeTestSupport
import Synchronization
import Testing

@testable import NudgeDaemon

@Suite struct SystemdNotifierTests {
    /// A datagram socket bound to `address` (the `sun_path` bytes); returns its descriptor.
    private func boundSocket(_ address: [UInt8]) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: address) }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + address.count)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        try #require(bound == 0, "bind: errno \(errno)")
        return descriptor
    }

    /// What is queued on the socket now; sending is synchronous, so a sent datagram is already there.
    private func queued(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count < 0 ? nil : String(decoding: buffer[0..<count], as: UTF8.self)
    }

    @Test func sendsOneDatagramOfLinesToAnAbstractSocket() throws {
        let name = "nudge-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = try boundSocket([0] + Array(name.utf8))
        defer { close(descriptor) }
        let notifier = try #require(SystemdNotifier(socket: "@" + name, logger: Logger(label: "test")))
        notifier.send(["READY=1", "STATUS=Serving"])
        #expect(queued(descriptor) == "READY=1\nSTATUS=Serving")
    }

    @Test func sendsToASocketPath() throws {
        var template = Array("/tmp/nudge-notify-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notify"
        let descriptor = try boundSocket(Array(path.utf8))
        defer { close(descriptor) }
        let notifier = try #require(SystemdNotifier(socket: path, logger: Logger(label: "test")))
        notifier.send(["WATCHDOG=1"])
        notifier.send(["STOPPING=1"])
        #expect(queued(descriptor) == "WATCHDOG=1")
        #expect(queued(descriptor) == "STOPPING=1")
    }

    @Test func aSocketNobodyListensOnIsLoggedAndNotFatal() throws {
        let logged = LogCapture()
        let notifier = try #require(
            SystemdNotifier(socket: "/nonexistent/notify", logger: Logger(label: "test") { _ in logged })
        )
        notifier.send(["READY=1"])
        #expect(logged.messages.contains { $0.contains("could not notify systemd at /nonexistent/notify") })
    }

    @Test(arguments: ["relative/notify", "vsock:2:1234", "@", "/" + String(repeating: "x", count: 200)])
    func anAddressThatCannotBeReachedIsRefusedAtOnce(_ address: String) {
        #expect(SystemdNotifier(socket: address, logger: Logger(label: "test")) == nil)
    }
}
