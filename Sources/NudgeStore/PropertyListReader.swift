import Foundation
import NudgeCore

/// The objects of a binary property list, read where they lie: dictionaries, arrays and their values.
struct PropertyListReader {
    struct GaveUp: Error {}

    let bytes: UnsafeBufferPointer<UInt8>
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let tableStart: Int
    let top: Int
    /// Which field each key object names, by the record type's slot, resolved once: property list writers store
    /// each distinct key once.
    private var fields: [Int: Int] = [:]

    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(GaveUp) {
        self.bytes = bytes
        let trailer = bytes.count - 32
        guard trailer > 8 else { throw GaveUp() }
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else { throw GaveUp() }
        let count = Self.bigEndian(bytes, trailer + 8, 8)
        let topObject = Self.bigEndian(bytes, trailer + 16, 8)
        let table = Self.bigEndian(bytes, trailer + 24, 8)
        guard count < UInt64(trailer), topObject < count, table < UInt64(trailer) else { throw GaveUp() }
        objectCount = Int(count)
        top = Int(topObject)
        tableStart = Int(table)
    }

    /// Each entry of a dictionary: the field its key names (`resolve`, for the record type in `slot`; a key it does
    /// not know gives up), and its value object.
    mutating func forEachEntry(
        ofDictionary object: Int,
        slot: Int,
        resolve: (String) -> Int?,
        _ body: (inout PropertyListReader, _ field: Int, _ value: Int) throws(GaveUp) -> Void
    ) throws(GaveUp) {
        let (count, start) = try container(object, marker: 0xD)
        for index in 0..<count {
            let keyObject = try reference(at: start + index * referenceSize)
            let valueObject = try reference(at: start + (count + index) * referenceSize)
            let cacheKey = keyObject &* 4 &+ slot
            let field: Int
            if let known = fields[cacheKey] {
                field = known
            } else {
                guard let resolved = resolve(try string(keyObject)) else { throw GaveUp() }
                fields[cacheKey] = resolved
                field = resolved
            }
            try body(&self, field, valueObject)
        }
    }

    mutating func forEachElement(
        ofArray object: Int,
        _ body: (inout PropertyListReader, Int) throws(GaveUp) -> Void
    ) throws(GaveUp) {
        let (count, start) = try container(object, marker: 0xA)
        for index in 0..<count {
            try body(&self, try reference(at: start + index * referenceSize))
        }
    }

    func arrayCount(_ object: Int) throws(GaveUp) -> Int {
        try container(object, marker: 0xA).count
    }

    /// An array's or a dictionary's element count and where its references start; they must lie before the table.
    private func container(_ object: Int, marker: UInt8) throws(GaveUp) -> (count: Int, start: Int) {
        let (found, count, start) = try header(object)
        guard found == marker else { throw GaveUp() }
        let references = marker == 0xD ? 2 * count : count
        guard references <= (tableStart - start) / referenceSize else { throw GaveUp() }
        return (count, start)
    }

    func integer(_ object: Int) throws(GaveUp) -> Int {
        let start = try offset(object)
        let marker = try byte(start)
        guard marker >> 4 == 0x1, marker & 0xF <= 3 else { throw GaveUp() }
        let size = 1 << Int(marker & 0xF)
        let value = try bigEndian(start + 1, size)
        // Eight bytes are signed; shorter integers are not.
        return size == 8 ? Int(Int64(bitPattern: value)) : Int(value)
    }

    func boolean(_ object: Int) throws(GaveUp) -> Bool {
        switch try byte(try offset(object)) {
        case 0x08: false
        case 0x09: true
        default: throw GaveUp()
        }
    }

    /// A date: an eight-byte real with a marker of its own, seconds since 2001.
    func date(_ object: Int) throws(GaveUp) -> Date {
        Date(timeIntervalSinceReferenceDate: try real(object, marker: 0x33))
    }

    /// An eight-byte real, as `PropertyListEncoder` writes a `Double`.
    func real(_ object: Int, marker: UInt8 = 0x23) throws(GaveUp) -> Double {
        let start = try offset(object)
        guard try byte(start) == marker else { throw GaveUp() }
        let value = Double(bitPattern: try bigEndian(start + 1, 8))
        guard value.isFinite else { throw GaveUp() }
        return value
    }

    func string(_ object: Int) throws(GaveUp) -> String {
        let (marker, count, start) = try header(object)
        switch marker {
        case 0x5:  // ASCII
            guard count <= tableStart - start else { throw GaveUp() }
            let characters = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
            guard characters.allSatisfy({ $0 < 0x80 }) else { throw GaveUp() }
            return String(decoding: characters, as: UTF8.self)
        case 0x6:  // UTF-16, big-endian
            guard count <= (tableStart - start) / 2 else { throw GaveUp() }
            let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        default:
            throw GaveUp()
        }
    }

    /// An object's type nibble, its count (from the low nibble, or the integer after it when that is 0xF), and
    /// where its content starts.
    private func header(_ object: Int) throws(GaveUp) -> (marker: UInt8, count: Int, start: Int) {
        let start = try offset(object)
        let marker = try byte(start)
        guard marker & 0xF == 0xF else { return (marker >> 4, Int(marker & 0xF), start + 1) }
        let sizeMarker = try byte(start + 1)
        guard sizeMarker >> 4 == 0x1, sizeMarker & 0xF <= 3 else { throw GaveUp() }
        let size = 1 << Int(sizeMarker & 0xF)
        let count = try bigEndian(start + 2, size)
        guard count < UInt64(bytes.count) else { throw GaveUp() }
        return (marker >> 4, Int(count), start + 2 + size)
    }

    private func offset(_ object: Int) throws(GaveUp) -> Int {
        guard object >= 0, object < objectCount else { throw GaveUp() }
        let offset = try bigEndian(tableStart + object * offsetSize, offsetSize)
        guard offset >= 8, offset < UInt64(tableStart) else { throw GaveUp() }
        return Int(offset)
    }

    /// An object reference: an index into the offset table, so anything past its end is no reference at all (and
    /// an eight-byte one might not even fit in an Int).
    private func reference(at position: Int) throws(GaveUp) -> Int {
        let object = try bigEndian(position, referenceSize)
        guard object < UInt64(objectCount) else { throw GaveUp() }
        return Int(object)
    }

    private func byte(_ position: Int) throws(GaveUp) -> UInt8 {
        guard position >= 0, position < bytes.count else { throw GaveUp() }
        return bytes[position]
    }

    private func bigEndian(_ position: Int, _ size: Int) throws(GaveUp) -> UInt64 {
        guard position >= 0, size <= 8, position <= bytes.count - size else { throw GaveUp() }
        return Self.bigEndian(bytes, position, size)
    }

    private static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, _ size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<position + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
