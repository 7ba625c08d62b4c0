import Foundation
import Logging
import NudgeAPI
import NudgeCore
import NudgeSinks
import Synchronization
import SystemPackage
import Testing

@testable import NudgeDaemon
@testable import NudgeStore

/// The service as a unit: a clock that moves only when told, a store in memory whose writes can fail, a sink that
/// records, a timer that records what it was asked. No socket, no file, no sleeping: `stop()` lets the sinks finish
/// what they were handed before anything is read from them.
@Suite struct ReminderServiceTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// One service and what it talks to.
    struct Rig {
        let clock = ManualWallClock(ReminderServiceTests.t0)
        let store: MemoryStore
        let sink = RecordSink()
        let timer = RecordingTimer()
        let service: ReminderService

        init(library: ChecklistLibrary = ChecklistLibrary(), catchUpWindow: TimeInterval = 3600) async throws {
            store = MemoryStore(library)
            let timer = timer
            service = ReminderService(
                store: store,
                clock: clock,
                catchUpWindow: catchUpWindow,
                sinks: [sink],
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                timer: { _ in timer }
            )
            try await service.start()
        }

        func add(_ text: String, dueIn seconds: TimeInterval) async throws -> Int {
            let due = Instant(clock.now() + seconds)
            return try await service.addItem(.init(text: text, dueDate: due)).itemID
        }

        /// Everything the sink was handed, once the service has stopped.
        func stopAndRecord() async -> [RecordSink.Entry] {
            await service.stop()
            return sink.entries
        }
    }

    @Test func anEditReplacesThePendingReminderAndTheTimerFollowsTheScheduler() async throws {
        let rig = try await Rig()
        let itemID = try await rig.add("water the plants", dueIn: 60)
        _ = try await rig.service.editItem(itemID, ItemPatch(ItemEdit(dueDate: Self.t0 + 120)))

        #expect(await rig.service.pending.map(\.due) == [Self.t0 + 120])
        // At start nothing is pending: disarmed.
        #expect(rig.timer.arms == [nil, Self.t0 + 60, Self.t0 + 120])
        let kinds = await rig.stopAndRecord().compactMap(\.eventKind)
        #expect(kinds == [.scheduled, .replaced])
        #expect(rig.store.library.item(id: itemID)?.dueDate == Self.t0 + 120)
    }

    @Test func checkingOffCancelsWithdrawsAndDisarms() async throws {
        let rig = try await Rig()
        let itemID = try await rig.add("call mum", dueIn: 60)
        _ = try await rig.service.editItem(itemID, ItemPatch(ItemEdit(checked: true)))

        #expect(await rig.service.pending.isEmpty)
        #expect(rig.timer.arms == [nil, Self.t0 + 60, nil])
        let entries = await rig.stopAndRecord()
        #expect(entries.contains(.withdrawn(itemID: itemID)))
        #expect(entries.compactMap(\.eventKind) == [.scheduled, .cancelled])
    }

    @Test func aReminderFiresOnceWhenTheClockPassesItsInstant() async throws {
        let rig = try await Rig()
        let itemID = try await rig.add("stretch", dueIn: 60)
        rig.clock.advance(by: 59)
        await rig.service.advance()
        #expect(await rig.service.pending.count == 1, "fired early")
        rig.clock.advance(by: 1)
        await rig.service.advance()
        await rig.service.advance()

        #expect(await rig.service.pending.isEmpty)
        #expect(rig.store.library.item(id: itemID)?.lastFiredAt != nil, "the firing was not recorded durably")
        let deliveries = await rig.stopAndRecord().compactMap(\.delivery)
        #expect(deliveries.map(\.reminder.itemID) == [itemID])
        #expect(deliveries.first?.isLate == false)
    }

    @Test func atStartADueReminderWithinTheWindowFiresLateAndAnOlderOneIsMissed() async throws {
        var library = ChecklistLibrary()
        for (text, due) in [("recent", Self.t0 - 600), ("old", Self.t0 - 7200)] {
            try library.apply(
                library.makeAddItem(text: text, listID: 1, dueDate: due, shouldRemind: true, now: Self.t0 - 9000)
            )
        }
        let rig = try await Rig(library: library, catchUpWindow: 3600)
        let entries = await rig.stopAndRecord()

        #expect(entries.compactMap(\.delivery).map(\.reminder.text) == ["recent"])
        #expect(entries.compactMap(\.delivery).first?.isLate == true)
        let missed = entries.compactMap { entry -> String? in
            if case .observed(let event) = entry, event.kind == .missed { event.text } else { nil }
        }
        #expect(missed == ["old"])
        // Both are recorded as handled, so a restart repeats neither.
        #expect(rig.store.library.lists[0].items.allSatisfy { $0.lastFiredAt != nil })
    }

    @Test func aFailedWriteIsRefusedChangesNothingAndKeepsWhatWasPending() async throws {
        let rig = try await Rig()
        let keptID = try await rig.add("kept", dueIn: 60)
        rig.store.failNextCommit()
        await #expect(throws: StoreError.self) { try await rig.add("lost", dueIn: 30) }

        #expect(rig.store.library.itemCount == 1)
        #expect(await rig.service.library == rig.store.library, "memory ran ahead of the store")
        #expect(await rig.service.pending.map(\.itemID) == [keptID])
        #expect(rig.timer.arms.last == Self.t0 + 60, "the timer was left at the refused reminder's instant")
        // The store works again: the next change is taken, with a new ID.
        let nextID = try await rig.add("next", dueIn: 90)
        #expect(nextID > keptID)
        await rig.service.stop()
    }
}

/// A store in memory whose next commit can be made to fail, as a full disk would.
final class MemoryStore: DurableStore {
    let path = "memory"
    private let state: Mutex<(library: ChecklistLibrary, failNext: Bool)>

    init(_ library: ChecklistLibrary) {
        state = Mutex((library, false))
    }

    var library: ChecklistLibrary { state.withLock { $0.library } }

    func failNextCommit() {
        state.withLock { $0.failNext = true }
    }

    func commit(_ changes: [ChecklistChange]) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            if state.failNext {
                state.failNext = false
                throw StoreError.writeFailed(path: path, step: "write", errno: .noSpace)
            }
            var library = state.library
            for change in changes {
                do {
                    try library.apply(change)
                } catch {
                    preconditionFailure("the service committed a change the model refuses: \(error)")
                }
            }
            state.library = library
        }
    }
}

/// Records every arming, in order; nil is a disarm.
final class RecordingTimer: ReminderTimer {
    private let recorded = Mutex<[Date?]>([])

    var arms: [Date?] { recorded.withLock { $0 } }

    func arm(at instant: Date?) {
        recorded.withLock { $0.append(instant) }
    }

    func stop() {}
}

extension RecordSink.Entry {
    var eventKind: ReminderEvent.Kind? {
        if case .observed(let event) = self { event.kind } else { nil }
    }

    var delivery: Delivery? {
        if case .delivered(let delivery) = self { delivery } else { nil }
    }
}
