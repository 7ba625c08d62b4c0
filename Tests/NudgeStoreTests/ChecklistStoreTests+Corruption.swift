import Foundation
import NudgeCalendar
import NudgeCore
import Testing

@testable import NudgeStore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

/// A store that does not load is evidence: it is never written, renamed or truncated, and the error names the file,
/// what is wrong with it, and what to do.
extension NudgeStoreTests.ChecklistStoreTests {
    static let startOverAdvice =
        "it was left untouched — move it aside to start with an empty store, or restore a backup"

    @Test func truncatedStoreIsRefusedWithAByteOffsetAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            let bytes = try encodedLibrary(items: 40)
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .notAPropertyList)
            #expect(
                error?.description.hasPrefix("store \(directory.storePath) is not a binary property list: ") == true
            )
            #expect(error?.description.contains("byte") == true)
            #expect(error?.description.hasSuffix(Self.startOverAdvice) == true)
        }
    }

    @Test func garbageIsRefusedNamingTheBytesFoundAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            try Data("GARBAGE-GARBAGE-GARBAGE-GARBAGE-GARBAGE-GARBAGE".utf8)
                .write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .notAPropertyList)
            #expect(
                error?.description
                    == "store \(directory.storePath) does not start with \"bplist00\" (found bytes 0x47 0x41 0x52 "
                    + "0x42 0x41 0x47 0x45 0x2D at offset 0), so it is not a binary property list; "
                    + Self.startOverAdvice
            )
        }
    }

    @Test func emptyFileIsRefusedAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            try Data().write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .notAPropertyList)
            #expect(error?.description.contains("is empty (0 bytes)") == true)
        }
    }

    @Test func newerFormatIsRefusedNamingBothVersionsEvenWithAnUnknownLayout() throws {
        try withTemporaryDirectory { directory in
            let newer = StoreSchema.currentVersion + 1
            let root: [String: Any] = ["formatVersion": newer, "shelves": ["a layout this version does not know"]]
            try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
                .write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .newerFormat)
            #expect(
                error?.description
                    == "store \(directory.storePath) has format version \(newer), but this nudge reads only up to "
                    + "version \(StoreSchema.currentVersion); it was left untouched — upgrade nudge to use it"
            )
        }
    }

    @Test func fileOverTheSizeLimitIsRefusedBeforeReadingAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            let size = ChecklistStore.maximumFileSize + 1
            // Sparse: costs no disk space, and the store must refuse it from fstat alone.
            #expect(FileManager.default.createFile(atPath: directory.storePath, contents: nil))
            #expect(truncate(directory.storePath, off_t(size)) == 0)

            let error = try openFailsLeavingEverythingUntouched(directory, readingBytes: false)
            #expect(error?.code == .tooLarge)
            #expect(error?.description.contains("is \(size) bytes, over the limit of \(size - 1) bytes") == true)
        }
    }

    @Test func wronglyTypedFieldIsRefusedNamingItsPath() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { root in
                try editItem(2, in: &root) { $0["dueDate"] = "tomorrow" }
            }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(
                error?.description.hasPrefix(
                    "store \(directory.storePath) has an invalid field lists[0].items[2].dueDate: it should be a date"
                ) == true
            )
        }
    }

    @Test func missingFieldIsRefusedNamingItsPath() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { root in
                try editItem(1, in: &root) { $0["text"] = nil }
            }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(error?.description.contains("invalid field lists[0].items[1].text: it is missing") == true)
        }
    }

    @Test func missingFormatVersionIsRefusedNamingIt() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { $0["formatVersion"] = nil }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(error?.description.contains("invalid field formatVersion: it is missing") == true)
        }
    }

    @Test func unknownIconIsRefusedNamingItsPath() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { root in
                var lists = try #require(root["lists"] as? [[String: Any]])
                lists[0]["iconName"] = "Spaceships"
                root["lists"] = lists
            }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(error?.description.contains("invalid field lists[0].iconName") == true)
        }
    }

    @Test func itemIDUsedTwiceIsRefusedNamingBothPlaces() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { root in
                try editItem(3, in: &root) { $0["itemID"] = 1 }
            }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(
                error?.description.contains(
                    "invalid field lists[0].items[3].itemID: item ID 1 is used twice, here and at lists[0].items[0]"
                ) == true
            )
        }
    }

    /// The model computes `id + 1`; a hand-edited Int.max must be refused, not trap.
    @Test func itemIDTooLargeToCountPastIsRefused() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { root in
                try editItem(0, in: &root) { $0["itemID"] = Int.max }
            }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(
                error?.description.contains("invalid field lists[0].items[0].itemID: \(Int.max) is outside") == true
            )
        }
    }

    @Test func topLevelThatIsNotADictionaryIsRefused() throws {
        try withTemporaryDirectory { directory in
            try PropertyListSerialization.data(fromPropertyList: ["just", "an", "array"], format: .binary, options: 0)
                .write(to: URL(fileURLWithPath: directory.storePath))
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(error?.description.contains("(the top level)") == true)
        }
    }

    @Test func directoryInPlaceOfTheStoreIsRefusedAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory.storePath, withIntermediateDirectories: false)
            let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
            #expect(error?.code == .notAPropertyList)
            #expect(error?.description.contains("is not a regular file") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.storePath) == [])
        }
    }

    @Test func temporaryFilesBesideAnUnreadableStoreAreKept() throws {
        try withTemporaryDirectory { directory in
            try Data("not a plist".utf8).write(to: URL(fileURLWithPath: directory.storePath))
            let leftover = directory.path + "/.Checklists.plist.tmp-abc123"
            try encodedLibrary(items: 2).write(to: URL(fileURLWithPath: leftover))

            _ = try openFailsLeavingEverythingUntouched(directory)
            #expect(FileManager.default.fileExists(atPath: leftover))
        }
    }

    /// XML is accepted, so a store can be converted, edited by hand and put back; the next snapshot is binary again.
    @Test func xmlPropertyListIsReadAndTheNextSaveIsBinary() throws {
        try withTemporaryDirectory { directory in
            let binary = try encodedLibrary(items: 3)
            let expected = try PropertyListDecoder().decode(StoreSnapshot.self, from: binary).library
            let root = try PropertyListSerialization.propertyList(from: binary, format: nil)
            try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: directory.storePath))

            let store = try ChecklistStore.open(path: directory.storePath)
            defer { store.close() }
            #expect(store.library == expected)
            try addItems(1, to: store)
            store.compact()
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: directory.storePath)).starts(with: Array("bplist00".utf8))
            )
        }
    }

    /// Foundation's XML parser recurses per element: 10,000 levels (150 KB) overflowed the stack and killed nudged.
    @Test func anXMLStoreNestedTenThousandLevelsDeepIsRefusedNotACrash() throws {
        try withTemporaryDirectory { directory in
            let deep = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0"><dict><key>formatVersion</key><integer>1</integer><key>nextItemID</key>\
                <integer>1</integer><key>nextListID</key><integer>2</integer><key>lists</key>\(deep)</dict></plist>
                """
            try Data(xml.utf8).write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .notAPropertyList)
            #expect(
                error?.description.contains("nested more than 64 elements deep") == true,
                "\(String(describing: error))"
            )
        }
    }

    /// Found by scripts/fuzz: a byte that is not UTF-8 among an integer's whitespace stopped the process inside
    /// Foundation's XML parser.
    @Test func anXMLStoreThatIsNotUTF8IsRefusedNotACrash() throws {
        try withTemporaryDirectory { directory in
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>formatVersion</key><integer>
                """
            try Data(xml.utf8 + Array(repeating: 0xFF, count: 8) + "1</integer></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .notAPropertyList)
            #expect(
                error?.description.contains("is an XML property list that is not UTF-8 (at byte 99)") == true,
                "\(String(describing: error))"
            )
        }
    }
}

