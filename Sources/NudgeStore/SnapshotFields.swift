import Foundation
import NudgeCore

/// The snapshot file's top level: the library's fields, and the last change-log record it includes.
struct SnapshotFields: StoredRecord, Equatable {
    typealias Box = StoredSnapshotFields
    var formatVersion = StoreSchema.currentVersion
    var nextItemID = 0
    var nextListID = 0
    /// Absent from stores written before events had IDs.
    var nextEventID = 1
    var defaultListID: Int?
    /// Absent from stores written before format version 5, which are given one on open.
    var storeID: String?
    var lists: [Checklist] = []
    /// Records up to this one are in the snapshot; 0 when none is, as in format version 1.
    var logSequence = 0

    static let fields: [StoredField<SnapshotFields>] = [
        .init("formatVersion", \.formatVersion, .required),
        .init("nextItemID", \.nextItemID, .required),
        .init("nextListID", \.nextListID, .required),
        .init("nextEventID", \.nextEventID),
        .init("defaultListID", \.defaultListID),
        .init("storeID", \.storeID),
        .init("lists", \.lists, .required),
        // Without it, replay could apply a change twice.
        .init("logSequence", \.logSequence, .requiredFrom(version: 2)),
    ]

    static let blank = SnapshotFields()
    var fileFormatVersion: Int? { formatVersion }
    static let fieldIndex = makeFieldIndex()
    static let readerSlot = 2
}
