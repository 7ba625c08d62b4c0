import Foundation
import NudgeCore
import NudgeSystem
import Synchronization

/// What the files hold, read without changing them: the snapshot with the log replayed onto it.
struct StoreContent {
    var library: ChecklistLibrary
    /// The snapshot's format version; nil when there is no snapshot.
    var snapshotVersion: Int?
    /// The last record the snapshot includes.
    var snapshotSequence: Int
    /// The last record there is, in the snapshot or the log.
    var sequence: Int
    /// Bytes of sound records in the log (with its header); nil when there is no log.
    var logLength: Int?
    /// Records replayed onto the snapshot.
    var replayedRecords: Int
    var tornTail: RecordFraming.TornTail?
    /// The events of every sound record in the log, those the snapshot includes as well.
    var loggedEvents: [ReminderEvent] = []

    static func load(snapshot snapshotFile: StoreFile, log logFile: StoreFile) throws(StoreError) -> StoreContent {
        let snapshot = try snapshotFile.read(limit: ChecklistStore.maximumFileSize).map { bytes throws(StoreError) in
            try LibraryCoding.decode(bytes, path: snapshotFile.path)
        }
        let hasSnapshot = snapshot != nil
        let snapshotVersion = snapshot?.storedFormatVersion
        let snapshotSequence = snapshot?.logSequence ?? 0
        // The snapshot's library is consumed, so `content` holds the only copy and the log applies to it in place:
        // shared, its first change would copy every item (at a million items, 184 MB more for the whole start).
        var content = StoreContent(
            library: (consume snapshot)?.library ?? ChecklistLibrary(),
            snapshotVersion: snapshotVersion,
            snapshotSequence: snapshotSequence,
            sequence: snapshotSequence,
            logLength: nil,
            replayedRecords: 0,
            tornTail: nil
        )
        guard let logBytes = try logFile.read(limit: ChecklistStore.maximumLogSize) else { return content }
        let logPath = logFile.path
        content.tornTail = try ChangeLogFormat.scan(logBytes, path: logPath) { record, offset throws(StoreError) in
            content.loggedEvents += record.events
            guard record.sequence > content.snapshotSequence else { return }
            guard hasSnapshot else {
                throw .damagedLog(
                    path: logPath,
                    offset: offset,
                    problem: "it holds changes, but the snapshot \(snapshotFile.path) they apply to is missing"
                )
            }
            guard record.sequence == content.sequence + 1 else {
                throw .damagedLog(
                    path: logPath,
                    offset: offset,
                    problem: "record \(record.sequence) follows the snapshot's last record \(content.sequence); "
                        + "the records between are missing"
                )
            }
            for change in record.changes {
                do throws(ModelError) {
                    try content.library.apply(change)
                } catch {
                    throw .damagedLog(
                        path: logPath,
                        offset: offset,
                        problem: "record \(record.sequence) does not apply to the snapshot: \(error.description)"
                    )
                }
            }
            content.library.raiseCounters(
                nextItemID: record.nextItemID,
                nextListID: record.nextListID,
                nextEventID: record.nextEventID
            )
            content.sequence = record.sequence
            content.replayedRecords += 1
        }
        content.logLength = logBytes.count - (content.tornTail?.length ?? 0)
        return content
    }
}
