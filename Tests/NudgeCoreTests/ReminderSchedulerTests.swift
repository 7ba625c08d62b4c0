import Foundation
import NudgeTestSupport
import Testing

@testable import NudgeCore

/// A fixed start so expectations are plain arithmetic.
private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

private func item(
    _ itemID: Int,
    _ text: String = "water the plants",
    due: TimeInterval?,
    remind: Bool = true,
    checked: Bool = false,
    updatedAt: Date = t0
) -> ChecklistItem {
    ChecklistItem(
        itemID: itemID,
        text: text,
        checked: checked,
        dueDate: due.map { t0 + $0 },
        shouldRemind: remind,
        createdAt: t0,
        updatedAt: updatedAt
    )
}

private func kinds(_ output: SchedulerOutput) -> [ReminderEvent.Kind] { output.events.map(\.kind) }

@Suite struct ReminderSchedulerTests {
    @Test func addingAnItemWithAFutureDueDateSchedulesItAndArmsTheTimer() {
        var scheduler = ReminderScheduler()
        let output = scheduler.itemChanged(item(1, due: 60), listName: "List", now: t0)
        #expect(kinds(output) == [.scheduled])
        #expect(output.actions == [.armTimer(at: t0 + 60)])
        #expect(scheduler.pendingReminder(for: 1)?.due == t0 + 60)
    }

    /// A backlog is decided a part at a time: each call at most `limit` events, what is left still due, and the
    /// parts together the same decisions in the same order as one call without a limit.
    @Test func aLimitedAdvanceDecidesTheBacklogInPartsInTheSameOrder() {
        let items = (1...25).map { item($0, due: Double(($0 * 7) % 10)) }
        var whole = ReminderScheduler()
        var parts = ReminderScheduler()
        for item in items {
            _ = whole.itemChanged(item, listName: "List", now: t0 - 1)
            _ = parts.itemChanged(item, listName: "List", now: t0 - 1)
        }
        let all = whole.advance(to: t0 + 100).events
        var decided: [ReminderEvent] = []
        var calls = 0
        while let next = parts.nextDue, next <= t0 + 100 {
            let part = parts.advance(to: t0 + 100, limit: 10)
            #expect(part.events.count <= 10)
            #expect(part.actions.last == parts.nextDue.map { .armTimer(at: $0) } ?? .disarmTimer)
            decided += part.events
            calls += 1
        }
        #expect(calls == 3)
        #expect(decided.map(\.itemID) == all.map(\.itemID))
        #expect(decided.map(\.kind) == all.map(\.kind))
        #expect(all.count == 25)
    }

