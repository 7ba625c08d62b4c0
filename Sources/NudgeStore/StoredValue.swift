import Foundation
import NudgeCore

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

/// Enumerations stored as their raw strings.
protocol StoredName: StoredValue, Codable, RawRepresentable where RawValue == String, Box == Self {}

extension StoredName {
    static func read(_ reader: inout PropertyListReader, _ object: Int) throws(PropertyListReader.GaveUp) -> Self {
        guard let value = Self(rawValue: try reader.string(object)) else { throw .init() }
        return value
    }
}
