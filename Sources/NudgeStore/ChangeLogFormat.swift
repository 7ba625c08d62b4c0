import Foundation
import NudgeCore
import NudgeSystem
import SystemPackage

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
