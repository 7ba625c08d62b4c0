import Foundation
import Synchronization
import SystemPackage
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

        /// The rename is done when the directory flush fails: a second try that succeeds makes it durable, and
        /// two failures leave the new content in place with an unknown outcome, never a claim that nothing changed.
        @Test(arguments: [1, 2])
        func aFailedDirectoryFlushIsRetriedOnceThenTheOutcomeIsUnknown(failures: Int) throws {
            try withTemporaryDirectory { directory in
                let file = StoreFile(path: directory.storePath, faults: .failing(.syncDirectory, times: failures))
                try Data("old".utf8).write(to: URL(fileURLWithPath: directory.storePath))
                if failures == 1 {
                    try file.replace(with: Data("new".utf8))
                } else {
                    let error = #expect(throws: StoreError.self) { try file.replace(with: Data("new".utf8)) }
                    #expect(error?.code == .outcomeUnknown)
                    #expect(error?.errno == .ioError)
                }
                #expect(try FileSnapshot(directory.storePath).bytes == Data("new".utf8))
                #expect(try directory.temporaryFiles() == [])
            }
        }

        @Test(arguments: [StoreFaults.Step.create, .write, .flush, .close, .rename])
        func aStepFailingBeforeTheRenameKeepsTheOldContent(step: StoreFaults.Step) throws {
            try withTemporaryDirectory { directory in
                let file = StoreFile(path: directory.storePath, faults: .failing(step, times: 1))
                try Data("old".utf8).write(to: URL(fileURLWithPath: directory.storePath))
                let error = #expect(throws: StoreError.self) { try file.replace(with: Data("new".utf8)) }
                #expect(error?.code == .io)
                #expect(try FileSnapshot(directory.storePath).bytes == Data("old".utf8))
                #expect(try directory.temporaryFiles() == [])
            }
        }

        @Test func relativePathUsesTheCurrentDirectory() {
            let file = StoreFile(path: "Checklists.plist")
            #expect(file.directory == ".")
            #expect(file.temporaryPrefix == ".Checklists.plist.tmp-")
        }
    }
}

extension StoreFaults {
    /// Fails `step` with EIO the first `times` it is tried.
    static func failing(_ step: Step, times: Int) -> StoreFaults {
        let left = Mutex(times)
        return StoreFaults { tried throws(Errno) in
            let fails = left.withLock { left in
                guard tried == step, left > 0 else { return false }
                left -= 1
                return true
            }
            if fails { throw .ioError }
        }
    }
}
