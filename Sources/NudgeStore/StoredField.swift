import Foundation
import NudgeCore

/// One key of a stored record (`StoreSchema`): the property it holds, whether a file must have it, and how it is
/// written, read by Foundation and read fast (`SnapshotReader`), all three made from the one key path.
struct StoredField<Root>: Sendable {
    enum Presence: Sendable, Equatable {
        /// Every file has it.
        case required
        /// Files of this format version and later have it; older ones are upgraded without it (`StoreSchema.formats`).
        case requiredFrom(version: Int)
        /// Left out when it has no value (nil, or an empty list); read as the blank record's value when absent.
        case optional
    }

    let key: String
    let presence: Presence
    let encode: @Sendable (Root, inout KeyedEncodingContainer<StoreKey>) throws -> Void
    let decode: @Sendable (inout Root, KeyedDecodingContainer<StoreKey>) throws -> Void
    let read: @Sendable (inout Root, inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Void

    init<Value: StoredValue>(
        _ key: String,
        _ path: WritableKeyPath<Root, Value> & Sendable,
        _ presence: Presence = .optional
    ) {
        self.key = key
        self.presence = presence
        let codingKey = StoreKey(key)
        encode = { root, container in
            let value = root[keyPath: path]
            if presence == .optional && value.isEmptyValue { return }
            try value.encode(into: &container, forKey: codingKey)
        }
        decode = { root, container in
            guard container.contains(codingKey) else { return }
            root[keyPath: path] = try Value.decode(from: container, forKey: codingKey)
        }
        read = { (root, reader, object) throws(PropertyListReader.GaveUp) in
            root[keyPath: path] = try Value.read(&reader, object)
        }
    }

    /// Whether a file of `version` must have this key.
    func isRequired(inVersion version: Int) -> Bool {
        switch presence {
        case .required: true
        case .requiredFrom(let from): version >= from
        case .optional: false
        }
    }
}

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

/// A key of a stored record, any string.
struct StoreKey: CodingKey, Hashable, Sendable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

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

struct StoredSnapshotFields: RecordBox {
    var record: SnapshotFields
}

/// A value a stored field holds: coded by Foundation as its `Box`, and read fast from a binary property list.
protocol StoredValue: Sendable {
    associatedtype Box: Codable
    var boxed: Box { get }
    init(unboxing box: Box)
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self
    /// Nil, or an empty list: what an optional field leaves out of the file.
    var isEmptyValue: Bool { get }
    func encode(into container: inout KeyedEncodingContainer<StoreKey>, forKey key: StoreKey) throws
    static func decode(from container: KeyedDecodingContainer<StoreKey>, forKey key: StoreKey) throws -> Self
}

extension StoredValue where Box == Self {
    var boxed: Self { self }
    init(unboxing box: Self) { self = box }
}

extension StoredValue {
    var isEmptyValue: Bool { false }

    func encode(into container: inout KeyedEncodingContainer<StoreKey>, forKey key: StoreKey) throws {
        try container.encode(boxed, forKey: key)
    }

    static func decode(from container: KeyedDecodingContainer<StoreKey>, forKey key: StoreKey) throws -> Self {
        Self(unboxing: try container.decode(Box.self, forKey: key))
    }
}

extension Int: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Int {
        try reader.integer(object)
    }
}

extension String: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> String {
        try reader.string(object)
    }
}

extension Bool: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Bool {
        try reader.boolean(object)
    }
}

extension Double: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Double {
        try reader.real(object)
    }
}

extension Date: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Date {
        try reader.date(object)
    }
}

/// Enumerations stored as their raw strings.
protocol StoredName: StoredValue, Codable, RawRepresentable where RawValue == String, Box == Self {}

extension StoredName {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        guard let value = Self(rawValue: try reader.string(object)) else { throw .init() }
        return value
    }
}

extension Priority: StoredName {}
extension IconName: StoredName {}

extension CatchUp: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> CatchUp {
        guard let value = try? CatchUp(exactly: try reader.string(object)) else { throw .init() }
        return value
    }
}

extension Optional: StoredValue where Wrapped: StoredValue {
    var boxed: Wrapped.Box? { map(\.boxed) }
    init(unboxing box: Wrapped.Box?) { self = box.map(Wrapped.init(unboxing:)) }
    var isEmptyValue: Bool { self == nil }

    /// The value itself, not an optional of it (which Foundation would code one level further down); nil is left out.
    func encode(into container: inout KeyedEncodingContainer<StoreKey>, forKey key: StoreKey) throws {
        if let self { try self.encode(into: &container, forKey: key) }
    }

    static func decode(from container: KeyedDecodingContainer<StoreKey>, forKey key: StoreKey) throws -> Self {
        try container.decodeNil(forKey: key) ? nil : Wrapped.decode(from: container, forKey: key)
    }

    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        try Wrapped.read(&reader, object)
    }
}

extension Array: StoredValue where Element: StoredValue {
    var boxed: StoredArray<Element> { StoredArray(elements: self) }
    init(unboxing box: StoredArray<Element>) { self = box.elements }
    var isEmptyValue: Bool { isEmpty }

    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        var elements: [Element] = []
        elements.reserveCapacity(ChecklistLibrary.roomToGrow(forCount: try reader.arrayCount(object)))
        try reader.forEachElement(ofArray: object) { (reader, element) throws(PropertyListReader.GaveUp) in
            elements.append(try Element.read(&reader, element))
        }
        return elements
    }
}

/// An array of stored values for Foundation's coders, each element boxed only as it is coded: a million items are
/// not copied into boxes first.
struct StoredArray<Element: StoredValue>: Codable, Sendable {
    var elements: [Element]

    init(elements: [Element]) { self.elements = elements }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        elements = []
        elements.reserveCapacity(ChecklistLibrary.roomToGrow(forCount: container.count ?? 0))
        while !container.isAtEnd { elements.append(Element(unboxing: try container.decode(Element.Box.self))) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in elements { try container.encode(element.boxed) }
    }
}
