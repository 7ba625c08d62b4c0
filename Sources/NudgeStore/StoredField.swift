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
            try container.encode(value.boxed, forKey: codingKey)
        }
        decode = { root, container in
            guard container.contains(codingKey) else { return }
            root[keyPath: path] = Value(unboxing: try container.decode(Value.Box.self, forKey: codingKey))
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

/// A record the store writes as a dictionary, its keys in `StoreSchema`: an item, a list, a snapshot. Coded through
/// `StoredRecordBox`, so the core's types need not know how they are stored.
protocol StoredRecord: StoredValue where Box == StoredRecordBox<Self> {
    /// The key naming the record's ID, which the blank record is made from, if it has one.
    static var identityKey: String? { get }
    /// The record's ID, if it has one.
    var identity: Int? { get }
    /// The field holding the file's format version, for the keys required from one on (`Presence.requiredFrom(version:)`),
    /// if the record has one.
    static var versionKey: String? { get }
    /// A record with `identity` (0 when it has none) and every other field as if absent.
    static func blank(identity: Int) -> Self
    static var fields: [StoredField<Self>] { get }
    /// Which field a key names, made once from `fields`.
    static var fieldIndex: [String: Int] { get }
    /// Distinguishes the record types in `PropertyListReader`'s cache of keys.
    static var readerSlot: Int { get }
    /// What must hold of a record once read (the library's IDs, say); throws a `DecodingError` naming the field.
    func validated() throws -> Self
}

extension StoredRecord {
    static func makeFieldIndex() -> [String: Int] {
        Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.key, $0) })
    }

    static var versionKey: String? { nil }
    func validated() throws -> Self { self }

    var boxed: StoredRecordBox<Self> { StoredRecordBox(self) }
    init(unboxing box: StoredRecordBox<Self>) { self = box.record }

    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        try readRecord(&reader, object)
    }

    /// The record as the file holds it: its ID first, then each field present.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: StoreKey.self)
        try encodeFields(into: &container)
    }

    func encodeFields(into container: inout KeyedEncodingContainer<StoreKey>) throws {
        if let identityKey = Self.identityKey, let identity {
            try container.encode(identity, forKey: StoreKey(identityKey))
        }
        for field in Self.fields { try field.encode(self, &container) }
    }

    /// Reads a record with Foundation, which names the field that is wrong; a key the schema does not have is
    /// refused, never dropped.
    static func decodeRecord(from decoder: any Decoder) throws -> Self {
        let container = try decoder.container(keyedBy: StoreKey.self)
        for key in container.allKeys where key.stringValue != identityKey && fieldIndex[key.stringValue] == nil {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "this nudge does not know the field, so it cannot keep it; a newer nudge may have "
                    + "written it (use that one), or it was added by hand (remove it)"
            )
        }
        let identity = try identityKey.map { try container.decode(Int.self, forKey: StoreKey($0)) }
        let version =
            try versionKey.map { try container.decode(Int.self, forKey: StoreKey($0)) }
            ?? StoreSchema.currentVersion
        var record = blank(identity: identity ?? 0)
        for field in fields {
            if field.isRequired(inVersion: version) && !container.contains(StoreKey(field.key)) {
                throw DecodingError.keyNotFound(
                    StoreKey(field.key),
                    .init(codingPath: container.codingPath, debugDescription: "\(field.key) is required")
                )
            }
            try field.decode(&record, container)
        }
        return try record.validated()
    }

    /// Reads a record where it lies in a binary property list; gives up on a key the schema does not have, a
    /// required one missing, or anything out of place.
    static func readRecord(
        _ reader: inout PropertyListReader,
        _ object: Int
    ) throws(PropertyListReader.GaveUp) -> Self {
        var identity: Int?
        var values = [Int](repeating: -1, count: fields.count)
        try reader.forEachEntry(ofDictionary: object, slot: readerSlot, resolve: fieldNumber) {
            (reader, field, value) throws(PropertyListReader.GaveUp) in
            if field == identityField { identity = try reader.integer(value) } else { values[field] = value }
        }
        if identityKey != nil && identity == nil { throw .init() }
        var version = StoreSchema.currentVersion
        if let versionKey, let index = fieldIndex[versionKey] {
            guard values[index] >= 0 else { throw .init() }
            version = try reader.integer(values[index])
            // A version out of range is `LibraryCoding`'s to explain.
            guard (1...StoreSchema.currentVersion).contains(version) else { throw .init() }
        }
        var record = blank(identity: identity ?? 0)
        for (index, field) in fields.enumerated() {
            guard values[index] >= 0 else {
                if field.isRequired(inVersion: version) { throw .init() }
                continue
            }
            try field.read(&record, &reader, values[index])
        }
        guard let valid = try? record.validated() else { throw .init() }
        return valid
    }
}

extension StoredRecord {
    /// What `fieldNumber` gives for the identity key.
    static var identityField: Int { -1 }

    /// The field a key names (`identityField` for the identity), or nil if the schema has no such key.
    static func fieldNumber(_ key: String) -> Int? {
        key == identityKey ? identityField : fieldIndex[key]
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

/// A `StoredRecord` for Foundation's coders.
struct StoredRecordBox<Record: StoredRecord>: Codable, Sendable {
    var record: Record

    init(_ record: Record) { self.record = record }

    init(from decoder: any Decoder) throws {
        record = try Record.decodeRecord(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
    }
}

/// A value a stored field holds: coded by Foundation as its `Box`, and read fast from a binary property list.
protocol StoredValue: Sendable {
    associatedtype Box: Codable
    var boxed: Box { get }
    init(unboxing box: Box)
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self
    /// Nil, or an empty list: what an optional field leaves out of the file.
    var isEmptyValue: Bool { get }
}

extension StoredValue where Box == Self {
    var boxed: Self { self }
    init(unboxing box: Self) { self = box }
}

extension StoredValue {
    var isEmptyValue: Bool { false }
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

    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        try Wrapped.read(&reader, object)
    }
}

extension Array: StoredValue where Element: StoredValue {
    var boxed: [Element.Box] { map(\.boxed) }
    init(unboxing box: [Element.Box]) { self = box.map(Element.init(unboxing:)) }
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