// MARK: Helpers

/// Opens the store expecting a refusal, and checks that nothing changed: the file's bytes, inode, mtime and mode,
/// the directory's entries; and that the lock was given back.
func openFailsLeavingEverythingUntouched(
    _ directory: TemporaryDirectory,
    readingBytes: Bool = true
) throws -> StoreError? {
    let before = try FileSnapshot(directory.storePath, readingBytes: readingBytes)
    let entries = try directory.entries()
    let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
    #expect(error?.path == directory.storePath)
    #expect(try FileSnapshot(directory.storePath, readingBytes: readingBytes) == before)
    #expect(try directory.entries() == entries)
    let lock = try StoreLock.acquire(lockPath: directory.storePath + ".lock", storePath: directory.storePath)
    lock.release()
    return error
}

/// A valid store's bytes: the first list holding `items` items with IDs 1...items.
func encodedLibrary(items: Int) throws -> Data {
    var library = ChecklistLibrary()
    for number in 0..<items {
        let change = try library.makeAddItem(
            NewItem(text: "item \(number)", listID: 1, dueDate: testNow),
            now: testNow,
            zones: zones
        )
        try library.apply(change)
    }
    return try LibraryCoding.encode(StoreSnapshot(library: library, logSequence: 0), path: "test")
}

/// Writes a valid store with five items after `edit` has changed its property-list dictionary.
func writeEdited(_ directory: TemporaryDirectory, _ edit: (inout [String: Any]) throws -> Void) throws {
    let data = try encodedLibrary(items: 5)
    var root = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    try edit(&root)
    try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        .write(to: URL(fileURLWithPath: directory.storePath))
}

func editItem(_ index: Int, in root: inout [String: Any], _ edit: (inout [String: Any]) -> Void) throws {
    var lists = try #require(root["lists"] as? [[String: Any]])
    var items = try #require(lists[0]["items"] as? [[String: Any]])
    edit(&items[index])
    lists[0]["items"] = items
    root["lists"] = lists
}

extension NudgeStoreTests.ChecklistStoreTests {
    /// The structure is sound but an object inside is not: the decoder's own words reach the user.
    @Test func damagedObjectInASoundStructureIsRefused() throws {
        try withTemporaryDirectory { directory in
            var bytes = Array(try encodedLibrary(items: 3))
            bytes[8] = 0x9F  // the top object's type marker: no such type
            try Data(bytes).write(to: URL(fileURLWithPath: directory.storePath))

            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .notAPropertyList)
            #expect(error?.description.contains("is not a valid binary property list (Invalid marker)") == true)
        }
    }

    @Test func formatVersionBelowOneIsRefusedAsInvalid() throws {
        try withTemporaryDirectory { directory in
            try writeEdited(directory) { $0["formatVersion"] = 0 }
            let error = try openFailsLeavingEverythingUntouched(directory)
            #expect(error?.code == .invalidContent)
            #expect(error?.description.contains("invalid field formatVersion: 0 is not a format version") == true)
        }
    }
}
