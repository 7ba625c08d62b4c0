import Foundation
import NudgeSystem
import Synchronization
import Testing

/// A fresh private directory under /tmp, named for `purpose`; the caller removes it.
func temporaryDirectory(_ purpose: String) throws -> String {
    var template = Array("/tmp/nudge-\(purpose)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return String(cString: made)
}

/// Runs a program to completion and returns what it printed. Its output goes to files, so a chatty child never
/// blocks on a full pipe and each byte is read once; the caller suspends, holding no thread, until the child exits.
@discardableResult
func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> CommandResult {
    let directory = try temporaryDirectory("run")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (outPath, errPath) = (directory + "/stdout", directory + "/stderr")
    // posix_spawn through nudged's own `SystemCall.spawn`, not Foundation's Process: on Linux, Process.run() reads
    // past the end of a directory entry as it lists /proc/self/fd and now and then crashes the test process
    // (swiftlang/swift-corelibs-foundation#5472, after Swift 6.3.1), and this is the call the suite makes most.
    let pid = try SystemCall.spawn(
        .init(
            executable: path,
            arguments: arguments,
            environment: environment ?? ProcessInfo.processInfo.environment,
            standardOutput: outPath,
            standardError: errPath
        )
    )
    let status = await reaped(pid)
    return CommandResult(
        status: status,
        output: FileManager.default.contents(atPath: outPath) ?? Data(),
        stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    )
}

/// Calls `body` with the socket address of `path`; nil if the path does not fit one.
func withUnixAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// A Unix socket of `type` bound at `path`; the caller closes it.
func boundUnixSocket(at path: String, type: __socket_type) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    guard withUnixAddress(path, { bind(descriptor, $0, $1) }) == 0 else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENAMETOOLONG)
        close(descriptor)
        throw error
    }
    return descriptor
}

/// Whether a stream socket accepts a connection at `path`: true while something listens there, even a stopped
/// process, since the kernel completes connections into the listen backlog.
func isListening(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return withUnixAddress(path) { connect(descriptor, $0, $1) } == 0
}

/// An instant as the CLI's --due takes it.
func iso(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

/// As nudged writes instants: with fractional seconds.
func preciseISO(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }

/// An instant as nudged writes it, or as a test wrote it (with or without fractional seconds).
func date(_ text: Any?) -> Date? {
    guard let text = text as? String else { return nil }
    return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
        ?? (try? Date.ISO8601FormatStyle().parse(text))
}

/// The next whole second at least `seconds` ahead, so due instants survive the CLI's whole-second ISO form.
func wholeSecond(after seconds: TimeInterval) -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
}

/// The `code` of an answer in the API's error shape, if it is one.
func errorCode(_ body: String) -> String? {
    let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    return (json?["error"] as? [String: Any])?["code"] as? String
}
