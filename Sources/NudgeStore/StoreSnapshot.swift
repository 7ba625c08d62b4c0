import Foundation
import NudgeCore

/// What the snapshot file holds: the library, and the last change-log record already in it. Stored as
/// `SnapshotFields`.
struct StoreSnapshot: Codable, Sendable, Equatable {
    var library: ChecklistLibrary
    /// Records up to this one are in `library`; replay starts after it. 0 when none is (and in format version 1).
    var logSequence: Int
    /// The layout the file was in when read; written always in the current one.
    var storedFormatVersion = StoreSchema.currentVersion

    init(library: ChecklistLibrary, logSequence: Int, storedFormatVersion: Int = StoreSchema.currentVersion) {
        self.library = library
        self.logSequence = logSequence
        self.storedFormatVersion = storedFormatVersion
    }

    /// A snapshot as a file held it, checked: every ID in range and used once, counters past every ID (a
    /// `DecodingError` naming the field otherwise).
    init(_ fields: SnapshotFields) throws {
        guard fields.logSequence >= 0 else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [StoreKey("logSequence")],
                    debugDescription: "\(fields.logSequence) is not a record number; they start at 0"
                )
            )
        }
        library = try ChecklistLibrary(
            nextItemID: fields.nextItemID,
            nextListID: fields.nextListID,
            nextEventID: fields.nextEventID,
            defaultListID: fields.defaultListID,
            storeID: fields.storeID,
            lists: fields.lists
        )
        logSequence = fields.logSequence
        storedFormatVersion = fields.formatVersion
    }

    var fields: SnapshotFields {
        SnapshotFields(
            formatVersion: StoreSchema.currentVersion,
            nextItemID: library.nextItemID,
            nextListID: library.nextListID,
            nextEventID: library.nextEventID,
            defaultListID: library.chosenDefaultListID,
            storeID: library.storeID,
            lists: library.lists,
            logSequence: logSequence
        )
    }

    init(from decoder: any Decoder) throws {
        try self.init(try SnapshotFields.decodeRecord(from: decoder))
    }

    func encode(to encoder: any Encoder) throws {
        try fields.encodeRecord(to: encoder)
    }
}
