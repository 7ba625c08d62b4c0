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

extension Priority: StoredName {}
extension IconName: StoredName {}

extension CatchUp: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> CatchUp {
        guard let value = try? CatchUp(exactly: try reader.string(object)) else { throw .init() }
        return value
    }
}

extension Nag: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Nag {
        guard let value = try? Nag(exactly: try reader.string(object)) else { throw .init() }
        return value
    }
}

extension CalendarDay: StoredValue {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp)
        -> CalendarDay
    {
        guard let day = CalendarDay(iso: try reader.string(object)) else { throw .init() }
        return day
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
