import Foundation
import NudgeCore

/// Reads a snapshot in the one layout nudge writes, straight from the binary property list's bytes. Foundation's
/// `PropertyListDecoder` builds a generic tree first and took 2.2 s for 100,000 items and 12.8 s for 1,000,000 on a
/// 2-core machine, far over what a start may take; this reads each object where it lies.
///
/// It gives up (nil) on anything it does not expect: a missing key, a wrong type, an object out of place, an ID the
/// model refuses. `LibraryCoding` then decodes with Foundation, which says which field is wrong, so there is one
/// source of error messages. The structure (header, trailer, offset table) is checked by `BinaryPropertyListCheck`
/// before this runs; every read here is bounds-checked as well, so no input can crash it.
enum SnapshotReader {
    static func read(_ bytes: [UInt8]) -> StoreSnapshot? {
        bytes.withUnsafeBufferPointer { buffer in
            do throws(GaveUp) {
                var reader = try Reader(buffer)
                return try reader.snapshot()
            } catch {
                return nil
            }
        }
    }

    fileprivate struct GaveUp: Error {}

    /// The keys of the layout, by what they name.
    fileprivate enum Key: UInt8 {
        case formatVersion, nextItemID, nextListID, nextEventID, defaultListID, storeID, logSequence, lists
        case listID, name, iconName, items
        case itemID, text, checked, dueDate, shouldRemind, createdAt, updatedAt, lastFiredAt, repeatRule
        case completedThrough, priority, catchUp, snoozedUntil, warnings, warnedThrough, calendarUID
        case other

        static let byName: [String: Key] = [
            "formatVersion": .formatVersion, "nextItemID": .nextItemID, "nextListID": .nextListID,
            "nextEventID": .nextEventID, "defaultListID": .defaultListID, "storeID": .storeID,
            "logSequence": .logSequence, "lists": .lists, "listID": .listID, "name": .name, "iconName": .iconName,
            "items": .items, "itemID": .itemID, "text": .text, "checked": .checked, "dueDate": .dueDate,
            "shouldRemind": .shouldRemind, "createdAt": .createdAt, "updatedAt": .updatedAt,
            "lastFiredAt": .lastFiredAt, "repeat": .repeatRule, "completedThrough": .completedThrough,
            "priority": .priority, "catchUp": .catchUp, "snoozedUntil": .snoozedUntil, "warnings": .warnings,
            "warnedThrough": .warnedThrough, "uid": .calendarUID,
        ]
    }
}

private struct Reader {
    typealias GaveUp = SnapshotReader.GaveUp
    typealias Key = SnapshotReader.Key

    let bytes: UnsafeBufferPointer<UInt8>
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let tableStart: Int
    let top: Int
    /// What each object names as a key, decoded once: property list writers store each distinct key once.
    var keys: [Int: Key] = [:]

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

    mutating func snapshot() throws(GaveUp) -> StoreSnapshot {
        var formatVersion: Int?
        var nextItemID: Int?
        var nextListID: Int?
        var nextEventID: Int?
        var defaultListID: Int?
        var storeID: String?
        var logSequence: Int?
        var lists: [Checklist]?
        try forEachEntry(ofDictionary: top) { (reader: inout Reader, key, value) throws(GaveUp) in
            switch key {
            case .formatVersion: formatVersion = try reader.integer(value)
            case .nextItemID: nextItemID = try reader.integer(value)
            case .nextListID: nextListID = try reader.integer(value)
            case .nextEventID: nextEventID = try reader.integer(value)
            case .defaultListID: defaultListID = try reader.integer(value)
            case .storeID: storeID = try reader.string(value)
            case .logSequence: logSequence = try reader.integer(value)
            case .lists: lists = try reader.lists(value)
            default: break
            }
        }
        guard let formatVersion, (1...ChecklistLibrary.currentFormatVersion).contains(formatVersion),
            let nextItemID, let nextListID, let lists
        else { throw GaveUp() }
        if formatVersion >= 2 && (logSequence ?? -1) < 0 { throw GaveUp() }
        guard
            let library = try? ChecklistLibrary(
                nextItemID: nextItemID,
                nextListID: nextListID,
                nextEventID: nextEventID ?? 1,
                defaultListID: defaultListID,
                storeID: storeID,
                lists: lists
            )
        else {
            throw GaveUp()
        }
        return StoreSnapshot(
            library: library,
            logSequence: formatVersion >= 2 ? logSequence ?? 0 : 0,
            storedFormatVersion: formatVersion
        )
    }

    private mutating func lists(_ object: Int) throws(GaveUp) -> [Checklist] {
        var lists: [Checklist] = []
        try forEachElement(ofArray: object) { (reader: inout Reader, element) throws(GaveUp) in
            var listID: Int?
            var name: String?
            var iconName: IconName?
            var items: [ChecklistItem]?
            try reader.forEachEntry(ofDictionary: element) { (reader: inout Reader, key, value) throws(GaveUp) in
                switch key {
                case .listID: listID = try reader.integer(value)
                case .name: name = try reader.string(value)
                case .iconName: iconName = IconName(rawValue: try reader.string(value))
                case .items: items = try reader.items(value)
                default: break
                }
            }
            guard let listID, let name, let iconName, let items else { throw GaveUp() }
            lists.append(Checklist(listID: listID, name: name, iconName: iconName, items: items))
        }
        return lists
    }

