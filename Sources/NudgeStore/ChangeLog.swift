import Foundation
import NudgeCore
import NudgeSystem
import SystemPackage

/// One committed batch of changes, as the change log holds it.
struct LogRecord: Codable, Sendable, Equatable {
    /// 1, 2, 3, … without gaps. The snapshot names the last record it includes, so replay skips those and no change
    /// applies twice.
    var sequence: Int
    /// The ID counters after the batch. Applying the changes moves them too; recording them says so outright, so no
    /// ID is handed out twice whatever a batch removed.
    var nextItemID: Int
    var nextListID: Int
    var nextEventID: Int
    var changes: [ChecklistChange]
    /// The scheduler's decisions made with these changes, numbered. The event history is written before the record
    /// and flushed only now and then: the log is what makes the events durable, and replays them into the history
    /// after a crash.
    var events: [ReminderEvent]

    private enum CodingKeys: String, CodingKey {
        case sequence, nextItemID, nextListID, nextEventID, changes, events
    }
}

extension LogRecord {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int.self, forKey: .sequence)
        nextItemID = try container.decode(Int.self, forKey: .nextItemID)
        nextListID = try container.decode(Int.self, forKey: .nextListID)
        // Absent from records written before events had IDs.
        nextEventID = try container.decodeIfPresent(Int.self, forKey: .nextEventID) ?? 1
        changes = try container.decode([StoredChange].self, forKey: .changes).map(\.change)
        events = try container.decodeIfPresent([ReminderEvent].self, forKey: .events) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(nextItemID, forKey: .nextItemID)
        try container.encode(nextListID, forKey: .nextListID)
        try container.encode(nextEventID, forKey: .nextEventID)
        try container.encode(changes.map(StoredChange.init), forKey: .changes)
        try container.encode(events, forKey: .events)
    }
}

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

/// The change log's layout: `RecordFraming` with the header `nudgelog`, version 1, each payload a `LogRecord`.
enum ChangeLogFormat {
    static let framing = RecordFraming(header: Array("nudgelog".utf8) + [1, 0, 0, 0], damaged: StoreError.damagedLog)
    static var header: [UInt8] { framing.header }

    static func frame(_ record: LogRecord, path: String) throws(StoreError) -> [UInt8] {
        RecordFraming.frame(try LibraryCoding.encode(record, path: path))
    }

    /// The records of a whole log file, in order, each given to `body` with its offset; `RecordFraming.scan` says
    /// what counts as a torn tail. Records must also decode, and be numbered consecutively.
    static func scan(
        _ bytes: [UInt8],
        path: String,
        _ body: (LogRecord, _ offset: Int) throws(StoreError) -> Void
    ) throws(StoreError) -> RecordFraming.TornTail? {
        var previous: Int?
        return try framing.scan(bytes, path: path) { payload, offset throws(StoreError) in
            let record: LogRecord
            do throws(StoreError) {
                record = try LibraryCoding.decodeRecord(payload, path: path)
            } catch {
                throw .damagedLog(path: path, offset: offset, problem: "its checksum matches but \(error.description)")
            }
            if let previous, record.sequence != previous + 1 {
                throw .damagedLog(
                    path: path,
                    offset: offset,
                    problem: "record \(record.sequence) follows record \(previous); records must be consecutive"
                )
            }
            try body(record, offset)
            previous = record.sequence
        }
    }
}

/// The open change log, appended to and made durable record by record. Used under the store's lock only.
struct ChangeLogFile {
    let path: String
    private(set) var descriptor: FileDescriptor
    /// Bytes of sound records (and the header): where the next record goes.
    private(set) var length: Int
    private let faults: StoreFaults

    /// Opens the log for appending after its first `length` bytes, cutting off (durably) anything beyond them.
    static func open(path: String, length: Int, faults: StoreFaults) throws(StoreError) -> ChangeLogFile {
        let descriptor = try StoreFile.openForUpdate("change log", at: path, creating: false)
        do throws(Errno) {
            let size = try SystemCall.typed { try descriptor.seek(offset: 0, from: .end) }
            if size != Int64(length) {
                try SystemCall.typed { try descriptor.resize(to: Int64(length)) }
                try SystemCall.fdatasync(descriptor)
            }
        } catch {
            try? descriptor.close()
            throw .setupFailed(path: path, step: "cutting the torn end off change log \(path)", errno: error)
        }
        return ChangeLogFile(path: path, descriptor: descriptor, length: length, faults: faults)
    }

    /// Writes `record` after the last one and flushes it to the device. On failure the log is cut back to where it
    /// was, durably, so the next append follows a sound record; if even that fails, nobody can say what the log
    /// holds: `.outcomeUnknown`.
    mutating func append(_ record: [UInt8], storePath: String) throws(StoreError) {
        let offset = length
        do throws(Errno) {
            try faults.before(.append)
            _ = try SystemCall.typed { try descriptor.writeAll(toAbsoluteOffset: Int64(offset), record) }
            try faults.before(.syncLog)
            try SystemCall.fdatasync(descriptor)
        } catch {
            do throws(Errno) {
                try faults.before(.truncateLog)
                try SystemCall.typed { try descriptor.resize(to: Int64(offset)) }
                try SystemCall.fdatasync(descriptor)
            } catch let cutError {
                throw .outcomeUnknown(path: storePath, step: "cutting a failed append off \(path)", errno: cutError)
            }
            throw .writeFailed(path: storePath, step: "appending to \(path)", errno: error)
        }
        length += record.count
    }

    /// The bytes from `offset` to the end: the records appended after it.
    func bytes(from offset: Int) throws(Errno) -> [UInt8] {
        let bytes = try SystemCall.read(descriptor, count: length - offset, at: offset)
        guard bytes.count == length - offset else { throw .ioError }  // Shorter than we wrote: changed under us.
        return bytes
    }

    /// Read-only use ended, or the file was replaced: nothing unflushed can be lost by a failed close.
    func close() {
        try? descriptor.close()
    }
}
