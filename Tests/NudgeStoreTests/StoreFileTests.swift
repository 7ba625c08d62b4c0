import Foundation
import Testing

@testable import NudgeStore

extension NudgeStoreTests {
    @Suite struct StoreFileTests {
        @Test func replaceWritesTheBytesIntoANewPrivateFile() throws {
            try withTemporaryDirectory { directory in
                let file = StoreFile(path: directory.storePath)
                try Data("old".utf8).write(to: URL(fileURLWithPath: directory.storePath))
                let before = try FileSnapshot(directory.storePath)
                try file.replace(with: Data("new content".utf8))
                let after = try FileSnapshot(directory.storePath)
                #expect(after.bytes == Data("new content".utf8))
                #expect(after.inode != before.inode)  // replaced by rename, not written in place
                #expect(after.permissions == 0o600)
                #expect(try directory.temporaryFiles() == [])
            }
        }

        @Test func readReturnsNilForAMissingFileAndTheBytesOtherwise() throws {
            try withTemporaryDirectory { directory in
                let file = StoreFile(path: directory.storePath)
                #expect(try file.read(limit: 100) == nil)
                try Data("twelve bytes".utf8).write(to: URL(fileURLWithPath: directory.storePath))
                #expect(try file.read(limit: 12) == Array("twelve bytes".utf8))
                let error = #expect(throws: StoreError.self) { try file.read(limit: 11) }
                #expect(error?.code == .tooLarge)
            }
        }

        @Test func leftoverCleanupRemovesOnlyThisStoresTemporaryFiles() throws {
            try withTemporaryDirectory { directory in
                let keep = [
                    "Checklists.plist", "Checklists.plist.lock", ".Other.plist.tmp-1", "Checklists.plist.tmp-2",
                ]
                let remove = [".Checklists.plist.tmp-abc123", ".Checklists.plist.tmp-"]
                for name in keep + remove {
                    try Data().write(to: URL(fileURLWithPath: directory.path + "/" + name))
                }
                try StoreFile(path: directory.storePath).removeCrashLeftovers()
                #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == Set(keep))
            }
        }

        @Test func relativePathUsesTheCurrentDirectory() {
            let file = StoreFile(path: "Checklists.plist")
            #expect(file.directory == ".")
            #expect(file.temporaryPrefix == ".Checklists.plist.tmp-")
        }
    }
}
