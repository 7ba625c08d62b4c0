import Foundation
import NudgeCalendar
import NudgeCore
import Synchronization
import SystemPackage
import Testing

@testable import NudgeStore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

extension NudgeStoreTests {
    @Suite struct ChecklistStoreTests {
        // MARK: File format

        @Test func newStoreStartsWithOneListNamedListWrittenBeforeOpenReturns() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                #expect(store.library.lists.map(\.name) == ["Inbox"])
                let onDisk = try PropertyListDecoder().decode(
                    StoreSnapshot.self,
                    from: Data(contentsOf: URL(fileURLWithPath: directory.storePath))
                ).library
                #expect(onDisk == store.library)
            }
        }

        /// The snapshot keeps the layout Python's plistlib and every plist tool read, plus the record it runs to.
        @Test func snapshotIsABinaryPropertyListOfTheLibraryFieldsAndItsLastRecord() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                try addItems(3, to: store)
                store.compact()

                let data = try Data(contentsOf: URL(fileURLWithPath: directory.storePath))
                #expect(data.starts(with: Array("bplist00".utf8)))
                var format = PropertyListSerialization.PropertyListFormat.xml
                let root = try PropertyListSerialization.propertyList(from: data, format: &format) as? [String: Any]
                #expect(format == .binary)
                #expect(
                    Set(root?.keys.map { $0 } ?? [])
                        == [
                            "formatVersion", "nextItemID", "nextListID", "nextEventID", "lists", "logSequence",
                            "defaultListID", "storeID",
                        ]
                )
                #expect(root?["formatVersion"] as? Int == StoreSchema.currentVersion)
                #expect(root?["logSequence"] as? Int == 3)
                #expect(try PropertyListDecoder().decode(StoreSnapshot.self, from: data).library == store.library)
            }
        }

        @Test func reopeningGivesAnEqualLibrary() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(5, to: store)
                let groceries = try store.library.makeAddList(name: "Groceries", iconName: .groceries)
                try store.commit([groceries])
                let saved = store.library
                store.close()

                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(reopened.library == saved)
                #expect(reopened.library.lists.map(\.name) == ["Groceries", "Inbox"])
            }
        }

        // MARK: Durable atomic replace

        @Test func commitLeavesNoTemporaryFileBehind() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                try addItems(3, to: store)
                store.compact()
                #expect(try directory.temporaryFiles() == [])
                #expect(
                    try directory.entries() == ["Checklists.plist", "Checklists.plist.events", "Checklists.plist.log"]
                )
            }
        }

        @Test func storeFileLockFileAndNewDirectoryArePrivateEvenWithUmaskZero() async {
            // umask is per process; the child process keeps it from touching tests running alongside.
            await #expect(processExitsWith: .success) {
                try withTemporaryDirectory { directory in
                    let previous = umask(0)
                    defer { umask(previous) }
                    let storePath = directory.path + "/data/nudge/Checklists.plist"
                    let store = try ChecklistStore.open(path: storePath)
                    defer { store.close() }
                    try addItems(1, to: store)

                    #expect(try FileSnapshot(storePath).permissions == 0o600)
                    #expect(try FileSnapshot(store.lockPath).permissions == 0o600)
                    #expect(try FileSnapshot(directory.path + "/data/nudge", readingBytes: false).permissions == 0o700)
                    #expect(try FileSnapshot(directory.path + "/data", readingBytes: false).permissions == 0o700)
                }
            }
        }

        /// A real failed write: RLIMIT_FSIZE makes write(2) fail with EFBIG past the limit (SIGXFSZ ignored so the process
        /// lives). The limit is per process, so this runs in a child process of its own.
        @Test func failedWriteKeepsTheFileAndTheLibraryAndLeavesNoTemporaryFile() async {
            await #expect(processExitsWith: .success) {
                try withTemporaryDirectory { directory in
                    let store = try ChecklistStore.open(path: directory.storePath)
                    defer { store.close() }
                    try addItems(2, to: store)
                    let before = try FileSnapshot(directory.storePath)
                    let libraryBefore = store.library
                    let bigItem = try store.library.makeAddItem(
                        NewItem(text: String(repeating: "x", count: 20_000), listID: 1),
                        now: testNow,
                        zones: zones
                    )

                    signal(SIGXFSZ, SIG_IGN)
                    var original = rlimit()
                    #expect(getrlimit(fileSizeLimit, &original) == 0)
                    var small = original
                    small.rlim_cur = 4096
                    #expect(setrlimit(fileSizeLimit, &small) == 0)
                    let error = #expect(throws: StoreError.self) { try store.commit([bigItem]) }
                    #expect(setrlimit(fileSizeLimit, &original) == 0)

                    #expect(error?.code == .io)
                    #expect(error?.errno == .fileTooLarge)
                    #expect(error?.description.contains(directory.storePath) == true)
                    #expect(error?.description.contains("errno \(EFBIG)") == true)
                    #expect(try FileSnapshot(directory.storePath) == before)
                    #expect(store.library == libraryBefore)
                    #expect(try directory.temporaryFiles() == [])

                    // The store still works once the file system does.
                    try store.commit([bigItem])
                    #expect(store.library.item(id: try #require(bigItem.allocatedID)) != nil)
                }
            }
        }

        @Test func rejectedChangeWritesNothingAndChangesNothing() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                try addItems(1, to: store)
                let before = try FileSnapshot(directory.storePath)
                let libraryBefore = store.library
                let add = try store.library.makeAddItem(NewItem(text: "fine", listID: 1), now: testNow, zones: zones)

                let error = #expect(throws: StoreError.self) { try store.commit([add, .removeItem(itemID: 99)]) }
                #expect(error?.code == .rejectedChange)
                #expect(error?.description.contains("change 2 of 2") == true)
                #expect(error?.description.contains("no item with ID 99") == true)
                #expect(try FileSnapshot(directory.storePath) == before)
                #expect(store.library == libraryBefore)
            }
        }

        /// An append that failed and could not be cut off leaves a log nobody can vouch for: the store serves what
        /// the files hold (the reload matches them, and the new item's ID is not handed out again), and takes no
        /// further commit until it is opened again.
        @Test func aCommitWithAnUnknownOutcomeIsWhatTheLibraryShowsAndEndsWriting() throws {
            try withTemporaryDirectory { directory in
                try ChecklistStore.open(path: directory.storePath).close()
                let failing = Mutex<Set<StoreFaults.Step>>([.syncLog, .truncateLog])
                let store = try ChecklistStore.open(
                    path: directory.storePath,
                    faults: StoreFaults { step throws(Errno) in
                        if failing.withLock({ $0.remove(step) }) != nil { throw .ioError }
                    }
                )
                let add = try store.library.makeAddItem(NewItem(text: "maybe", listID: 1), now: testNow, zones: zones)
                let error = #expect(throws: StoreError.self) { try store.commit([add]) }
                #expect(error?.code == .outcomeUnknown)
                #expect(store.library.item(id: 1)?.text == "maybe")
                let later = try store.library.makeAddItem(NewItem(text: "later", listID: 1), now: testNow, zones: zones)
                let refusal = #expect(throws: StoreError.self) { try store.commit([later]) }
                #expect(refusal?.description.contains("was not written") == true)
                store.close()

                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(reopened.library.item(id: 1)?.text == "maybe")
                #expect(reopened.library.nextItemID == 2)
            }
        }

        @Test func emptyCommitWritesNothing() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                let before = try FileSnapshot(directory.storePath)
                try store.commit([])
                #expect(try FileSnapshot(directory.storePath) == before)
            }
        }

        @Test func commitAfterCloseThrowsClosed() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                let add = try store.library.makeAddItem(NewItem(text: "late", listID: 1), now: testNow, zones: zones)
                store.close()
                let error = #expect(throws: StoreError.self) { try store.commit([add]) }
                #expect(error?.code == .closed)
            }
        }

        @Test func concurrentCommitsAllLandOneAfterAnother() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                let failures = Mutex<[String]>([])
                DispatchQueue.concurrentPerform(iterations: 8) { number in
                    do {
                        try store.commit([.addList(Checklist(listID: 100 + number, name: "Shelf \(number)"))])
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                #expect(failures.withLock { $0 } == [])
                #expect(store.library.lists.count == 9)
                let onDisk = try StoreContent.load(
                    snapshot: StoreFile(path: directory.storePath),
                    log: StoreFile(path: directory.logPath)
                )
                #expect(onDisk.library == store.library)
                #expect(onDisk.replayedRecords == 8)
            }
        }

        // MARK: Locking

        @Test func secondOpenerIsToldWhichProcessHoldsTheStore() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                let before = try FileSnapshot(directory.storePath)

                let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
                #expect(error?.code == .locked)
                #expect(
                    error?.description
                        == "store \(directory.storePath) is in use by process \(getpid()) (lock \(store.lockPath)); "
                        + "stop that nudged first, or point this one at another store"
                )
                #expect(try FileSnapshot(directory.storePath) == before)
            }
        }

        @Test func lockSurvivesTheRenameThatReplacesTheStore() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                try addItems(2, to: store)
                let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
                #expect(error?.code == .locked)
            }
        }

        @Test func storeOpensAgainAfterClose() throws {
            try withTemporaryDirectory { directory in
                let first = try ChecklistStore.open(path: directory.storePath)
                first.close()
                let second = try ChecklistStore.open(path: directory.storePath)
                second.close()
            }
        }

        @Test func releasingTheLastReferenceReleasesTheLock() throws {
            try withTemporaryDirectory { directory in
                do {
                    let store = try ChecklistStore.open(path: directory.storePath)
                    _ = store.library
                }
                let again = try ChecklistStore.open(path: directory.storePath)
                again.close()
            }
        }

        // MARK: Crash leftovers

        @Test func temporaryFileLeftByACrashIsRemovedAndTheLastSavedContentLoads() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(3, to: store)
                let saved = store.library
                store.close()
                let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.storePath))
                let leftover = directory.path + "/.Checklists.plist.tmp-abc123"
                try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: leftover))

                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(reopened.library == saved)
                #expect(try directory.temporaryFiles() == [])
            }
        }

        // MARK: IDs across reopen

        @Test func deletedNewestItemIDIsNeverHandedOutAgainAfterReopen() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(3, to: store)
                #expect(store.library.lists[0].items.map(\.itemID) == [1, 2, 3])
                try store.commit([try store.library.makeRemoveItem(itemID: 3)])
                store.close()

                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                let next = try reopened.library.makeAddItem(NewItem(text: "new", listID: 1), now: testNow, zones: zones)
                #expect(next.allocatedID == 4)
                #expect(try rawCounters(directory.storePath).nextItemID == 4)
            }
        }

        @Test func deletedNewestListIDIsNeverHandedOutAgainAfterReopen() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                let trips = try store.library.makeAddList(name: "Trips")
                try store.commit([trips])
                let tripsID = try #require(trips.allocatedID)
                try store.commit([try store.library.makeRemoveList(listID: tripsID)])
                store.close()

                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(try reopened.library.makeAddList(name: "Chores").allocatedID == tripsID + 1)
            }
        }

        @Test func uncommittedAllocationIsNeverBelowAnIDOnDisk() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(3, to: store)
                _ = try store.library.makeAddItem(
                    NewItem(text: "never committed", listID: 1),
                    now: testNow,
                    zones: zones
                )
                _ = try store.library.makeAddList(name: "Never committed")
                store.close()

                let raw = try rawCounters(directory.storePath)
                #expect(raw.nextItemID > raw.itemIDs.max() ?? 0)
                #expect(raw.nextListID > raw.listIDs.max() ?? 0)

                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                let item = try reopened.library.makeAddItem(
                    NewItem(text: "after reopen", listID: 1),
                    now: testNow,
                    zones: zones
                )
                let list = try reopened.library.makeAddList(name: "After reopen")
                let itemID = try #require(item.allocatedID)
                let listID = try #require(list.allocatedID)
                #expect(raw.itemIDs.allSatisfy { itemID > $0 })
                #expect(raw.listIDs.allSatisfy { listID > $0 })
            }
        }

        @Test func counterOnDiskAlwaysExceedsEveryIDOnDisk() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                for round in 0..<4 {
                    try addItems(2, to: store)
                    try store.commit([try store.library.makeAddList(name: "List \(round + 2)")])
                    let newest = try #require(store.library.lists.flatMap(\.items).map(\.itemID).max())
                    try store.commit([try store.library.makeRemoveItem(itemID: newest)])
                    store.compact()  // The snapshot: the log's records carry their counters (ChangeLogTests).
                    let raw = try rawCounters(directory.storePath)
                    #expect(raw.nextItemID > raw.itemIDs.max() ?? 0)
                    #expect(raw.nextListID > raw.listIDs.max() ?? 0)
                }
            }
        }
    }
}

