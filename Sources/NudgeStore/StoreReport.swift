import Foundation
import NudgeCore
import NudgeSystem
import Synchronization

/// What `nudged --check-store` prints: the store read and verified as `open` would, without the lock and without
/// changing anything (a torn tail is reported, not cut off).
public struct StoreReport: Sendable {
    public let path: String
    public let lines: [String]

    public static func inspect(path: String) throws(StoreError) -> StoreReport {
        let snapshot = StoreFile(path: path)
        let log = StoreFile(path: path + ".log")
        let content = try StoreContent.load(snapshot: snapshot, log: log)
        let library = content.library
        let items = library.itemCount
        let checked = library.lists.reduce(0) { $0 + $1.items.count - $1.uncheckedCount }
        guard let version = content.snapshotVersion else {
            return StoreReport(path: path, lines: ["store \(path): none yet; nudged creates it on its first start"])
        }
        var lines = ["store \(path): sound"]
        lines.append("snapshot: format version \(version), through change-log record \(content.snapshotSequence)")
        if let length = content.logLength {
            lines.append(
                "change log \(log.path): \(content.replayedRecords) records after the snapshot, "
                    + "\(length) bytes, last record \(content.sequence)"
            )
        } else {
            lines.append("change log \(log.path): none yet")
        }
        if let torn = content.tornTail {
            lines.append(
                "torn tail: \(torn.length) bytes at byte \(torn.offset) (\(torn.reason)), a crash's half-written record; "
                    + "the next start cuts it off"
            )
        }
        lines.append(
            "lists: \(library.lists.count); items: \(items) (\(checked) checked); next item ID \(library.nextItemID), "
                + "next list ID \(library.nextListID), next event ID \(library.nextEventID)"
        )
        lines += EventHistory.describe(path: path + ".events")
        return StoreReport(path: path, lines: lines)
    }
}
