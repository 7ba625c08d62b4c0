import DequeModule
import Foundation
import NudgeCore
import NudgeSystem
import Synchronization
import SystemPackage

/// Every scheduler decision, kept beside the store for `GET /v1/events` and for watchers that reconnect: two files,
/// `Checklists.plist.events` and, once that one has held `limits.count` events, the one before it,
/// `Checklists.plist.events.previous`. Each is `RecordFraming` with the header `nudgeevt`, one record per commit
/// that decided anything: the events' first ID, count and last instant (24 bytes), then the events as a binary
/// property list.
///
/// A record is written before its commit's change-log record and flushed only at compaction, rotation and close:
/// the change log makes the events durable, and opening copies from it what a crash kept out of the history. Reads
/// see only events whose commit is durable. Memory holds an index of the records (offset, IDs, last instant), never
/// the events.
final class EventHistory: Sendable {
    let path: String
    var previousPath: String { path + ".previous" }
    let limits: HistoryLimits
    private let state: Mutex<State>

    static let framing = RecordFraming(
        header: Array("nudgeevt".utf8) + [1, 0, 0, 0],
        damaged: StoreError.damagedHistory
    )
    /// The first ID, count and last instant ahead of each record's property list.
    private static let prefixSize = 24

    /// One record's place and what it holds.
    private struct Record: Sendable {
        var offset: Int
        var length: Int
        var firstID: Int
        var lastID: Int
        var lastAt: Date
    }

