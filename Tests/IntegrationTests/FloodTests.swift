import Foundation
import Testing

/// nudged under floods it must outlast with bounded memory.
@Suite(.timeLimit(hangLimit)) struct FloodTests {
    /// A watcher that stops reading is dropped once 1 MiB of events wait for it, with a last `dropped` event; a
    /// watcher that reads sees every event; and nudged's peak RSS through 20,000 edits of 4 KiB texts stays under
    /// 64 MB (unbounded, the stalled watcher alone would hold about 85 MB of events).
    @Test func aStalledWatcherIsDroppedAndMemoryStaysBounded() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // The stalled watcher reads nothing for longer than the idle timeout, after which nudged would close its
        // connection (ConnectionTests cover that): here it is the hub's bound that is shown.
        let daemon = try await Daemon(sandbox, arguments: ["--idle-timeout", "10m"])
        defer { daemon.stop() }
        let editors = 8
        let editsEach = 2_500
        var itemIDs: [Int] = []
        for editor in 0..<editors {
            itemIDs.append(try await sandbox.addItem("item \(editor)", due: TestClock.epoch + 86_400))
        }

        // Sends its request and reads nothing until the edits are done.
        let stalled = try RawConnection(sandbox.socket, sending: "GET /v1/events HTTP/1.1\r\nHost: nudged\r\n\r\n")
        defer { stalled.close() }
        let reader = Process()
        let readerOutput = sandbox.path + "/reader.sse"
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        reader.arguments = ["-sN", "-o", readerOutput, "--unix-socket", sandbox.socket, "http://nudged/v1/events"]
        try reader.run()
        defer {
            // SIGKILL: curl inherits the test thread's signal mask, which may block SIGTERM.
            kill(reader.processIdentifier, SIGKILL)
            reader.awaitExit()
        }
        try await eventually("both watchers to be subscribed") {
            try await sandbox.health()["watchers"] as? Int == 2
        }

        let text = String(repeating: "x", count: 4096)
        let body = try JSONSerialization.data(withJSONObject: ["text": text])
        let bodyFile = sandbox.path + "/edit.json"
        try body.write(to: URL(fileURLWithPath: bodyFile))
        try await withThrowingTaskGroup(of: CommandResult.self) { edits in
            for itemID in itemIDs {
                edits.addTask {
                    try await run(
                        "/usr/bin/curl",
                        [
                            "-sf", "--unix-socket", sandbox.socket, "-X", "PATCH",
                            "-H", "Content-Type: application/json", "--data-binary", "@" + bodyFile,
                        ]
                            + Array(
                                repeating: ["-o", "/dev/null", "http://nudged/v1/items/\(itemID)"],
                                count: editsEach
                            ).flatMap { $0 }
                    )
                }
            }
            for try await result in edits { #expect(result.status == 0, "editing through curl: \(result)") }
        }

        // The stalled watcher's stream ends with the notice; the reader saw every edit's event.
        try await eventually("the stalled watcher's stream to end") {
            // The chunked body's last chunk ends the stream.
            try stalled.readAvailable() || stalled.received.suffix(5) == Array("0\r\n\r\n".utf8)
        }
        let stalledStream = stalled.text
        let lastEvent = String(stalledStream.suffix(400))
        #expect(lastEvent.contains("event: dropped\ndata: {\"limit\":1048576,"), "the stream ends: \(lastEvent)")
        try await eventually("the reader to have every replaced event") {
            let counted = try await run("/usr/bin/grep", ["-c", "^event: replaced", readerOutput])
            return Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == editors * editsEach
        }
        #expect(reader.exitStatus == nil, "the reading watcher was dropped too")
        #expect(try await sandbox.health()["watchers"] as? Int == 1)
        let peak = try Self.peakResidentMegabytes(daemon.process.processIdentifier)
        #expect(peak < 64, "nudged's peak RSS was \(peak) MB")
        print("stalled watcher: nudged's peak RSS \(peak) MB through \(editors * editsEach) edits")
    }

    /// VmHWM: the most memory the process has had resident, in MB.
    static func peakResidentMegabytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw Failure("no VmHWM in /proc/\(pid)/status") }
        return kilobytes / 1024
    }
}
