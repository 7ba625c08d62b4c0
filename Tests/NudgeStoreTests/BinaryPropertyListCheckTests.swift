import Foundation
import Testing

@testable import NudgeStore

extension NudgeStoreTests {
    @Suite struct BinaryPropertyListCheckTests {
        /// A real binary plist from Foundation, big enough for 2-byte offsets.
        static func sample() throws -> [UInt8] {
            let root: [String: Any] = ["names": (0..<100).map { "name \($0)" }, "count": 100]
            return Array(try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0))
        }

        /// The trailer's fields, to build damaged files on purpose.
        static func trailerStart(_ bytes: [UInt8]) -> Int { bytes.count - 32 }

        static func setBigEndian(_ value: UInt64, in bytes: inout [UInt8], at start: Int) {
            for index in 0..<8 { bytes[start + index] = UInt8(truncatingIfNeeded: value >> (8 * (7 - index))) }
        }

        @Test func foundationsOwnOutputPasses() throws {
            #expect(BinaryPropertyListCheck.problem(in: try Self.sample()) == nil)
        }

        @Test func wrongHeaderNamesTheBytesFound() {
            let problem = BinaryPropertyListCheck.problem(in: Array("<?xml version=\"1.0\"?>".utf8))
            #expect(problem?.contains("found bytes 0x3C 0x3F 0x78 0x6D 0x6C 0x20 0x76 0x65 at offset 0") == true)
        }

        @Test func fileCutInsideTheHeaderSaysHowShortItIs() {
            let problem = BinaryPropertyListCheck.problem(in: Array("bpli".utf8))
            #expect(
                problem
                    == "is not a binary property list: it is 4 bytes long, shorter than its 8-byte header \"bplist00\" (truncated?)"
            )
        }

        @Test func fileTooShortForATrailerIsCalledTruncated() {
            let problem = BinaryPropertyListCheck.problem(in: Array("bplist00".utf8) + [0x08, 0x09])
            #expect(problem?.contains("10 bytes long, too short") == true)
        }

        @Test func offsetTablePastTheEndGivesItsOffsetAndTheFileSize() throws {
            var bytes = try Self.sample()
            Self.setBigEndian(81_234, in: &bytes, at: Self.trailerStart(bytes) + 24)
            let problem = BinaryPropertyListCheck.problem(in: bytes)
            #expect(
                problem == "is not a binary property list: the trailer says the offset table starts at byte 81234, "
                    + "past the end of the \(bytes.count)-byte file (truncated?)"
            )
        }

        @Test func offsetTableThatDoesNotReachTheTrailerIsRefused() throws {
            var bytes = try Self.sample()
            let trailer = Self.trailerStart(bytes)
            let table = bytes[(trailer + 24)..<(trailer + 32)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            Self.setBigEndian(table - 1, in: &bytes, at: trailer + 24)
            let problem = BinaryPropertyListCheck.problem(in: bytes)
            #expect(problem?.contains("the offset table at byte \(table - 1) should hold") == true)
        }

        @Test func objectOffsetOutsideTheObjectsNamesTheTableEntry() throws {
            var bytes = try Self.sample()
            let trailer = Self.trailerStart(bytes)
            let offsetSize = Int(bytes[trailer + 6])
            let table = Int(bytes[(trailer + 24)..<(trailer + 32)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            // Point object 1 at the offset table itself.
            let entry = table + offsetSize
            for index in 0..<offsetSize {
                bytes[entry + index] = UInt8(truncatingIfNeeded: table >> (8 * (offsetSize - 1 - index)))
            }
            let problem = BinaryPropertyListCheck.problem(in: bytes)
            #expect(
                problem
                    == "is not a binary property list: the offset table entry at byte \(entry) puts object 1 at byte "
                    + "\(table), outside the objects (bytes 8 to \(table - 1))"
            )
        }

        @Test func badOffsetSizeInTheTrailerIsRefused() throws {
            var bytes = try Self.sample()
            bytes[Self.trailerStart(bytes) + 6] = 0
            #expect(
                BinaryPropertyListCheck.problem(in: bytes)?.contains("offset size of 0, which must be 1 to 8") == true
            )
        }

        @Test func topObjectBeyondTheObjectCountIsRefused() throws {
            var bytes = try Self.sample()
            Self.setBigEndian(1_000_000, in: &bytes, at: Self.trailerStart(bytes) + 16)
            #expect(BinaryPropertyListCheck.problem(in: bytes)?.contains("names object 1000000 as the top one") == true)
        }

        @Test func everyCutOfARealFileIsCaughtWithAByteOffset() throws {
            let bytes = try Self.sample()
            for length in stride(from: 9, to: bytes.count, by: 7) {
                let problem = BinaryPropertyListCheck.problem(in: Array(bytes.prefix(length)))
                #expect(problem?.contains("byte") == true, "cut at \(length): \(problem ?? "passed")")
            }
        }
    }
}
