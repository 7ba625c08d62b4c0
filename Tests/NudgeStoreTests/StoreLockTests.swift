import Foundation
import Synchronization
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

        @Test func aLockFileThatCannotBeOpenedNamesTheStoreAndTheStep() throws {
            try withTemporaryDirectory { directory in
                let lockPath = directory.storePath + ".lock"
                try FileManager.default.createDirectory(atPath: lockPath, withIntermediateDirectories: false)
                let error = #expect(throws: StoreError.self) {
                    try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                }
                #expect(error?.code == .io)
                let expected = "could not open store \(directory.storePath) (opening lock file \(lockPath)): "
                #expect(error?.description.hasPrefix(expected) == true, "\(String(describing: error))")
            }
        }

        /// A child being spawned holds copies of our descriptors until its exec: a lock released a moment ago can
        /// look held by ourselves. Taking it again while children are spawned all the time must still succeed.
        @Test func aLockReleasedWhileChildrenAreSpawnedCanBeTakenAgain() throws {
            final class Stop: Sendable {
                let requested = Atomic<Bool>(false)
                let done = Atomic<Bool>(false)
            }
            let stop = Stop()
            let spawner = Thread {
                while !stop.requested.load(ordering: .acquiring) {
                    let child = Process()
                    child.executableURL = URL(fileURLWithPath: "/bin/true")
                    try? child.run()
                    child.waitUntilExit()
                }
                stop.done.store(true, ordering: .releasing)
            }
            spawner.start()
            defer {
                stop.requested.store(true, ordering: .releasing)
                while !stop.done.load(ordering: .acquiring) { sched_yield() }
            }
            try withTemporaryDirectory { directory in
                let lockPath = directory.storePath + ".lock"
                for _ in 0..<500 {
                    let lock = try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                    lock.release()
                }
                // And one really held is still refused.
                let lock = try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                defer { lock.release() }
                #expect(throws: StoreError.self) {
                    try StoreLock.acquire(lockPath: lockPath, storePath: directory.storePath)
                }
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
