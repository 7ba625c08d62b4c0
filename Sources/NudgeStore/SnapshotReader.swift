import Foundation
import NudgeCore

/// Reads a snapshot in the layout nudge writes, straight from the binary property list's bytes, as `StoreSchema`'s
/// tables say (`StoredRecord.readRecord`). Foundation's `PropertyListDecoder` builds a generic tree first and took
/// 2.2 s for 100,000 items and 12.8 s for 1,000,000 on a 2-core machine, far over what a start may take; this reads
/// each object where it lies.
///
/// It gives up (nil) on anything it does not expect: a key no table has, a required one missing, a wrong type, an
/// object out of place, an ID the model refuses. `LibraryCoding` then decodes with Foundation, driven by the same
/// tables, which refuses the file naming the field that is wrong, so there is one source of error messages. The
/// structure (header, trailer, offset table) is checked by `BinaryPropertyListCheck` before this runs; every read
/// here is bounds-checked as well, so no input can crash it.
enum SnapshotReader {
    static func read(_ bytes: [UInt8]) -> StoreSnapshot? {
        bytes.withUnsafeBufferPointer { buffer in
            do throws(PropertyListReader.GaveUp) {
                var reader = try PropertyListReader(buffer)
                return try? StoreSnapshot(try SnapshotFields.readRecord(&reader, reader.top))
            } catch {
                return nil
            }
        }
    }
}