    @Test func editMovesTheReminderAndTheOldInstantNeverFires() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 2), listName: "List", now: t0)
        let edit = scheduler.itemChanged(item(1, due: 3), listName: "List", now: t0 + 1)
        #expect(kinds(edit) == [.replaced])
        #expect(edit.events.first?.previousDue == t0 + 2)
        #expect(edit.actions == [.armTimer(at: t0 + 3)])

        let atOldInstant = scheduler.advance(to: t0 + 2)
        #expect(atOldInstant.events.isEmpty)
        #expect(atOldInstant.deliveries.isEmpty)
        #expect(atOldInstant.actions == [.armTimer(at: t0 + 3)])

        let atNewInstant = scheduler.advance(to: t0 + 3)
        #expect(kinds(atNewInstant) == [.fired])
        #expect(atNewInstant.deliveries.map(\.reminder.due) == [t0 + 3])
        #expect(scheduler.advance(to: t0 + 1000).events.isEmpty)
    }

    @Test func editOfTheTextAloneReArmsWithTheNewText() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, "old text", due: 10), listName: "List", now: t0)
        let edit = scheduler.itemChanged(item(1, "new text", due: 10), listName: "List", now: t0 + 1)
        #expect(kinds(edit) == [.replaced])
        let fired = scheduler.advance(to: t0 + 10)
        #expect(fired.deliveries.map(\.reminder.text) == ["new text"])
        #expect(fired.events.map(\.text) == ["new text"])
    }

    @Test func remindOffCancelsAndRemindOnSchedulesAgain() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        let off = scheduler.itemChanged(item(1, due: 10, remind: false), listName: "List", now: t0 + 1)
        #expect(kinds(off) == [.cancelled])
        #expect(off.actions == [.withdraw(itemID: 1), .disarmTimer])
        let on = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0 + 2)
        #expect(kinds(on) == [.scheduled])
        #expect(kinds(scheduler.advance(to: t0 + 10)) == [.fired])
    }

    @Test func checkingOffCancelsAndUncheckingReArmsWhileStillAhead() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        let checked = scheduler.itemChanged(item(1, due: 10, checked: true), listName: "List", now: t0 + 1)
        #expect(kinds(checked) == [.cancelled])
        #expect(checked.actions.contains(.withdraw(itemID: 1)))
        #expect(scheduler.pendingCount == 0)

        let unchecked = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0 + 2)
        #expect(kinds(unchecked) == [.scheduled])
        #expect(kinds(scheduler.advance(to: t0 + 10)) == [.fired])
    }

    @Test func uncheckingAfterTheDueInstantSchedulesNothing() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10, checked: true), listName: "List", now: t0)
        let unchecked = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0 + 20)
        #expect(unchecked.events.isEmpty)
        #expect(scheduler.advance(to: t0 + 30).events.isEmpty)
    }

    @Test func deletingAnItemCancelsItsReminderAndWithdrawsIt() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        let removed = scheduler.itemsRemoved([1], now: t0 + 1)
        #expect(kinds(removed) == [.cancelled])
        #expect(removed.actions == [.withdraw(itemID: 1), .disarmTimer])
        #expect(scheduler.advance(to: t0 + 10).events.isEmpty)
    }

    @Test func deletingItemsWithoutRemindersStillWithdrawsWhatIsShown() {
        var scheduler = ReminderScheduler()
        let removed = scheduler.itemsRemoved([7], now: t0)
        #expect(removed.events.isEmpty)
        #expect(removed.actions == [.withdraw(itemID: 7)])
    }

    @Test func aDueDateMovedIntoThePastNeitherFiresNorCountsAsMissed() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 100), listName: "List", now: t0)
        let moved = scheduler.itemChanged(item(1, due: -100, updatedAt: t0 + 1), listName: "List", now: t0 + 1)
        #expect(kinds(moved) == [.cancelled])
        #expect(scheduler.advance(to: t0 + 200).events.isEmpty)

        // Nor after a restart: the instant was already past when it was set.
        var restarted = ReminderScheduler()
        let restored = restarted.restore([(item(1, due: -100, updatedAt: t0 + 1), "List")], now: t0 + 200)
        #expect(restored.events.isEmpty)
        #expect(restored.deliveries.isEmpty)
    }

    @Test func twoItemsDueAtTheSameInstantBothFire() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(2, "second", due: 10), listName: "List", now: t0)
        _ = scheduler.itemChanged(item(1, "first", due: 10), listName: "List", now: t0)
        let fired = scheduler.advance(to: t0 + 10)
        #expect(fired.deliveries.map(\.reminder.itemID) == [1, 2])
        #expect(kinds(fired) == [.fired, .fired])
        #expect(fired.actions.last == .disarmTimer)
    }

    @Test func aTimerThatWakesEarlyFiresNothingAndReArms() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        let early = scheduler.advance(to: t0 + 5)
        #expect(early.events.isEmpty)
        #expect(early.actions == [.armTimer(at: t0 + 10)])
    }

    @Test func aWallClockJumpBackwardsFiresNothingEarly() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        #expect(scheduler.advance(to: t0 - 3600).events.isEmpty)
        #expect(scheduler.pendingCount == 1)
    }

    @Test func aWallClockJumpForwardFiresLateWithinTheWindowAndMissesBeyondIt() {
        var scheduler = ReminderScheduler(catchUpWindow: 3600)
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        _ = scheduler.itemChanged(item(2, due: 5000), listName: "List", now: t0)
        let jumped = scheduler.advance(to: t0 + 5010)
        #expect(kinds(jumped) == [.missed, .fired])
        #expect(jumped.events.map(\.itemID) == [1, 2])
        #expect(jumped.deliveries.first?.isLate == true)
        #expect(jumped.deliveries.first?.lateBy == 10)
    }

    @Test func anOnTimeDeliveryIsNotLate() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "List", now: t0)
        let fired = scheduler.advance(to: t0 + 10.2)
        #expect(fired.deliveries.first?.isLate == false)
    }

    @Test func hundredThousandItemsFireInDueOrderEachExactlyOnce() {
        var scheduler = ReminderScheduler()
        var generator = SplitMix64(seed: 42)
        let count = 100_000
        // Many items share instants, so the tie-break by item ID is exercised too.
        var dueOf: [Int: TimeInterval] = [:]
        for itemID in 1...count {
            let due = TimeInterval(generator.next() % 50_000 + 1)
            dueOf[itemID] = due
            _ = scheduler.itemChanged(item(itemID, due: due), listName: "List", now: t0)
        }
        // Re-edit a tenth of them so stale queue entries exist and must be skipped.
        for itemID in stride(from: 1, through: count, by: 10) {
            let due = TimeInterval(generator.next() % 50_000 + 1)
            dueOf[itemID] = due
            _ = scheduler.itemChanged(item(itemID, due: due), listName: "List", now: t0)
        }
        var fired: [Delivery] = []
        var now = t0
        while let next = scheduler.nextDue {
            now = max(now, next)
            fired += scheduler.advance(to: now + Double(generator.next() % 3)).deliveries
        }
        #expect(fired.count == count)
        #expect(Set(fired.map(\.reminder.itemID)).count == count)
        let order = fired.map { ($0.reminder.due, $0.reminder.itemID) }
        #expect(zip(order, order.dropFirst()).allSatisfy { $0 < $1 })
        #expect(fired.allSatisfy { $0.reminder.due == t0 + dueOf[$0.reminder.itemID]! })
    }

    @Test func restoreFiresAnOverdueReminderLateWithinTheWindow() {
        var scheduler = ReminderScheduler()
        let restored = scheduler.restore([(item(1, due: 60), "List")], now: t0 + 3600)
        #expect(kinds(restored) == [.fired])
        #expect(restored.deliveries.first?.isLate == true)
        #expect(restored.deliveries.first?.lateBy == 3540)
    }

    @Test func restoreReportsAnOverdueReminderBeyondTheWindowAsMissed() {
        var scheduler = ReminderScheduler()
        let restored = scheduler.restore([(item(1, due: 60), "List")], now: t0 + 60 + 25 * 3600)
        #expect(kinds(restored) == [.missed])
        #expect(restored.deliveries.isEmpty)
    }

    @Test func restoreSkipsAnInstantAlreadyHandled() {
        var handled = item(1, due: 60)
        handled.lastFiredAt = t0 + 60
        var scheduler = ReminderScheduler()
        #expect(scheduler.restore([(handled, "List")], now: t0 + 120).events.isEmpty)
    }

    @Test func restoreSchedulesFutureRemindersWithoutEvents() {
        var scheduler = ReminderScheduler()
        let restored = scheduler.restore([(item(1, due: 60), "List"), (item(2, due: nil), "List")], now: t0)
        #expect(restored.events.isEmpty)
        #expect(restored.actions == [.armTimer(at: t0 + 60)])
        #expect(scheduler.pendingCount == 1)
    }

    @Test func relabelingChangesTheListNameDeliveredWithoutAnEvent() {
        var scheduler = ReminderScheduler()
        _ = scheduler.itemChanged(item(1, due: 10), listName: "Old", now: t0)
        scheduler.relabel(itemIDs: [1], listName: "New")
        #expect(scheduler.advance(to: t0 + 10).deliveries.map(\.reminder.listName) == ["New"])
    }

    /// Random edits, checks, deletions and clock steps; after every input, the replacement invariant holds and
    /// nothing fires that is not the item's current state.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomOperationsKeepAtMostOnePendingReminderPerItemMatchingTheRule(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var scheduler = ReminderScheduler(catchUpWindow: 1_000_000)
        var items: [Int: ChecklistItem] = [:]
        var now = t0
        var firedInstants: Set<String> = []
        for _ in 0..<5000 {
            let itemID = Int(generator.next() % 40) + 1
            var output = SchedulerOutput()
            switch generator.next() % 5 {
            case 0, 1:
                var changed = item(
                    itemID,
                    "text \(generator.next() % 3)",
                    due: now.timeIntervalSince(t0) + Double(generator.next() % 200) - 50,
                    remind: generator.next() % 4 != 0,
                    checked: generator.next() % 4 == 0,
                    updatedAt: now
                )
                changed.updatedAt = now
                items[itemID] = changed
                output = scheduler.itemChanged(changed, listName: "List", now: now)
            case 2:
                items[itemID] = nil
                output = scheduler.itemsRemoved([itemID], now: now)
            default:
                now += Double(generator.next() % 30)
                output = scheduler.advance(to: now)
                for delivery in output.deliveries {
                    let current = items[delivery.reminder.itemID]
                    #expect(current?.text == delivery.reminder.text)
                    #expect(current?.dueDate == delivery.reminder.due)
                    #expect(current?.wantsReminder(at: delivery.reminder.due - 0.001) == true)
                    let key = "\(delivery.reminder.itemID)@\(delivery.reminder.due)"
                    #expect(!firedInstants.contains(key), "fired twice: \(key)")
                    firedInstants.insert(key)
                    // Recorded as handled, as `ReminderBook` does: an item due within the last second wants its
                    // reminder until then.
                    items[delivery.reminder.itemID]?.lastFiredAt = delivery.reminder.due
                }
            }
            for (itemID, current) in items {
                #expect((scheduler.pendingReminder(for: itemID) != nil) == current.wantsReminder(at: now))
            }
            #expect(scheduler.pendingCount == items.values.filter { $0.wantsReminder(at: now) }.count)
            #expect(scheduler.nextDue == scheduler.pendingReminders.first?.due)
        }
    }
}