    /// One open file of the history. A reader holding it can finish reading after a rotation removed its name.
    private final class File: Sendable {
        let descriptor: FileDescriptor
        init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }
        deinit { try? descriptor.close() }
    }

    private struct Part: Sendable {
        var file: File
        var records: Deque<Record> = []
        var length: Int
        var eventCount: Int { records.reduce(0) { $0 + $1.lastID - $1.firstID + 1 } }
    }

    private struct State: Sendable {
        var current: Part
        var previous: Part?
        /// Events in `current`, kept as a count so an append need not add them up.
        var currentCount: Int
        /// The last event ID written, durable or not.
        var written: Int
        /// The last event ID whose commit is durable: reads stop there.
        var durable: Int
    }

    private init(path: String, limits: HistoryLimits, state: State) {
        self.path = path
        self.limits = limits
        self.state = Mutex(state)
    }

    // MARK: Opening

    /// Opens the history at `path`, creating it when missing, so that it holds every event before `nextEventID`
    /// that it can: records a crash wrote ahead of their commit are cut off, and events the change log holds that
    /// a crash kept out of the history (`logged`) are copied in. A file damaged before its end is set aside, and a
    /// note says so: the history is a record of decisions, not the checklists, so it never stops nudged.
    static func open(
        path: String,
        limits: HistoryLimits,
        nextEventID: Int,
        logged: [ReminderEvent]
    ) throws(StoreError) -> (history: EventHistory, notes: [String]) {
        var notes: [String] = []
        var previous = try openPart(path: path + ".previous", create: false, notes: &notes)
        var current = try openPart(path: path, create: true, notes: &notes)!
        let durable = nextEventID - 1
        // Written ahead of a commit that never became durable: never acknowledged, never read by anyone.
        if let firstUnacknowledged = current.records.firstIndex(where: { $0.lastID > durable }) {
            let offset = current.records[firstUnacknowledged].offset
            current.records.removeSubrange(firstUnacknowledged...)
            try cut(&current, to: offset, path: path)
        }
        if let first = previous?.records.first, first.firstID > durable { previous = nil }
        let written = current.records.last?.lastID ?? previous?.records.last?.lastID ?? 0
        let missing = logged.filter { $0.id > written && $0.id <= durable }
        if let first = missing.first {
            if first.id > written + 1 {
                notes.append(
                    "event history \(path): events \(written + 1) to \(first.id - 1) were lost (a history file was "
                        + "removed or set aside); the history goes on after them"
                )
            }
            try append(missing, to: &current, path: path)
            do {
                try SystemCall.fdatasync(current.file.descriptor)
            } catch {
                throw .writeFailed(path: path, step: "flushing event history \(path)", errno: error)
            }
        }
        // Every event before `nextEventID` is durable, whether or not the history still holds it.
        let state = State(
            current: current,
            previous: previous,
            currentCount: current.eventCount,
            written: durable,
            durable: durable
        )
        return (EventHistory(path: path, limits: limits, state: state), notes)
    }

    /// For `--check-store`: what each history file holds, read without changing anything.
    static func describe(path: String) -> [String] {
        var lines: [String] = []
        for file in [path + ".previous", path] {
            do throws(StoreError) {
                guard let bytes = try StoreFile(path: file).read(limit: ChecklistStore.maximumLogSize) else { continue }
                var first: Int?
                var last = 0
                var count = 0
                let torn = try framing.scan(bytes, path: file) { payload, offset throws(StoreError) in
                    let record = try record(payload, at: offset, path: file)
                    first = first ?? record.firstID
                    last = record.lastID
                    count += record.lastID - record.firstID + 1
                }
                lines.append(
                    "event history \(file): \(count) events" + (first.map { ", IDs \($0) to \(last)" } ?? "")
                        + (torn.map {
                            "; \($0.length) bytes at byte \($0.offset) (\($0.reason)) are cut off at the next start"
                        } ?? "")
                )
            } catch {
                lines.append("\(error.description); the next start sets it aside and starts a new history")
            }
        }
        return lines
    }

    /// Reads one file of the history and opens it for appending; nil when it is missing and not to be created.
    private static func openPart(path: String, create: Bool, notes: inout [String]) throws(StoreError) -> Part? {
        let bytes = try StoreFile(path: path).read(limit: ChecklistStore.maximumLogSize)
        var records: Deque<Record> = []
        var length = framing.header.count
        if let bytes {
            do throws(StoreError) {
                let torn = try framing.scan(bytes, path: path) { payload, offset throws(StoreError) in
                    records.append(try record(payload, at: offset, path: path))
                }
                length = bytes.count - (torn?.length ?? 0)
            } catch {
                let aside = path + ".damaged"
                do {
                    try SystemCall.rename(path, to: aside)
                } catch {
                    throw .setupFailed(path: path, step: "setting damaged event history \(path) aside", errno: error)
                }
                notes.append("\(error.description); it was renamed \(aside), and a new history started")
                records = []
                guard create else { return nil }
                return try openPart(path: path, create: true, notes: &notes)
            }
        } else if !create {
            return nil
        }
        let descriptor = try StoreFile.openForUpdate("event history", at: path, creating: true)
        var part = Part(file: File(descriptor), records: records, length: length)
        if bytes == nil {
            do {
                _ = try SystemCall.typed { try descriptor.writeAll(toAbsoluteOffset: 0, framing.header) }
            } catch {
                throw .setupFailed(path: path, step: "starting event history \(path)", errno: error)
            }
        } else if bytes!.count != length {
            try cut(&part, to: length, path: path)
        }
        return part
    }

    private static func record(_ payload: ArraySlice<UInt8>, at offset: Int, path: String) throws(StoreError) -> Record
    {
        guard payload.count > prefixSize else {
            throw .damagedHistory(
                path: path,
                offset: offset,
                problem: "a record of \(payload.count) bytes is too short"
            )
        }
        let start = payload.startIndex
        let firstID = Int(truncatingIfNeeded: readUInt64(payload, at: start))
        let count = Int(truncatingIfNeeded: readUInt64(payload, at: start + 8))
        let lastAt = Date(timeIntervalSince1970: Double(bitPattern: readUInt64(payload, at: start + 16)))
        guard firstID >= 1, count >= 1, firstID <= ChecklistLibrary.maximumID - count else {
            throw .damagedHistory(
                path: path,
                offset: offset,
                problem: "a record claims events \(firstID) and \(count) on"
            )
        }
        return Record(
            offset: offset,
            length: payload.count + RecordFraming.frameHeaderSize,
            firstID: firstID,
            lastID: firstID + count - 1,
            lastAt: lastAt
        )
    }

    private static func cut(_ part: inout Part, to offset: Int, path: String) throws(StoreError) {
        do throws(Errno) {
            try SystemCall.typed { try part.file.descriptor.resize(to: Int64(offset)) }
            try SystemCall.fdatasync(part.file.descriptor)
        } catch {
            throw .setupFailed(
                path: path,
                step: "cutting the unacknowledged end off event history \(path)",
                errno: error
            )
        }
        part.length = offset
    }

    /// Writes `events` (consecutive IDs) as one record at the end of `part`, unflushed.
    private static func append(_ events: [ReminderEvent], to part: inout Part, path: String) throws(StoreError) {
        let list = try LibraryCoding.encode(events.map(StoredEvent.init), path: path)
        var payload = Data(capacity: prefixSize + list.count)
        for word in [UInt64(events[0].id), UInt64(events.count), events.last!.at.timeIntervalSince1970.bitPattern] {
            withUnsafeBytes(of: word.littleEndian) { payload.append(contentsOf: $0) }
        }
        payload.append(list)
        let bytes = RecordFraming.frame(payload)
        do {
            _ = try SystemCall.typed {
                try part.file.descriptor.writeAll(toAbsoluteOffset: Int64(part.length), bytes)
            }
        } catch {
            // Cut back, so a later record follows a sound one. Should that fail too, opening cuts what follows the
            // last durable event.
            _ = try? SystemCall.typed { try part.file.descriptor.resize(to: Int64(part.length)) }
            throw .writeFailed(path: path, step: "appending to event history \(path)", errno: error)
        }
        part.records.append(
            Record(
                offset: part.length,
                length: bytes.count,
                firstID: events[0].id,
                lastID: events.last!.id,
                lastAt: events.last!.at
            )
        )
        part.length += bytes.count
    }

    private static func readUInt64(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
    }

    // MARK: Writing (under the store's lock, one commit at a time)

    /// Writes one commit's events, ahead of its change-log record; they are read only once `acknowledge` says the
    /// commit is durable. Returns where to cut back to if the commit fails.
    func write(_ events: [ReminderEvent]) throws(StoreError) -> Int {
        try state.withLock { (state: inout State) throws(StoreError) -> Int in
            let offset = state.current.length
            try Self.append(events, to: &state.current, path: path)
            state.currentCount += events.count
            state.written = events.last!.id
            return offset
        }
    }

    /// The commit whose events were written at `offset` failed: they never happened.
    func cutBack(to offset: Int) {
        state.withLock { state in
            guard let index = state.current.records.firstIndex(where: { $0.offset >= offset }) else { return }
            let removed = state.current.records[index...].reduce(0) { $0 + $1.lastID - $1.firstID + 1 }
            state.current.records.removeSubrange(index...)
            state.currentCount -= removed
            state.written = state.durable
            // If the cut fails, the next append writes over the same bytes; opening cuts anything past the last
            // durable event anyway.
            _ = try? SystemCall.typed { try state.current.file.descriptor.resize(to: Int64(offset)) }
            state.current.length = offset
        }
    }

    /// The events written so far are durable (their change-log record is flushed). Starts a new file when the
    /// current one holds `limits.count` events; returns a note if that failed (the history goes on in the old one).
    func acknowledge() -> String? {
        state.withLock { state in
            state.durable = state.written
            guard state.currentCount >= limits.count else { return nil }
            do throws(StoreError) {
                try rotate(&state)
                return nil
            } catch {
                return "could not start a new event history file (\(error)); events go on into \(path)"
            }
        }
    }

    /// Flushes what was written: before the change log that made it durable is restarted, and at close.
    func sync() throws(StoreError) {
        let file = state.withLock { $0.current.file }
        do {
            try SystemCall.fdatasync(file.descriptor)
        } catch {
            throw .writeFailed(path: path, step: "flushing event history \(path)", errno: error)
        }
    }

    /// The current file becomes the previous one (the one before is removed), and a new, empty one is started.
    private func rotate(_ state: inout State) throws(StoreError) {
        let directory = FilePath(path).removingLastComponent().string
        do throws(Errno) {
            try SystemCall.fdatasync(state.current.file.descriptor)
            try SystemCall.rename(path, to: previousPath)
            try SystemCall.syncDirectory(directory.isEmpty ? "." : directory)
        } catch {
            throw .writeFailed(path: path, step: "rotating event history \(path)", errno: error)
        }
        var notes: [String] = []
        guard let fresh = try Self.openPart(path: path, create: true, notes: &notes) else { return }
        state.previous = state.current
        state.current = fresh
        state.currentCount = 0
    }

    // MARK: Reading

    /// Up to `limit` events after `after` that `matches` accepts, looking at no more than `scanLimit` events (so
    /// a page with a narrow filter costs the same as any other; `next` says where to go on). Only durable events
    /// within the limits are read; `dropped` counts those after `after` that are no longer kept.
    func page(
        after: Int,
        limit: Int,
        scanLimit: Int = 50_000,
        matching matches: (ReminderEvent) -> Bool = { _ in true }
    ) throws(StoreError) -> EventPage {
        let (records, durable, firstKept, truncated) = state.withLock { state in
            // Found by binary search, so a page costs what it reads, whatever the history holds.
            let parts = [state.previous, state.current].compactMap { $0 }
            let durable = state.durable
            let latestAt = parts.last?.records.last { $0.lastID <= durable }?.lastAt ?? .distantPast
            let cutoff = latestAt - limits.age
            let byAge = parts.lazy.compactMap { part in
                let index = Self.firstIndex(in: part.records) { $0.lastAt >= cutoff }
                return index < part.records.count ? part.records[index].firstID : nil
            }.first
            let firstKept = max(
                durable - limits.count + 1,
                byAge ?? durable + 1,
                parts.first?.records.first?.firstID ?? durable + 1,
                1
            )
            // `after` comes from a client: past the latest event, there is nothing to read (and no `after + 1`).
            let start = after < durable ? max(after + 1, firstKept) : durable + 1
            var wanted: [(File, Record)] = []
            var selected = 0
            var truncated = false
            for part in parts {
                var index = Self.firstIndex(in: part.records) { $0.lastID >= start }
                while index < part.records.count, part.records[index].firstID <= durable {
                    guard selected < scanLimit else {
                        truncated = true
                        break
                    }
                    let record = part.records[index]
                    wanted.append((part.file, record))
                    selected += record.lastID - max(record.firstID, start) + 1
                    index += 1
                }
            }
            return (wanted, durable, firstKept, truncated)
        }
        let dropped = max(0, firstKept - 1 - after)
        var events: [ReminderEvent] = []
        var scanned = 0
        for (file, record) in records {
            let bytes: [UInt8]
            do {
                bytes = try SystemCall.read(file.descriptor, count: record.length, at: record.offset)
            } catch {
                throw .readFailed(path: path, errno: error)
            }
            let list = bytes.dropFirst(RecordFraming.frameHeaderSize + Self.prefixSize)
            let decoded: [ReminderEvent]
            do {
                decoded = try PropertyListDecoder().decode([StoredEvent].self, from: Data(list)).map(\.event)
            } catch {
                throw .damagedHistory(path: path, offset: record.offset, problem: "a record does not decode: \(error)")
            }
            for event in decoded where event.id > after && event.id >= firstKept && event.id <= durable {
                scanned += 1
                if matches(event) { events.append(event) }
                if events.count == limit || scanned == scanLimit {
                    return EventPage(
                        events: events,
                        next: event.id < durable ? event.id : nil,
                        dropped: dropped,
                        latest: durable
                    )
                }
            }
        }
        let lastRead = records.last.map { min($0.1.lastID, durable) }
        return EventPage(events: events, next: truncated ? lastRead : nil, dropped: dropped, latest: durable)
    }

    /// The first index whose record `isAtOrPast` accepts, in records ordered so that it holds from some point on.
    private static func firstIndex(in records: Deque<Record>, where isAtOrPast: (Record) -> Bool) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrPast(records[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
