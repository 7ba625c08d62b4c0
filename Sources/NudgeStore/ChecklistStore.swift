import Foundation
import NudgeCore
import NudgeSystem
import Synchronization

/// The durable home of the checklists: a snapshot (`Checklists.plist`, a binary property list) and a change log
/// beside it (`Checklists.plist.log`), locked against a second opener. A commit appends one record to the log and
/// flushes it, so its cost does not grow with the store; now and then the snapshot is rewritten from memory and
/// the log restarted (compaction), on a thread of its own while commits go on. docs/STORE.md describes the files
/// and what a crash at each step leaves.
///
/// `library` only ever shows what is already safely on disk.
public final class ChecklistStore: DurableStore {
    /// The largest snapshot that is read, or written: about five million items. It bounds what a damaged or hostile
    /// file can cost.
    public static let maximumFileSize: Int = 512 << 20
    /// The largest change log that is read. Compaction keeps it far below this.
    public static let maximumLogSize: Int = 512 << 20

    /// The snapshot, `.../Checklists.plist`.
    public let path: String
    /// The lock file beside it; the snapshot and the log are replaced by rename, so neither can carry the lock.
    public var lockPath: String { path + ".lock" }
    /// What opening found and did that a person should hear of: a torn record cut off, an older layout upgraded.
    public let openingNotes: [String]

    private let snapshotFile: StoreFile
    private let logFile: StoreFile
    private let history: EventHistory
    private let options: StoreOptions
    private let faults: StoreFaults
    /// Held for a whole commit, so commits run one at a time, and readers never see a change before it is durable.
    private let state: Mutex<State>
    /// Held for a whole compaction, so compactions run one at a time and `close` waits for one under way.
    private let compacting = Mutex<Void>(())
    /// Whether a compaction thread has been started and not yet finished: one at a time is enough.
    private let compactionStarted = Atomic<Bool>(false)

    private struct State: ~Copyable {
        /// Nil once closed.
        var lock: StoreLock?
        var log: ChangeLogFile
        var library: ChecklistLibrary
        /// The last record in the log (or in the snapshot, when the log holds none after it).
        var sequence: Int
        /// The log length at which the next compaction starts.
        var compactAt: Int
        /// Why nobody can say what the log holds any more; no more commits are taken until nudged restarts.
        var broken: StoreError?
    }

    private init(
        snapshotFile: StoreFile,
        logFile: StoreFile,
        history: EventHistory,
        options: StoreOptions,
        faults: StoreFaults,
        state: consuming State,
        openingNotes: [String]
    ) {
        path = snapshotFile.path
        self.snapshotFile = snapshotFile
        self.logFile = logFile
        self.history = history
        self.options = options
        self.faults = faults
        self.state = Mutex(state)
        self.openingNotes = openingNotes
    }

    deinit {
        close()
    }

    /// Locks, then loads the snapshot and replays the log after it. A missing store starts a new library (one list
    /// "Inbox"), written durably before this returns; so does the log. A missing directory is created with mode
    /// 0700. A record a crash left half-written at the end of the log is cut off (and said in `openingNotes`); a
    /// store in an older layout is rewritten in the current one.
    ///
    /// A store that cannot be read is left exactly as it is, and so are any temporary files beside it: the error
    /// says what is wrong and what to do.
    public static func open(path: String, options: StoreOptions = StoreOptions()) throws(StoreError) -> ChecklistStore {
        try open(path: path, options: options, faults: .none)
    }