    private mutating func items(_ object: Int) throws(GaveUp) -> [ChecklistItem] {
        var items: [ChecklistItem] = []
        items.reserveCapacity(ChecklistLibrary.roomToGrow(forCount: try container(object, marker: 0xA).count))
        try forEachElement(ofArray: object) { (reader: inout Reader, element) throws(GaveUp) in
            var itemID: Int?
            var text: String?
            var checked: Bool?
            var dueDate: Date?
            var shouldRemind: Bool?
            var createdAt: Date?
            var updatedAt: Date?
            var lastFiredAt: Date?
            var repeatRule: String?
            var completedThrough: Date?
            var priority = Priority.normal
            var catchUp: CatchUp?
            var snoozedUntil: Date?
            var warnings: [TimeInterval] = []
            var warnedThrough: Date?
            var calendarUID: String?
            try reader.forEachEntry(ofDictionary: element) { (reader: inout Reader, key, value) throws(GaveUp) in
                switch key {
                case .itemID: itemID = try reader.integer(value)
                case .text: text = try reader.string(value)
                case .checked: checked = try reader.boolean(value)
                case .dueDate: dueDate = try reader.date(value)
                case .shouldRemind: shouldRemind = try reader.boolean(value)
                case .createdAt: createdAt = try reader.date(value)
                case .updatedAt: updatedAt = try reader.date(value)
                case .lastFiredAt: lastFiredAt = try reader.date(value)
                case .repeatRule: repeatRule = try reader.string(value)
                case .completedThrough: completedThrough = try reader.date(value)
                case .priority:
                    guard let read = Priority(rawValue: try reader.string(value)) else { throw GaveUp() }
                    priority = read
                case .catchUp:
                    guard let read = try? CatchUp(validating: try reader.string(value)) else { throw GaveUp() }
                    catchUp = read
                case .snoozedUntil: snoozedUntil = try reader.date(value)
                case .warnings:
                    try reader.forEachElement(ofArray: value) { (reader: inout Reader, lead) throws(GaveUp) in
                        warnings.append(try reader.real(lead))
                    }
                case .warnedThrough: warnedThrough = try reader.date(value)
                case .calendarUID: calendarUID = try reader.string(value)
                default: break
                }
            }
            guard let itemID, let text, let checked, let shouldRemind, let createdAt, let updatedAt else {
                throw GaveUp()
            }
            items.append(
                ChecklistItem(
                    itemID: itemID,
                    text: text,
                    checked: checked,
                    dueDate: dueDate,
                    shouldRemind: shouldRemind,
                    createdAt: createdAt,
                    updatedAt: updatedAt,
                    lastFiredAt: lastFiredAt,
                    repeatRule: repeatRule,
                    completedThrough: completedThrough,
                    priority: priority,
                    catchUp: catchUp,
                    snoozedUntil: snoozedUntil,
                    warnings: warnings,
                    warnedThrough: warnedThrough,
                    calendarUID: calendarUID
                )
            )
        }
        return items
    }

    // MARK: Objects

    private mutating func forEachEntry(
        ofDictionary object: Int,
        _ body: (inout Reader, Key, Int) throws(GaveUp) -> Void
    ) throws(GaveUp) {
        let (count, start) = try container(object, marker: 0xD)
        for index in 0..<count {
            let keyObject = try reference(at: start + index * referenceSize)
            let valueObject = try reference(at: start + (count + index) * referenceSize)
            try body(&self, try key(keyObject), valueObject)
        }
    }

    private mutating func forEachElement(
        ofArray object: Int,
        _ body: (inout Reader, Int) throws(GaveUp) -> Void
    ) throws(GaveUp) {
        let (count, start) = try container(object, marker: 0xA)
        for index in 0..<count {
            try body(&self, try reference(at: start + index * referenceSize))
        }
    }

    private mutating func key(_ object: Int) throws(GaveUp) -> Key {
        if let known = keys[object] { return known }
        let key = Key.byName[try string(object)] ?? .other
        keys[object] = key
        return key
    }

    /// An array's or a dictionary's element count and where its references start; they must lie before the table.
    private func container(_ object: Int, marker: UInt8) throws(GaveUp) -> (count: Int, start: Int) {
        let (found, count, start) = try header(object)
        guard found == marker else { throw GaveUp() }
        let references = marker == 0xD ? 2 * count : count
        guard references <= (tableStart - start) / referenceSize else { throw GaveUp() }
        return (count, start)
    }

    private func integer(_ object: Int) throws(GaveUp) -> Int {
        let start = try offset(object)
        let marker = try byte(start)
        guard marker >> 4 == 0x1, marker & 0xF <= 3 else { throw GaveUp() }
        let size = 1 << Int(marker & 0xF)
        let value = try bigEndian(start + 1, size)
        // Eight bytes are signed; shorter integers are not.
        return size == 8 ? Int(Int64(bitPattern: value)) : Int(value)
    }

    private func boolean(_ object: Int) throws(GaveUp) -> Bool {
        switch try byte(try offset(object)) {
        case 0x08: false
        case 0x09: true
        default: throw GaveUp()
        }
    }

    /// A date: an eight-byte real with a marker of its own, seconds since 2001.
    private func date(_ object: Int) throws(GaveUp) -> Date {
        Date(timeIntervalSinceReferenceDate: try real(object, marker: 0x33))
    }

    /// An eight-byte real, as `PropertyListEncoder` writes a `Double`.
    private func real(_ object: Int, marker: UInt8 = 0x23) throws(GaveUp) -> Double {
        let start = try offset(object)
        guard try byte(start) == marker else { throw GaveUp() }
        let value = Double(bitPattern: try bigEndian(start + 1, 8))
        guard value.isFinite else { throw GaveUp() }
        return value
    }

    private func string(_ object: Int) throws(GaveUp) -> String {
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
