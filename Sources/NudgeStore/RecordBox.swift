import Foundation
import NudgeCore

/// A `StoredRecord` for Foundation's coders. A concrete type for each record (not one generic box), so that the
/// coding of a million items is specialized for them rather than looked up at run time for each.
protocol RecordBox: Codable, Sendable {
    associatedtype Record: StoredRecord
    var record: Record { get }
    init(record: Record)
}

extension RecordBox {
    init(from decoder: any Decoder) throws {
        self.init(record: try Record.decodeRecord(from: decoder))
    }

    func encode(to encoder: any Encoder) throws {
        try record.encodeRecord(to: encoder)
    }
}

struct StoredItem: RecordBox {
    var record: ChecklistItem
}

struct StoredList: RecordBox {
    var record: Checklist
}

struct StoredLink: RecordBox {
    var record: ListLink
}

struct StoredSnapshotFields: RecordBox {
    var record: SnapshotFields
}