// MARK: Helpers

/// RLIMIT_FSIZE, as the type getrlimit and setrlimit take on Glibc.
let fileSizeLimit = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)

/// Commits `count` new items to the first list, one commit each, as the daemon would.
func addItems(_ count: Int, to store: ChecklistStore) throws {
    for number in 0..<count {
        let listID = store.library.lists[0].listID
        let change = try store.library.makeAddItem(
            NewItem(
                text: "item \(number)",
                listID: listID,
                dueDate: testNow.addingTimeInterval(Double(number) * 3600),
                shouldRemind: number % 2 == 0
            ),
            now: testNow,
            zones: zones
        )
        try store.commit([change])
    }
}

/// The counters and IDs exactly as the file holds them, read without the model (which would repair them).
func rawCounters(_ path: String) throws -> (nextItemID: Int, nextListID: Int, itemIDs: [Int], listIDs: [Int]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let root = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    let lists = try #require(root["lists"] as? [[String: Any]])
    let items = lists.flatMap { $0["items"] as? [[String: Any]] ?? [] }
    return (
        try #require(root["nextItemID"] as? Int),
        try #require(root["nextListID"] as? Int),
        items.compactMap { $0["itemID"] as? Int },
        lists.compactMap { $0["listID"] as? Int }
    )
}

extension ChecklistChange {
    /// The ID an add hands out, for the tests that check allocation.
    var allocatedID: Int? {
        switch self {
        case .putItem(let item, _): item.itemID
        case .addList(let list): list.listID
        default: nil
        }
    }
}
