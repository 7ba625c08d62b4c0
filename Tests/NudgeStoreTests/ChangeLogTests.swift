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
    /// The change log beside the snapshot: one record per commit, replayed at open, cut where a crash tore it,
    /// refused where it is damaged before its end, and compacted without losing or repeating a change.
    @Suite struct ChangeLogTests {
        // MARK: Appending

        @Test func aCommitAppendsOneRecordAndLeavesTheSnapshotAlone() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                let snapshotBefore = try FileSnapshot(directory.storePath)
                try addItems(3, to: store)
                let list = try store.library.makeAddList(name: "Errands")
                try store.commit([list, try store.library.makeRemoveItem(itemID: 1)])  // One batch, one record.

                #expect(try FileSnapshot(directory.storePath) == snapshotBefore)
                let records = try logRecords(directory.logPath)
                #expect(records.map(\.sequence) == [1, 2, 3, 4])
                #expect(records.map(\.changes.count) == [1, 1, 1, 2])
                #expect(records.last?.nextItemID == 4)
                #expect(records.last?.nextListID == 3)
                #expect(
                    try directory.entries() == ["Checklists.plist", "Checklists.plist.events", "Checklists.plist.log"]
                )
            }
        }

        @Test func reopeningReplaysTheLogOntoTheSnapshot() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(4, to: store)
                try store.commit([try store.library.makeRemoveItem(itemID: 2)])
                let saved = store.library
                let reopened = try reopenAfterCrash(store, directory)
                defer { reopened.close() }
                #expect(reopened.library == saved)
                #expect(reopened.openingNotes == [])
            }
        }

        /// The counters travel in each record: removing the newest item and crashing before any snapshot still
        /// never hands its ID out again.
        @Test func removedNewestIDsStayUsedAcrossACrash() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(3, to: store)
                try store.commit([try store.library.makeRemoveItem(itemID: 3)])
                try store.commit([try store.library.makeAddList(name: "Gone")])
                try store.commit([try store.library.makeRemoveList(listID: 2)])
                let reopened = try reopenAfterCrash(store, directory)
                defer { reopened.close() }
                #expect(reopened.library.nextItemID == 4)
                #expect(reopened.library.nextListID == 3)
            }
        }

        // MARK: Recovery

        /// A crash mid-append leaves any prefix of the last record: at every cut the store opens with every record
        /// before it, says what it cut, and takes new commits after it.
        @Test func aLogCutAtEveryByteOfItsLastRecordOpensWithTheRecordsBefore() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(2, to: store)
                let beforeLast = store.library
                let lastStart = store.logLength
                try store.commit([try store.library.makeRemoveItem(itemID: 1)])
                let afterLast = store.library
                let files = try CrashedFiles(directory)
                store.close()

                for cut in lastStart...files.log.count {
                    try files.restore(logPrefix: cut)
                    let reopened = try ChecklistStore.open(path: directory.storePath)
                    let whole = cut == files.log.count
                    #expect(reopened.library == (whole ? afterLast : beforeLast), "cut at \(cut)")
                    #expect(reopened.openingNotes.count == (cut == lastStart || whole ? 0 : 1), "cut at \(cut)")
                    #expect(reopened.logLength == (whole ? files.log.count : lastStart), "cut at \(cut)")
                    try addItems(1, to: reopened)  // The next record follows a sound one.
                    let expected = reopened.library
                    reopened.close()
                    let again = try ChecklistStore.open(path: directory.storePath)
                    #expect(again.library == expected, "cut at \(cut)")
                    again.close()
                }
            }
        }

        /// Blocks the file system allocated but never wrote read back as zeros.
        @Test func zerosAfterTheLastRecordAreATornTail() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(2, to: store)
                let saved = store.library
                let files = try CrashedFiles(directory)
                store.close()

                try files.restore(log: files.log + [UInt8](repeating: 0, count: 4096))
                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(reopened.library == saved)
                #expect(reopened.openingNotes.first?.contains("cut off 4096 bytes") == true)
                #expect(try FileSnapshot(directory.logPath).size == Int64(files.log.count))
            }
        }

        /// Damage followed by sound records is no crash's doing: refused, naming the file and the byte, and nothing
        /// is touched.
        @Test(arguments: [0, 5, 9, 20])
        func damageBeforeTheEndIsRefusedNamingTheByteAndChangesNothing(byteInFirstRecord: Int) throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(3, to: store)
                let files = try CrashedFiles(directory)
                store.close()

                var damaged = files.log
                let firstRecord = ChangeLogFormat.header.count
                damaged[firstRecord + byteInFirstRecord] ^= 0x40
                try files.restore(log: damaged)
                let before = try [FileSnapshot(directory.storePath), FileSnapshot(directory.logPath)]

                let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
                #expect(error?.code == .damagedLog)
                #expect(error?.description.contains("change log \(directory.logPath) is damaged at byte 12") == true)
                #expect(error?.description.contains("truncate -s 12") == true)
                #expect(try [FileSnapshot(directory.storePath), FileSnapshot(directory.logPath)] == before)
            }
        }

        @Test func aLogWithoutItsHeaderIsRefused() throws {
            try withTemporaryDirectory { directory in
                try ChecklistStore.open(path: directory.storePath).close()
                try Data("not a log at all".utf8).write(to: URL(fileURLWithPath: directory.logPath))
                let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
                #expect(error?.code == .damagedLog)
                #expect(error?.description.contains("does not start with the nudgelog header") == true)
            }
        }

        /// A store written before the log existed (format version 1, no log) opens with its content unchanged and is
        /// rewritten in the current layout, so an older nudged can never read it and miss the log.
        @Test func aVersionOneStoreOpensUnchangedAndIsUpgraded() throws {
            try withTemporaryDirectory { directory in
                var library = ChecklistLibrary()
                try library.apply(
                    try library.makeAddItem(
                        NewItem(text: "old", listID: 1, dueDate: testNow),
                        now: testNow,
                        zones: zones
                    )
                )
                var root = try #require(
                    try PropertyListSerialization.propertyList(
                        from: LibraryCoding.encode(StoreSnapshot(library: library, logSequence: 0), path: ""),
                        format: nil
                    ) as? [String: Any]
                )
                root["formatVersion"] = 1
                try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
                    .write(to: URL(fileURLWithPath: directory.storePath))

                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                #expect(store.library == library)
                let current = StoreSchema.currentVersion
                #expect(store.openingNotes.first?.contains("upgraded from format version 1 to \(current)") == true)
                let upgraded = try storedRoot(directory.storePath)
                #expect(upgraded?["formatVersion"] as? Int == current)
                #expect(upgraded?["logSequence"] as? Int == 0)
            }
        }

        /// A store the previous release wrote (format version 2: `Fixtures/format-2`, made by nudged at 1f189cf and
        /// killed with its log holding records) opens with every item, its log replayed and its history kept, and
        /// is rewritten as the current version; the items gain no repeat rule.
        @Test func aVersionTwoStoreWrittenByThePreviousReleaseOpensAndIsUpgraded() throws {
            try withTemporaryDirectory { directory in
                try copyFixture("format-2", to: directory)
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                let current = StoreSchema.currentVersion
                #expect(store.openingNotes.contains { $0.contains("upgraded from format version 2 to \(current)") })
                let items = store.library.lists.flatMap(\.items).sorted { $0.itemID < $1.itemID }
                #expect(items.map(\.text) == ["water the plants", "file the quarterly report", "buy milk", "call mum"])
                #expect(items.map(\.checked) == [false, false, true, false])
                #expect(items.map(\.shouldRemind) == [true, true, false, false])
                #expect(items[0].dueDate == Date(timeIntervalSince1970: 1_793_523_600))  // 2026-11-01T09:00:00Z
                #expect(items[0].lastFiredAt == items[0].dueDate)  // it fired when the clock moved past it
                #expect(items.allSatisfy { $0.repeatRule == nil && $0.completedThrough == nil })
                #expect(store.library.list(containing: 2)?.name == "Work")
                #expect(store.library.nextItemID == 5)
                // The history kept the decisions: four scheduled or replaced, the fire, the cancel of buy milk.
                let history = try store.events(after: 0, limit: 100)
                #expect(history.events.map(\.kind).contains(.fired))
                #expect(history.events.map(\.id) == Array(1...history.events.count))
                let upgraded = try storedRoot(directory.storePath)
                #expect(upgraded?["formatVersion"] as? Int == current)
                // It got its store ID with the upgrade, written at once: every export from now on gives the same UIDs.
                let storeID = try #require(upgraded?["storeID"] as? String)
                #expect(store.library.storeID == storeID && UUID(uuidString: storeID) != nil)
                store.close()
                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(reopened.library.storeID == storeID)
            }
        }

        /// A store with a recurring item, written by nudged at 9f18951 (format version 3: `Fixtures/format-3`, killed
        /// with its log holding records): the rule, the completed occurrence and the next one survive the upgrade;
        /// items gain the normal priority and no catch-up rule of their own.
        @Test func aVersionThreeStoreWithARecurringItemOpensAndIsUpgraded() throws {
            try withTemporaryDirectory { directory in
                try copyFixture("format-3", to: directory)
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                let current = StoreSchema.currentVersion
                #expect(store.openingNotes.contains { $0.contains("upgraded from format version 3 to \(current)") })
                let standup = try #require(store.library.item(id: 1))
                #expect(standup.repeatRule == "Mon..Fri *-*-* 09:30:00")
                #expect(standup.completedThrough == Date(timeIntervalSince1970: 1_799_055_000))  // 2027-01-04T09:30Z
                #expect(standup.dueDate == Date(timeIntervalSince1970: 1_799_141_400))  // 2027-01-05T09:30Z
                #expect(store.library.item(id: 2)?.dueDate == Date(timeIntervalSince1970: 1_799_152_200))
                #expect(store.library.lists.flatMap(\.items).allSatisfy { $0.priority == .normal && $0.catchUp == nil })
                #expect(try storedRoot(directory.storePath)?["formatVersion"] as? Int == current)
            }
        }

        @Test func aLogWhoseSnapshotIsMissingIsRefused() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(1, to: store)
                let files = try CrashedFiles(directory)
                store.close()
                try files.restore()
                try FileManager.default.removeItem(atPath: directory.storePath)
                let error = #expect(throws: StoreError.self) { try ChecklistStore.open(path: directory.storePath) }
                #expect(error?.code == .damagedLog)
                #expect(
                    error?.description.contains("the snapshot \(directory.storePath) they apply to is missing") == true
                )
            }
        }

        /// `nudged --check-store`: what a start would read, said without touching a byte, torn tail included.
        @Test func inspectingReportsWhatOpeningWouldReadAndChangesNothing() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(4, to: store)
                let files = try CrashedFiles(directory)
                store.close()
                try files.restore(log: files.log + [7, 0, 0])
                let before = try [FileSnapshot(directory.storePath), FileSnapshot(directory.logPath)]

                let report = try StoreReport.inspect(path: directory.storePath)
                #expect(report.lines.first == "store \(directory.storePath): sound")
                #expect(report.lines.contains { $0.contains("4 records after the snapshot") })
                #expect(report.lines.contains { $0.hasPrefix("torn tail: 3 bytes at byte \(files.log.count)") })
                #expect(report.lines.contains { $0.hasPrefix("lists: 1; items: 4 (0 checked); next item ID 5") })
                #expect(report.lines.last == "event history \(directory.storePath).events: 0 events")
                #expect(try [FileSnapshot(directory.storePath), FileSnapshot(directory.logPath)] == before)
            }
        }

        // MARK: Compaction

        @Test func compactionWritesTheSnapshotAndRestartsTheLogEmpty() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                try addItems(5, to: store)
                store.compact()
                #expect(try logRecords(directory.logPath) == [])
                let snapshot = try LibraryCoding.decode(Array(FileSnapshot(directory.storePath).bytes), path: "")
                #expect(snapshot.library == store.library)
                #expect(snapshot.logSequence == 5)
                try addItems(1, to: store)
                #expect(try logRecords(directory.logPath).map(\.sequence) == [6])
            }
        }

        @Test func closingCompacts() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(2, to: store)
                let saved = store.library
                store.close()
                #expect(try logRecords(directory.logPath) == [])
                #expect(
                    try LibraryCoding.decode(Array(FileSnapshot(directory.storePath).bytes), path: "").library == saved
                )
            }
        }

        @Test func passingTheThresholdCompactsOnItsOwn() async throws {
            let directory = try TemporaryDirectory.make()
            defer { try? FileManager.default.removeItem(atPath: directory.path) }
            let compacted = AsyncStream<String>.makeStream()
            let store = try ChecklistStore.open(
                path: directory.storePath,
                options: StoreOptions(compactionThreshold: 2_000) { compacted.continuation.yield($0) }
            )
            defer { store.close() }
            try addItems(20, to: store)
            var notices = compacted.stream.makeAsyncIterator()
            let notice = await notices.next()
            #expect(notice?.hasPrefix("compacted store \(directory.storePath)") == true, "\(notice ?? "")")
            let snapshot = try LibraryCoding.decode(Array(FileSnapshot(directory.storePath).bytes), path: "")
            #expect(snapshot.logSequence > 0)
        }

        /// Commits go on while a compaction writes the snapshot (held here at its flush); the records they append
        /// meanwhile are the ones the restarted log keeps, and a reopen holds every change exactly once.
        @Test func commitsGoOnWhileASnapshotIsWrittenAndLandInTheRestartedLog() async throws {
            let directory = try TemporaryDirectory.make()
            defer { try? FileManager.default.removeItem(atPath: directory.path) }
            let gate = SnapshotGate()
            let store = try ChecklistStore.open(path: directory.storePath, faults: gate.faults)
            try addItems(3, to: store)
            gate.holdNextFlush()
            let compaction = Task.detached { store.compact() }
            await gate.waitUntilHeld()
            try store.commit([try store.library.makeRemoveItem(itemID: 1)])
            try store.commit([try store.library.makeAddList(name: "During")])
            gate.release()
            await compaction.value

            let records = try logRecords(directory.logPath)
            #expect(records.map(\.sequence) == [4, 5], "\(records)")
            let snapshot = try LibraryCoding.decode(Array(FileSnapshot(directory.storePath).bytes), path: "")
            #expect(snapshot.logSequence == 3)
            #expect(snapshot.library.item(id: 1) != nil)
            let saved = store.library
            let reopened = try reopenAfterCrash(store, directory)
            defer { reopened.close() }
            #expect(reopened.library == saved)
        }

        /// A crash between the snapshot's rename and the log's restart leaves a snapshot that already holds the log's
        /// records: replay skips them (removing an item or adding a list twice would fail, so a repeat would show).
        @Test(arguments: [StoreFaults.Step.create, .write, .flush, .rename])
        func aCompactionCutShortAtTheLogsRestartLosesAndRepeatsNothing(step: StoreFaults.Step) throws {
            try withTemporaryDirectory { directory in
                try ChecklistStore.open(path: directory.storePath).close()  // Opening an existing store replaces nothing.
                let failLogRestart = Mutex((step: step, replaces: 0, failed: false))
                let store = try ChecklistStore.open(
                    path: directory.storePath,
                    faults: StoreFaults { tried throws(Errno) in
                        let fail = failLogRestart.withLock { state in
                            if tried == .create { state.replaces += 1 }
                            // The second replace of the compaction is the log's.
                            guard state.replaces == 2, tried == state.step, !state.failed else { return false }
                            state.failed = true
                            return true
                        }
                        if fail { throw .ioError }
                    }
                )
                try addItems(3, to: store)
                try store.commit([try store.library.makeRemoveItem(itemID: 2)])
                try store.commit([try store.library.makeAddList(name: "Twice?")])
                store.compact()
                #expect(failLogRestart.withLock { $0.failed })
                #expect(try logRecords(directory.logPath).map(\.sequence) == [1, 2, 3, 4, 5])
                #expect(
                    try LibraryCoding.decode(Array(FileSnapshot(directory.storePath).bytes), path: "").logSequence == 5
                )
                let saved = store.library
                let reopened = try reopenAfterCrash(store, directory)
                defer { reopened.close() }
                #expect(reopened.library == saved)
            }
        }

        /// A snapshot that fails to be written (any step before its rename) changes nothing: the log still holds
        /// every change, and the store goes on taking commits.
        @Test(arguments: [StoreFaults.Step.create, .write, .flush, .close, .rename])
        func aSnapshotThatFailsKeepsTheLog(step: StoreFaults.Step) throws {
            try withTemporaryDirectory { directory in
                try ChecklistStore.open(path: directory.storePath).close()  // Opening an existing store replaces nothing.
                let failed = Mutex(false)
                let notices = Mutex<[String]>([])
                let store = try ChecklistStore.open(
                    path: directory.storePath,
                    options: StoreOptions { notice in notices.withLock { $0.append(notice) } },
                    faults: StoreFaults { tried throws(Errno) in
                        if tried == step,
                            failed.withLock({ done in
                                defer { done = true }
                                return !done
                            })
                        {
                            throw .noSpace
                        }
                    }
                )
                try addItems(2, to: store)
                store.compact()
                #expect(notices.withLock { $0.first?.hasPrefix("could not compact store") == true })
                #expect(try logRecords(directory.logPath).map(\.sequence) == [1, 2])
                try addItems(1, to: store)
                let saved = store.library
                let reopened = try reopenAfterCrash(store, directory)
                defer { reopened.close() }
                #expect(reopened.library == saved)
            }
        }

        // MARK: Interoperation

        /// The snapshot stays a plain property list: Python's plistlib reads it, with every item.
        @Test func pythonsPlistlibReadsTheSnapshot() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try addItems(3, to: store)
                store.close()
                let python = Process()
                python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                python.arguments = [
                    "python3", "-c",
                    """
                    import plistlib, sys
                    root = plistlib.load(open(sys.argv[1], 'rb'))
                    items = [item for lst in root['lists'] for item in lst['items']]
                    print(root['formatVersion'], root['logSequence'], root['nextItemID'], \
                    ' '.join(item['text'] for item in items))
                    """,
                    directory.storePath,
                ]
                let output = Pipe()
                python.standardOutput = output
                try python.run()
                let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                python.waitUntilExit()
                #expect(python.terminationStatus == 0)
                #expect(printed == "\(StoreSchema.currentVersion) 3 4 item 0 item 1 item 2\n")
            }
        }
    }
}

