/// A structural check of a binary property list: header, trailer and offset table. Foundation's decoder only says
/// "not a valid property list"; this says where the file stops making sense, as a byte offset a person can look at.
///
/// The layout (CFBinaryPList.c): the 8 bytes `bplist00`, the objects, a table of each object's offset, and a
/// 32-byte trailer: 6 unused bytes, the size of an offset (1 to 8), the size of an object reference (1 to 8), then
/// three big-endian UInt64s: the number of objects, the top object's number, the offset table's start.
enum BinaryPropertyListCheck {
    static let header = Array("bplist00".utf8)
    static let trailerSize = 32

    /// What is wrong with the structure, as a clause completing "store PATH ...", or nil when it is sound.
    /// The objects themselves are left to the decoder.
    static func problem(in bytes: [UInt8]) -> String? {
        let size = bytes.count
        let notBinary = "is not a binary property list:"
        if size == 0 { return "is empty (0 bytes), not a binary property list" }
        if !bytes.starts(with: header) {
            if header.starts(with: bytes) {
                return "\(notBinary) it is \(size) bytes long, shorter than its 8-byte header \"bplist00\" (truncated?)"
            }
            let found = bytes.prefix(header.count).map(hex).joined(separator: " ")
            return "does not start with \"bplist00\" (found bytes \(found) at offset 0), so it is not a binary "
                + "property list"
        }
        // The header, at least one byte of object, and the trailer.
        guard size >= header.count + 1 + trailerSize else {
            return "\(notBinary) it is \(size) bytes long, too short for a header, an object and the 32-byte "
                + "trailer (truncated?)"
        }

        let trailer = size - trailerSize
        let trailerAt = "the trailer at byte \(trailer)"
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = bigEndian(bytes, at: trailer + 8, size: 8)
        let topObject = bigEndian(bytes, at: trailer + 16, size: 8)
        let table = bigEndian(bytes, at: trailer + 24, size: 8)

        guard (1...8).contains(offsetSize) else {
            return "\(notBinary) \(trailerAt) gives an offset size of \(offsetSize), which must be 1 to 8 (truncated?)"
        }
        guard (1...8).contains(referenceSize) else {
            return "\(notBinary) \(trailerAt) gives an object reference size of \(referenceSize), which must be 1 to "
                + "8 (truncated?)"
        }
        guard objectCount > 0 else { return "\(notBinary) \(trailerAt) says it holds no objects (truncated?)" }
        guard topObject < objectCount else {
            return "\(notBinary) \(trailerAt) names object \(topObject) as the top one, but counts only "
                + "\(objectCount) objects (truncated?)"
        }
        guard table < UInt64(trailer) else {
            let whereItIs =
                table >= UInt64(size)
                ? "past the end of the \(size)-byte file" : "inside the trailer at byte \(trailer)"
            return "\(notBinary) the trailer says the offset table starts at byte \(table), \(whereItIs) (truncated?)"
        }
        guard table > UInt64(header.count) else {
            return "\(notBinary) the trailer says the offset table starts at byte \(table), before any object"
        }
        let tableStart = Int(table)  // below `size`, so it fits

        // The table runs from its start right up to the trailer; anything else means bytes are missing or extra.
        let (tableLength, overflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableLength == UInt64(trailer - tableStart) else {
            let expected = overflow ? "more bytes than the file has" : "\(tableLength) bytes"
            return "\(notBinary) the offset table at byte \(tableStart) should hold \(objectCount) offsets of "
                + "\(offsetSize) bytes (\(expected)), but the trailer starts \(trailer - tableStart) bytes after it "
                + "(truncated?)"
        }
        if referenceSize < 8, UInt64(1) << (8 * referenceSize) <= objectCount {
            return "\(notBinary) its \(referenceSize)-byte object references cannot count up to its \(objectCount) "
                + "objects"
        }

        // Every object must lie between the header and the offset table; the decoder trusts this.
        for object in 0..<Int(objectCount) {
            let entry = tableStart + object * offsetSize
            let offset = bigEndian(bytes, at: entry, size: offsetSize)
            guard offset >= UInt64(header.count), offset < table else {
                return "\(notBinary) the offset table entry at byte \(entry) puts object \(object) at byte "
                    + "\(offset), outside the objects (bytes 8 to \(tableStart - 1))"
            }
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
        bytes[start..<start + size].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
