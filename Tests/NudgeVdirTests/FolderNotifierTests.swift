import Foundation
import Glibc
import Synchronization
import Testing

@testable import NudgeSystem

/// inotify, as the folder watcher hears it: the events of a read parsed whole, and a real folder's changes reported.
@Suite(.timeLimit(.minutes(1))) struct FolderNotifierTests {
    /// One event as the kernel lays it out: the header, then the name padded with NULs to `padded` bytes.
    private func event(watch: Int32, mask: UInt32, name: String?, padded: Int = 16) -> [UInt8] {
        var header = inotify_event()
        header.wd = watch
        header.mask = mask
        header.len = name == nil ? 0 : UInt32(padded)
        var bytes = withUnsafeBytes(of: header) { Array($0) }
        if let name { bytes += Array(name.utf8) + Array(repeating: 0, count: padded - name.utf8.count) }
        return bytes
    }

    @Test func aReadOfSeveralEventsIsParsedWholeWithTheirNamesAndKinds() {
        let bytes =
            event(watch: 3, mask: UInt32(IN_MOVED_TO), name: "task.ics")
            + event(watch: 3, mask: UInt32(IN_DELETE_SELF), name: nil)
            + event(watch: -1, mask: UInt32(IN_Q_OVERFLOW), name: nil)
            + event(watch: 4, mask: UInt32(IN_CREATE), name: "a-name-longer-than-sixteen.ics", padded: 32)
        let changes = FolderNotifier.changes(in: bytes[...])
        #expect(changes.map(\.watch) == [3, 3, -1, 4])
        #expect(changes.map(\.name) == ["task.ics", nil, nil, "a-name-longer-than-sixteen.ics"])
        #expect(changes.map(\.folderGone) == [false, true, false, false])
        #expect(changes.map(\.overflowed) == [false, false, true, false])
    }

    @Test func aFileRenamedIntoAWatchedFolderIsReported() async throws {
        let folder = NSTemporaryDirectory() + "nudge-notify-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (reported, continuation) = AsyncStream.makeStream(of: [FolderNotifier.Change].self)
        let notifier = try FolderNotifier { continuation.yield($0) }
        defer { notifier.stop() }
        let watch = try notifier.watch(folder)
        try "x".write(toFile: folder + "/.task.ics.tmp", atomically: false, encoding: .utf8)
        #expect(rename(folder + "/.task.ics.tmp", folder + "/task.ics") == 0)
        var seen: [FolderNotifier.Change] = []
        for await changes in reported {
            seen += changes
            if seen.contains(where: { $0.name == "task.ics" }) { break }
        }
        #expect(seen.allSatisfy { $0.watch == watch })
        #expect(seen.contains { $0.name == ".task.ics.tmp" })
    }
}