// MARK: Helpers

/// Puts a store an earlier build wrote (`Fixtures/NAME`: the snapshot, its log and its history) where a test opens it.
func copyFixture(_ name: String, to directory: TemporaryDirectory) throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/" + name)
    for suffix in ["", ".log", ".events"] {
        try FileManager.default.copyItem(
            at: fixture.appendingPathComponent("Checklists.plist" + suffix),
            to: URL(fileURLWithPath: directory.storePath + suffix)
        )
    }
}

/// The top-level dictionary of a snapshot, read by Foundation's own property-list reader.
func storedRoot(_ path: String) throws -> [String: Any]? {
    try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: path)), format: nil)
        as? [String: Any]
}

/// The records in a log file, read as `open` reads them.
func logRecords(_ path: String) throws -> [LogRecord] {
    var records: [LogRecord] = []
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let torn = try ChangeLogFormat.scan(bytes, path: path) { record, _ in records.append(record) }
    #expect(torn == nil)
    return records
}

/// Closes `store` as a `kill -9` would (its files as they were, not compacted) and opens it again.
func reopenAfterCrash(_ store: ChecklistStore, _ directory: TemporaryDirectory) throws -> ChecklistStore {
    let files = try CrashedFiles(directory)
    store.close()
    try files.restore()
    return try ChecklistStore.open(path: directory.storePath)
}

