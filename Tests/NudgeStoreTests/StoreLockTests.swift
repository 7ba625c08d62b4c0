import Foundation
import Testing

@testable import NudgeStore

extension NudgeStoreTests {
    @Suite struct StoreLockTests {
        @Test func secondAcquireInTheSameProcessIsRefusedNamingThisProcess() throws {
            try withTemporaryDirectory { directory in
                let lockPath = directory.storePath + ".lock"
                let lock = try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                defer { lock.release() }
                let error = #expect(throws: StoreError.self) {
                    try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                }
                #expect(error?.code == .locked)
                #expect(error?.description.contains("in use by process \(getpid())") == true)
            }
        }

        @Test func lockFileHoldsTheHoldersProcessIDAndNothingElse() throws {
            try withTemporaryDirectory { directory in
                let lockPath = directory.storePath + ".lock"
                // A longer PID from an earlier holder must not leave digits behind.
                try Data("123456789012\n".utf8).write(to: URL(fileURLWithPath: lockPath))
                let lock = try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                defer { lock.release() }
                #expect(try String(contentsOfFile: lockPath, encoding: .utf8) == "\(getpid())\n")
            }
        }

        @Test func releasedLockCanBeTakenAgainAndItsFileStays() throws {
            try withTemporaryDirectory { directory in
                let lockPath = directory.storePath + ".lock"
                try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath).release()
                #expect(FileManager.default.fileExists(atPath: lockPath))
                try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath).release()
            }
        }

        @Test func holderThatHasNotWrittenItsProcessIDYetIsAnotherProcess() throws {
            try withTemporaryDirectory { directory in
                let lockPath = directory.storePath + ".lock"
                let lock = try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                defer { lock.release() }
                #expect(truncate(lockPath, 0) == 0)
                let error = #expect(throws: StoreError.self) {
                    try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                }
                #expect(error?.description.contains("in use by another process") == true)
            }
        }
    }
}