    /// `open(path:options:)`, with faults injected into every write.
    static func open(path: String, options: StoreOptions = StoreOptions(), faults: StoreFaults) throws(StoreError)
        -> ChecklistStore
    {
        let snapshotFile = StoreFile(path: path, faults: faults)
        let logFile = StoreFile(path: path + ".log", faults: faults)
        try snapshotFile.createDirectory()
        let lock = try StoreLock.acquire(lockPath: path + ".lock", storePath: path)
        do throws(StoreError) {
            let loaded = try StoreContent.load(snapshot: snapshotFile, log: logFile)
            // We hold the lock, so no writer is alive: anything half-written is a crash's leftover.
            try snapshotFile.removeCrashLeftovers()
            try logFile.removeCrashLeftovers()
            // Before the log may be started afresh below: it may hold events a crash kept out of the history.
            let (history, historyNotes) = try EventHistory.open(
                path: path + ".events",
                limits: options.historyLimits,
                nextEventID: loaded.library.nextEventID,
                logged: loaded.loggedEvents
            )
            var notes = historyNotes
            let current = loaded.snapshotVersion == StoreSchema.currentVersion
            if !current {
                // A new store, or an older layout: write the current one, which includes all the log holds.
                try writeSnapshot(
                    StoreSnapshot(library: loaded.library, logSequence: loaded.sequence),
                    to: snapshotFile
                )
                if let version = loaded.snapshotVersion {
                    notes.append(
                        "store \(path) upgraded from format version \(version) to \(StoreSchema.currentVersion)"
                    )
                }
            }
            let length: Int
            if current, let kept = loaded.logLength {
                length = kept
                if let torn = loaded.tornTail {
                    notes.append(
                        "change log \(logFile.path): cut off \(torn.length) bytes at byte \(torn.offset) "
                            + "(\(torn.reason)): a record a crash left half-written, never acknowledged to anyone"
                    )
                }
            } else {
                // No log yet, or one the new snapshot already holds: start it empty.
                try logFile.replace(with: Data(ChangeLogFormat.header))
                length = ChangeLogFormat.header.count
            }
            let log = try ChangeLogFile.open(path: logFile.path, length: length, faults: faults)
            let state = State(
                lock: lock,
                log: log,
                library: loaded.library,
                sequence: loaded.sequence,
                compactAt: length + options.compactionThreshold
            )
            return ChecklistStore(
                snapshotFile: snapshotFile,
                logFile: logFile,
                history: history,
                options: options,
                faults: faults,
                state: state,
                openingNotes: notes
            )
        } catch {
            lock.release()
            throw error
        }
    }

    /// The checklists as last saved.
    public var library: ChecklistLibrary {
        state.withLock { $0.library }
    }

    /// Applies the changes, in order, and appends them and the events decided with them (numbered, after every
    /// event committed before) to the log as one record, flushed to the device; `library` shows them, and `events`
    /// the events, once that is done. Blocks for the write, the flush included. May start a compaction, which runs on
    /// a thread of its own.
    ///
    /// On a failure the store keeps its last durable content and `library` shows it, except when the outcome is
    /// unknown (`.outcomeUnknown`): then `library` shows what the files now hold, and no further commit is taken.
    /// Nothing to commit writes nothing.
    public func commit(_ changes: [ChecklistChange], events: [ReminderEvent] = []) throws(StoreError) {
        let (compactionDue, note) = try state.withLock { (state: inout State) throws(StoreError) -> (Bool, String?) in
            guard state.lock != nil else { throw .closed(path: path) }
            if let broken = state.broken { throw .notWritten(path: path, after: broken) }
            guard !changes.isEmpty || !events.isEmpty else { return (false, nil) }
            // Applied in place, where nobody else holds the library, so a change costs the same at any size. A
            // failure below reloads what is durable instead of undoing.
            for (index, change) in changes.enumerated() {
                do throws(ModelError) {
                    try state.library.apply(change)
                } catch {
                    reloadAfterFailure(&state)
                    throw .rejectedChange(path: path, index: index, count: changes.count, error: error)
                }
            }
            if let last = events.last {
                state.library.raiseCounters(nextItemID: 0, nextListID: 0, nextEventID: last.id + 1)
            }
            let record = LogRecord(
                sequence: state.sequence + 1,
                nextItemID: state.library.nextItemID,
                nextListID: state.library.nextListID,
                nextEventID: state.library.nextEventID,
                changes: changes,
                events: events
            )
            var historyOffset: Int?
            do throws(StoreError) {
                if !events.isEmpty { historyOffset = try history.write(events) }
                let bytes = try ChangeLogFormat.frame(record, path: path)
                let payloadSize = bytes.count - RecordFraming.frameHeaderSize
                guard payloadSize <= RecordFraming.maximumPayloadSize else {
                    throw .wouldBeTooLarge(path: path, size: payloadSize, limit: RecordFraming.maximumPayloadSize)
                }
                try state.log.append(bytes, storePath: path)
            } catch {
                if let historyOffset { history.cutBack(to: historyOffset) }
                if error.code == .outcomeUnknown { state.broken = error }
                reloadAfterFailure(&state)
                throw error
            }
            state.sequence = record.sequence
            return (state.log.length >= state.compactAt, events.isEmpty ? nil : history.acknowledge())
        }
        if let note { options.notice(note) }
        if compactionDue { compactInBackground() }
    }

    /// A page of the event history: up to `limit` durable events after event `after` that `matches` accepts,
    /// looking at no more than `scanLimit`.
    public func events(
        after: Int,
        limit: Int,
        scanLimit: Int = 50_000,
        matching matches: (ReminderEvent) -> Bool = { _ in true }
    ) throws(StoreError) -> EventPage {
        try history.page(after: after, limit: limit, scanLimit: scanLimit, matching: matches)
    }

