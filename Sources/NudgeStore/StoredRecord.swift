import Foundation
import NudgeCore

/// A record the store writes as a dictionary, its keys in `StoreSchema`: an item, a list, a snapshot. Coded by
/// Foundation through its `Box`, a `RecordBox` of its own, so the core's types need not know how they are stored.
protocol StoredRecord: StoredValue where Box: RecordBox, Box.Record == Self {
    /// A record with every field as if absent; what a file gives is written over it, field by field.
    static var blank: Self { get }
    /// At most 64 (the fast reader keeps which it has seen in a bit set).
    static var fields: [StoredField<Self>] { get }
    /// Which field a key names, made once from `fields`.
    static var fieldIndex: [String: Int] { get }
    /// Distinguishes the record types in `PropertyListReader`'s cache of keys.
    static var readerSlot: Int { get }
    /// The file's format version, if the record holds it (the snapshot's top level does), for the keys required from
    /// one on (`Presence.requiredFrom(version:)`).
    var fileFormatVersion: Int? { get }
}

extension StoredRecord {
    static func makeFieldIndex() -> [String: Int] {
        precondition(fields.count <= 64, "a stored record has at most 64 fields")
        return Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.key, $0) })
    }

    var fileFormatVersion: Int? { nil }

    var boxed: Box { Box(record: self) }
    init(unboxing box: Box) { self = box.record }

    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        try readRecord(&reader, object)
    }

    /// The record as the file holds it: each field that has a value, and every required one.
    func encodeRecord(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: StoreKey.self)
        for field in Self.fields { try field.encode(self, &container) }
    }

    /// Reads a record with Foundation, which names the field that is wrong; a key the schema does not have is
    /// refused, never dropped.
    static func decodeRecord(from decoder: any Decoder) throws -> Self {
        let container = try decoder.container(keyedBy: StoreKey.self)
        for key in container.allKeys where fieldIndex[key.stringValue] == nil {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "this nudge does not know the field, so it cannot keep it; a newer nudge may have "
                    + "written it (use that one), or it was added by hand (remove it)"
            )
        }
        var record = blank
        for field in fields { try field.decode(&record, container) }
        let version = record.fileFormatVersion ?? StoreSchema.currentVersion
        for field in fields where field.isRequired(inVersion: version) && !container.contains(StoreKey(field.key)) {
            throw DecodingError.keyNotFound(
                StoreKey(field.key),
                .init(codingPath: container.codingPath, debugDescription: "\(field.key) is required")
            )
        }
        return record
    }

    /// Reads a record where it lies in a binary property list, in one pass over its entries; gives up on a key the
    /// schema does not have, a required one missing, or anything out of place.
    static func readRecord(
        _ reader: inout PropertyListReader,
        _ object: Int
    ) throws(PropertyListReader.GaveUp) -> Self {
        var record = blank
        var seen: UInt64 = 0
        let fields = fields
        try reader.forEachEntry(ofDictionary: object, slot: readerSlot, resolve: { fieldIndex[$0] }) {
            (reader, field, value) throws(PropertyListReader.GaveUp) in
            seen |= 1 << field
            try fields[field].read(&record, &reader, value)
        }
        let version = record.fileFormatVersion ?? StoreSchema.currentVersion
        // A version out of range is `LibraryCoding`'s to explain.
        guard (1...StoreSchema.currentVersion).contains(version) else { throw .init() }
        for (index, field) in fields.enumerated() where seen & (1 << index) == 0 && field.isRequired(inVersion: version)
        {
            throw .init()
        }
        return record
    }
}