/// The snapshot and the log as they are while a store is open, before `close` compacts: what a `kill -9` would
/// leave. `restore` puts them back after the store is closed, the log maybe cut or replaced.
private struct CrashedFiles {
    let directory: TemporaryDirectory
    let snapshot: [UInt8]
    let log: [UInt8]

    init(_ directory: TemporaryDirectory) throws {
        self.directory = directory
        snapshot = Array(try Data(contentsOf: URL(fileURLWithPath: directory.storePath)))
        log = Array(try Data(contentsOf: URL(fileURLWithPath: directory.logPath)))
    }

    func restore(logPrefix: Int? = nil) throws {
        try restore(log: Array(log.prefix(logPrefix ?? log.count)))
    }

    func restore(log: [UInt8]) throws {
        try Data(snapshot).write(to: URL(fileURLWithPath: directory.storePath))
        try Data(log).write(to: URL(fileURLWithPath: directory.logPath))
    }
}

/// Holds a compaction at its snapshot's flush until released, so a test can commit while it is under way.
private final class SnapshotGate: Sendable {
    private let state = Mutex((armed: false, held: false, released: false))
    private let heldSignal = AsyncStream<Void>.makeStream()

    var faults: StoreFaults {
        StoreFaults { [self] step throws(Errno) in
            guard step == .flush else { return }
            let hold = state.withLock { state in
                guard state.armed, !state.held else { return false }
                state.held = true
                return true
            }
            guard hold else { return }
            heldSignal.continuation.yield()
            while !state.withLock({ $0.released }) { sched_yield() }
        }
    }

    func holdNextFlush() { state.withLock { $0.armed = true } }

    func waitUntilHeld() async {
        var iterator = heldSignal.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    func release() { state.withLock { $0.released = true } }
}
