import Foundation
import NudgeCore
import NudgeSystem
import SystemPackage

/// The framing the change log and the event history share: a 12-byte header (8 bytes naming the file's kind, then
/// its format version as a little-endian UInt32), then records, each framed as its payload's length and CRC-32C
/// (little-endian UInt32s) and the payload, a binary property list. docs/STORE.md describes it for people.
struct RecordFraming: Sendable {
    let header: [UInt8]
    /// Makes the error for damage before the end of a file: its byte offset, and what is wrong there.
    let damaged: @Sendable (_ path: String, _ offset: Int, _ problem: String) -> StoreError

    static let frameHeaderSize = 8
    /// Far above any batch of changes; it bounds what a damaged length field can make a reader allocate.
    static let maximumPayloadSize = 64 << 20

    static func frame(_ payload: Data) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frameHeaderSize + payload.count)
        append(UInt32(payload.count), to: &bytes)
        append(CRC32C.checksum(payload), to: &bytes)
        bytes += payload
        return bytes
    }

    /// What `scan` found past the last sound record: a record a crash left half-written, never acknowledged.
    struct TornTail: Sendable, Equatable {
        var offset: Int
        var length: Int
        var reason: String
    }

    /// The payloads of a whole file's records, in order, each given to `body` with its record's offset. A damaged
    /// record at the very end (short, or its checksum wrong where it ends the file, or only zeros) is a crash
    /// mid-append: returned as the torn tail, not an error. Damage before the end is an error naming the byte, since
    /// what follows it cannot be trusted or skipped.
    func scan(
        _ bytes: [UInt8],
        path: String,
        _ body: (ArraySlice<UInt8>, _ offset: Int) throws(StoreError) -> Void
    ) throws(StoreError) -> TornTail? {
        guard bytes.starts(with: header) else {
            let found = bytes.prefix(header.count).map { String($0, radix: 16) }.joined(separator: " ")
            let expected = String(decoding: header.prefix(8), as: UTF8.self)
            throw damaged(
                path,
                0,
                "it does not start with the \(expected) header, version \(header[8]) (found bytes \(found))"
            )
        }
        var offset = header.count
        while offset < bytes.count {
            let remaining = bytes.count - offset
            func torn(_ reason: String) -> TornTail { TornTail(offset: offset, length: remaining, reason: reason) }
            if bytes[offset...].allSatisfy({ $0 == 0 }) { return torn("only zero bytes") }
            guard remaining >= Self.frameHeaderSize else { return torn("a record header cut short") }
            let length = Int(Self.readUInt32(bytes, at: offset))
            let checksum = Self.readUInt32(bytes, at: offset + 4)
            let end = offset + Self.frameHeaderSize + length
            guard length <= Self.maximumPayloadSize else {
                throw damaged(path, offset, "a record claims \(length) bytes")
            }
            guard end <= bytes.count else { return torn("a record of \(length) bytes cut short") }
            let payload = bytes[(offset + Self.frameHeaderSize)..<end]
            guard CRC32C.checksum(payload) == checksum else {
                if end == bytes.count { return torn("the last record's checksum does not match") }
                throw damaged(
                    path,
                    offset,
                    "the record's checksum does not match, and \(bytes.count - end) bytes follow it"
                )
            }
            try body(payload, offset)
            offset = end
        }
        return nil
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
