import Foundation
import Logging
import NudgeAPI
import NudgeAPITypes
import NudgeCalendar
import NudgeCore
import NudgeSinks
import NudgeTestSupport
import ServiceLifecycle
import Synchronization
import SystemPackage
import Testing

@testable import NudgeDaemon
@testable import NudgeStore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

/// The service as a unit, on a `ServiceRig`.
@Suite struct ReminderServiceTests {
    static let t0 = ServiceRig.t0

    @Test func movingTheManualClockFiresEachReminderAtItsOwnInstantInDueOrderBeforeAnswering() async throws {
        let rig = ServiceRig()
        var ids: [Int] = []
        let entries = try await rig.running {
            ids.append(try await rig.add("third", dueIn: 300))
            ids.append(try await rig.add("first", dueIn: 60))
            ids.append(try await rig.add("second", dueIn: 120))
            let now = try await rig.api.moveClock(.advance(200))
            #expect(now == Self.t0 + 200)
            // Answered once both fires are carried out: the sink has them already.
            #expect(rig.sink.entries.compactMap(\.delivery).map(\.reminder.text) == ["first", "second"])
            #expect(try await rig.api.clockNow() == Self.t0 + 200)
            // Back, then forward again: nothing fires twice.
            _ = try await rig.api.moveClock(.to(Self.t0))
            _ = try await rig.api.moveClock(.advance(400))
        }
        let deliveries = entries.compactMap(\.delivery)
        #expect(deliveries.map(\.reminder.itemID) == [ids[1], ids[2], ids[0]])
        #expect(deliveries.map(\.firedAt) == [Self.t0 + 60, Self.t0 + 120, Self.t0 + 300])
        #expect(deliveries.allSatisfy { $0.lateBy == 0 })
        // Every event numbered in the order decided, and the store holds them all.
        let events = entries.compactMap { entry -> ReminderEvent? in
            if case .observed(let event) = entry { event } else { nil }
        }
        // Three adds (scheduled, changed) and three fires.
        #expect(events.map(\.id) == Array(1...9))
        // The sinks see a change's event without what it did to the items, which the store keeps for undo.
        let stored = try rig.store.events(after: 0, limit: 100, scanLimit: 100) { _ in true }.events
        #expect(stored.filter { $0.kind == .changed }.allSatisfy { $0.undo != nil })
        #expect(
            stored.map { event in
                var event = event
                event.undo = nil
                return event
            } == events
        )
    }

    /// The wall clock is the system's: a request to move it is refused, and so is a batch that would, as a whole,
    /// with nothing in it applied.
    @Test func theWallClockCannotBeMovedByARequestOrByABatch() async throws {
        let store = MemoryStore(ChecklistLibrary())
        // Not running: had either been let through to the loop, it would never be answered.
        let service = ReminderService(
            store: store,
            clock: SystemWallClock(),
            zones: zones,
            catchUpWindow: 3600,
            sinks: [],
            events: EventHub(),
            logger: ServiceRig.quiet,
            timer: { _ in RecordingTimer() }
        )
        let api = APIHandler(service: service, socket: "test")
        do {
            _ = try await api.moveClock(.advance(60))
            Issue.record("the wall clock moved")
        } catch let failure as APIFailure {
            #expect(failure.code == .clockNotManual)
            #expect(failure.status == .conflict)
        }
        do {
            _ = try await api.runBatch([.add(.init(text: "x")), .advanceClock(60)])
            Issue.record("the wall clock moved in a batch")
        } catch let refusal as Batch.Refusal {
            #expect(refusal.index == 1 && refusal.applied.isEmpty)
            let failure = APIFailure.from(refusal)
            #expect(failure.code == .clockNotManual && failure.status == .conflict && failure.applied == nil)
            #expect(failure.message.hasSuffix("none of the batch was applied"), "\(failure.message)")
        }
        #expect(store.library.itemCount == 0)
    }

    /// A batch: its operations applied in order, a clock move among them firing at its instants, thousands of
    /// changes saved in a handful of commits; answered once all of it is durable and carried out.
    @Test func aBatchAppliesItsOperationsInOrderInAFewCommitsAndAnswersOnceDurable() async throws {
        let rig = ServiceRig()
        var results: [Components.Schemas.BatchResult] = []
        var commits = 0
        let entries = try await rig.running {
            let due = { (seconds: TimeInterval) in Instant(Self.t0 + seconds) }
            let commitsBefore = rig.service.writer.commitCount
            let steps: [Components.Schemas.BatchOperation] =
                [
                    .add(.init(text: "a", dueDate: due(60))),
                    .add(.init(text: "b", dueDate: due(120))),
                    .edit(1, ItemPatch(ItemEdit(dueDate: Self.t0 + 180))),
                    .advanceClock(150),
                    .snooze(2, forSeconds: 600),
                    .remove(1),
                ] + (1...3_000).map { .add(.init(text: "more \($0)")) }
            results = try await rig.api.runBatch(steps)
            commits = rig.service.writer.commitCount - commitsBefore
            // Durable and carried out before the answer.
            #expect(rig.store.library.itemCount == 3_001)
            #expect(rig.sink.entries.compactMap(\.delivery).map(\.reminder.text) == ["b"])
        }
        #expect(results.map(\.op.rawValue).prefix(7) == ["add", "add", "edit", "clock", "snooze", "remove", "add"])
        #expect(results.count == 3_006)
        #expect(results[2].item?.pendingDue?.date == Self.t0 + 180)
        #expect(results[3].clock?.now.date == Self.t0 + 150)
        #expect(results[4].item?.pendingDue?.date == Self.t0 + 750)
        #expect(entries.compactMap(\.delivery).map(\.firedAt) == [Self.t0 + 120])
        #expect(
            entries.compactMap(\.eventKind)
                == [.scheduled, .scheduled, .replaced, .fired, .snoozed, .cancelled, .changed]
        )
        // About 3,010 changes and events, in commits of about 1,000.
        #expect((3...6).contains(commits), "\(commits) commits for 3,006 operations")
    }

    /// The first operation refused stops the batch; those before it are durable by the time the refusal is answered,
    /// and none after it is tried.
    @Test func aRefusedOperationStopsTheBatchAndThoseBeforeItAreDurableWhenItIsAnswered() async throws {
        let rig = ServiceRig()
        _ = try await rig.running {
            do {
                _ = try await rig.api.runBatch([
                    .add(.init(text: "kept")),
                    .add(.init(text: "kept too")),
                    .edit(99, ItemPatch(ItemEdit(text: "nobody"))),
                    .add(.init(text: "never tried")),
                ])
                Issue.record("a batch with a refused operation was answered as done")
            } catch let refusal as Batch.Refusal {
                #expect(refusal.index == 2)
                #expect(refusal.applied.map { $0.item?.text } == ["kept", "kept too"])
                #expect((refusal.error as? ModelError)?.code == .unknownItem)
                let failure = APIFailure.from(refusal)
                #expect(failure.operation == 2 && failure.status == .notFound && failure.applied?.count == 2)
                #expect(failure.message.contains("operations 0 to 1 before it were applied"), "\(failure.message)")
            }
            #expect(rig.store.library.lists[0].items.map(\.text) == ["kept", "kept too"])
        }
    }

    @Test func anEditReplacesThePendingReminderAndTheTimerFollowsTheScheduler() async throws {
        let rig = ServiceRig()
        var itemID = 0
        let entries = try await rig.running {
            itemID = try await rig.add("water the plants", dueIn: 60)
            _ = try await rig.api.editItem(itemID, ItemPatch(ItemEdit(dueDate: Self.t0 + 120)))
            #expect(try await rig.api.pending.map(\.due.date) == [Self.t0 + 120])
        }
        // At start nothing is pending: disarmed.
        #expect(rig.timer.arms == [nil, Self.t0 + 60, Self.t0 + 120])
        #expect(entries.compactMap(\.eventKind) == [.scheduled, .changed, .replaced, .changed])
        #expect(rig.store.library.item(id: itemID)?.dueDate == Self.t0 + 120)
    }

    @Test func checkingOffCancelsWithdrawsAndDisarms() async throws {
        let rig = ServiceRig()
        var itemID = 0
        let entries = try await rig.running {
            itemID = try await rig.add("call mum", dueIn: 60)
            _ = try await rig.api.editItem(itemID, ItemPatch(ItemEdit(checked: true)))
            #expect(try await rig.api.pending.isEmpty)
        }
        #expect(rig.timer.arms == [nil, Self.t0 + 60, nil])
        #expect(entries.contains(.withdrawn(itemID: itemID)))
        #expect(entries.compactMap(\.eventKind) == [.scheduled, .changed, .cancelled, .changed])
    }

    @Test func aReminderFiresOnceWhenTheTimerWakesAtItsInstant() async throws {
        let rig = ServiceRig()
        var itemID = 0
        let entries = try await rig.running {
            itemID = try await rig.add("stretch", dueIn: 60)
            rig.clock.advance(by: 59)
            rig.timer.wake()
            #expect(try await rig.api.pending.count == 1, "fired early")
            rig.clock.advance(by: 1)
            rig.timer.wake()
            rig.timer.wake()
            #expect(try await rig.api.pending.isEmpty)
        }
        #expect(rig.store.library.item(id: itemID)?.lastFiredAt != nil, "the firing was not recorded durably")
        let deliveries = entries.compactMap(\.delivery)
        #expect(deliveries.map(\.reminder.itemID) == [itemID])
        #expect(deliveries.first?.isLate == false)
    }

    @Test func anEditArrivingAfterTheInstantBeforeTheTimerWakesComesAfterTheFire() async throws {
        let rig = ServiceRig()
        var itemID = 0
        let entries = try await rig.running {
            itemID = try await rig.add("stretch", dueIn: 60)
            // The instant passes; the timer's wake-up is still on its way when the edit arrives.
            rig.clock.advance(by: 60)
            _ = try await rig.api.editItem(itemID, ItemPatch(ItemEdit(text: "stretch twice")))
        }
        #expect(entries.compactMap(\.delivery).map(\.reminder.text) == ["stretch"])
        #expect(entries.compactMap(\.eventKind) == [.scheduled, .changed, .fired, .changed])
        #expect(rig.store.library.item(id: itemID)?.lastFiredAt == Self.t0 + 60)
    }
    @Test func atStartADueReminderWithinTheWindowFiresLateAndAnOlderOneIsMissed() async throws {
        var library = ChecklistLibrary()
        for (text, due) in [("recent", Self.t0 - 600), ("old", Self.t0 - 7200)] {
            try library.apply(
                library.makeAddItem(
                    NewItem(text: text, listID: 1, dueDate: due, shouldRemind: true),
                    now: Self.t0 - 9000,
                    zones: zones
                )
            )
        }
        let rig = ServiceRig(library: library, catchUpWindow: 3600)
        let entries = try await rig.running {}

        #expect(entries.compactMap(\.delivery).map(\.reminder.text) == ["recent"])
        #expect(entries.compactMap(\.delivery).first?.isLate == true)
        let missed = entries.compactMap { entry -> String? in
            if case .observed(let event) = entry, event.kind == .missed { event.text } else { nil }
        }
        #expect(missed == ["old"])
        // Both are recorded as handled, so a restart repeats neither.
        #expect(rig.store.library.lists[0].items.allSatisfy { $0.lastFiredAt != nil })
    }

    /// A reload's catch-up window decides from then on: found 10 min late, a reminder fires under the start's 1 h
    /// window, and is missed under a reloaded 5 min one.
    @Test func aReloadedCatchUpWindowDecidesForRemindersFoundLateFromThenOn() async throws {
        let rig = ServiceRig(catchUpWindow: 3600)
        let entries = try await rig.running {
            _ = try await rig.add("within", dueIn: 60)
            rig.clock.advance(by: 660)
            rig.timer.wake()
            #expect(try await rig.api.pending.isEmpty)
            try await rig.service.setCatchUpWindow(300)
            _ = try await rig.add("past the new window", dueIn: 60)
            rig.clock.advance(by: 660)
            rig.timer.wake()
            #expect(try await rig.api.pending.isEmpty)
        }
        #expect(entries.compactMap(\.delivery).map(\.reminder.text) == ["within"])
        let missed = entries.compactMap { entry -> String? in
            if case .observed(let event) = entry, event.kind == .missed { event.text } else { nil }
        }
        #expect(missed == ["past the new window"])
    }

    @Test func aFailedWriteIsRefusedChangesNothingAndKeepsWhatWasPending() async throws {
        let rig = ServiceRig()
        _ = try await rig.running {
            let keptID = try await rig.add("kept", dueIn: 60)
            rig.store.failNextCommit()
            await #expect(throws: StoreError.self) { try await rig.add("lost", dueIn: 30) }

            #expect(rig.store.library.itemCount == 1)
            #expect(try await rig.service.read(\.library) == rig.store.library, "memory ran ahead of the store")
            #expect(try await rig.api.pending.map(\.itemID) == [keptID])
            #expect(rig.timer.arms.last == Self.t0 + 60, "the timer was left at the refused reminder's instant")
            // The store works again: the next change is taken, and both items are on disk as acknowledged.
            let nextID = try await rig.add("next", dueIn: 90)
            #expect(rig.store.library.lists[0].items.map(\.itemID) == [keptID, nextID])
            #expect(rig.store.library.item(id: nextID)?.text == "next")
        }
    }

    /// Changes applied while a doomed write is under way were computed on top of it: they fail with it, and the
    /// book is reloaded once, before the next request, not once per failure.
    @Test func changesQueuedBehindAFailedWriteFailWithItAndTheBookIsReloadedOnce() async throws {
        let rig = ServiceRig()
        _ = try await rig.running {
            let entered = rig.store.holdNextCommit()
            let first = Task { try await rig.add("first", dueIn: 30) }
            _ = await entered.first { true }
            let second = Task { try await rig.add("second", dueIn: 20) }
            let third = Task { try await rig.add("third", dueIn: 10) }
            // Each re-armed the timer, for its earlier instant, just after the loop queued its changes behind the
            // held write.
            _ = await rig.timer.armings.first { _ in rig.timer.arms.count == 4 }
            #expect(rig.service.writer.queuedCount == 2, "the second and third are not queued behind the first")
            let readsBefore = rig.store.libraryReads
            rig.store.release(failing: true)

            await #expect(throws: StoreError.self) { try await first.value }
            await #expect(throws: StoreError.self) { try await second.value }
            await #expect(throws: StoreError.self) { try await third.value }
            // The failures made the book stale; the next request, a read here, reloads it first, once.
            #expect(rig.store.libraryReads == readsBefore)
            let library = try await rig.service.read(\.library)
            #expect(rig.store.libraryReads == readsBefore + 1, "the book was not reloaded exactly once")
            #expect(library == rig.store.library)
            #expect(try await rig.api.pending.isEmpty)
            #expect(rig.timer.arms.last == .some(nil))
        }
    }

    /// Changes reach the disk, and the sinks, in the order they were applied, whichever request's task runs first.
    @Test func editsAppliedDuringAWriteReachTheDiskAndTheSinksInTheOrderApplied() async throws {
        let rig = ServiceRig()
        var itemID = 0
        let entries = try await rig.running {
            itemID = try await rig.add("water", dueIn: 300)
            let entered = rig.store.holdNextCommit()
            let held = Task { try await rig.add("held", dueIn: 400) }
            _ = await entered.first { true }
            var edits: [Task<Components.Schemas.Item, any Error>] = []
            let edited = itemID
            for seconds in [100, 200, 50, 250] as [TimeInterval] {
                edits.append(
                    Task { try await rig.api.editItem(edited, ItemPatch(ItemEdit(dueDate: Self.t0 + seconds))) }
                )
                // Applied (it re-armed the timer) before the next edit is sent.
                _ = await rig.timer.armings.first { $0 == Self.t0 + seconds }
            }
            rig.store.release(failing: false)
            _ = try await held.value
            for edit in edits { _ = try await edit.value }
        }
        #expect(rig.store.library.item(id: itemID)?.dueDate == Self.t0 + 250)
        let dues = entries.compactMap { entry -> Date? in
            if case .observed(let event) = entry, event.itemID == itemID, event.kind != .changed {
                event.due
            } else {
                nil
            }
        }
        #expect(dues == [300, 100, 200, 50, 250].map { Self.t0 + $0 })
    }

    @Test func aRequestAfterTheServiceStoppedIsRefusedAsStopping() async throws {
        let rig = ServiceRig()
        _ = try await rig.running {}
        do {
            _ = try await rig.api.pending
            Issue.record("a stopped service answered")
        } catch let refusal as ReminderService.Refusal {
            let failure = APIFailure.from(refusal)
            #expect(failure.code == .stopping)
            #expect(failure.status == .serviceUnavailable)
        }
    }
}