    /// Compacts what the log holds into the snapshot, then releases the lock; later commits throw `.closed`. Waits
    /// for a commit or a compaction in flight. Also done on deinit.
    public func close() {
        compacting.withLock { _ in
            if state.withLock({ (state: inout State) in
                state.lock != nil && state.log.length > ChangeLogFormat.header.count
            }) {
                compactHoldingTurn()
            }
            state.withLock { state in
                // Once only: a second close of the log's descriptor could close a file opened since.
                guard let lock = state.lock else { return }
                // The log holds these events too, but the next open would have to copy them from it.
                try? history.sync()
                lock.release()
                state.lock = nil
                state.log.close()
            }
        }
    }

    /// Rewrites the snapshot from memory and restarts the log, now, on the caller's thread; commits go on meanwhile.
    /// For tests and tools: commits start one on their own past `StoreOptions.compactionThreshold`.
    public func compact() {
        compacting.withLock { _ in compactHoldingTurn() }
    }

    /// Figures for `nudged --check-store` and the benchmarks: the log's size and records since the snapshot.
    public var logLength: Int { state.withLock { $0.log.length } }

    // MARK: Private

    private func compactInBackground() {
        guard !compactionStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startThread(named: "nudged-compact") { [self] in
            compact()
            compactionStarted.store(false, ordering: .releasing)
        }
    }

    /// One compaction; the caller holds `compacting`. The snapshot is written from a copy of the library taken at a
    /// record boundary, outside the commit lock; only the log's restart (copying the records appended meanwhile)
    /// holds it. A crash at any step leaves a snapshot and a log that together hold every acknowledged change once:
    /// the snapshot names its last record, and replay skips records up to it.
    private func compactHoldingTurn() {
        let taken = state.withLock { (state: inout State) -> (snapshot: StoreSnapshot, logOffset: Int)? in
            guard state.lock != nil, state.broken == nil else { return nil }
            return (StoreSnapshot(library: state.library, logSequence: state.sequence), state.log.length)
        }
        guard let (snapshot, logOffset) = taken else { return }
        let started = ContinuousClock.now
        do throws(StoreError) {
            // The events of the records the restarted log will no longer hold must be durable in the history.
            try history.sync()
            try Self.writeSnapshot(snapshot, to: snapshotFile)
            try state.withLock { (state: inout State) throws(StoreError) in
                try restartLog(&state, keepingFrom: logOffset)
            }
            let items = snapshot.library.itemCount
            options.notice(
                "compacted store \(path): snapshot of \(items) items through record \(snapshot.logSequence) "
                    + "written in \(started.duration(to: .now).formatted(.units(allowed: [.seconds, .milliseconds])))"
            )
        } catch {
            state.withLock { $0.compactAt = $0.log.length + options.compactionThreshold }
            options.notice(
                "could not compact store \(path) (\(error)); the change log keeps every change and is compacted "
                    + "again after another \(options.compactionThreshold) bytes"
            )
        }
    }

    /// Replaces the log with one holding only the records after `offset` (those appended while the snapshot was
    /// written), and appends to it from now on.
    private func restartLog(_ state: inout State, keepingFrom offset: Int) throws(StoreError) {
        let kept: [UInt8]
        do {
            kept = try state.log.bytes(from: offset)
        } catch {
            throw .readFailed(path: state.log.path, errno: error)
        }
        do throws(StoreError) {
            try logFile.replace(with: Data(ChangeLogFormat.header + kept))
        } catch {
            // The old log may no longer be the one at the path: appending to it could be lost.
            if error.code == .outcomeUnknown { state.broken = error }
            throw error
        }
        do throws(StoreError) {
            let length = ChangeLogFormat.header.count + kept.count
            let restarted = try ChangeLogFile.open(path: logFile.path, length: length, faults: faults)
            state.log.close()
            state.log = restarted
            state.compactAt = length + options.compactionThreshold
        } catch {
            state.broken = error
            throw error
        }
    }

    /// A commit failed part way: what is in memory may be ahead of the files, so read them again. If even that
    /// fails, no more commits are taken.
    private func reloadAfterFailure(_ state: inout State) {
        do throws(StoreError) {
            let loaded = try StoreContent.load(snapshot: snapshotFile, log: logFile)
            state.library = loaded.library
            state.sequence = loaded.sequence
        } catch {
            state.broken = state.broken ?? error
        }
    }

    private static func writeSnapshot(_ snapshot: StoreSnapshot, to file: StoreFile) throws(StoreError) {
        let bytes = try LibraryCoding.encode(snapshot, path: file.path)
        // Never write a file that `open` would refuse to read back.
        guard bytes.count <= maximumFileSize else {
            throw .wouldBeTooLarge(path: file.path, size: bytes.count, limit: maximumFileSize)
        }
        try file.replace(with: bytes)
    }
}
