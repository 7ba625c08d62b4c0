import Foundation
import NudgeCore
import NudgeSystem
import SystemPackage

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
