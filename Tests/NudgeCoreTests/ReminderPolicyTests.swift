import Foundation
import Testing

@testable import NudgeCore

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let day: TimeInterval = 86_400
private let utc = TimeZone(identifier: "UTC")!

/// An item's own catch-up rule decides whether its reminder, found late, still fires; its priority goes with every
/// delivery and event.
@Suite struct ReminderPolicyTests {
    private func restarted(after downtime: TimeInterval, catchUp: CatchUp?, priority: Priority = .normal) throws
        -> ReminderBook.Outcome
    {
        var first = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: utc)
        _ = try first.addItem(
            NewItem(
                text: "back up",
                listID: 1,
                dueDate: t0 + 60,
                shouldRemind: true,
                priority: priority,
                catchUp: catchUp
            )
        )
        var again = ReminderBook(
            library: first.library,
            clock: ManualWallClock(t0 + 60 + downtime),
            catchUpWindow: 3600,
            timeZone: utc
        )
        return again.start()
    }

    @Test func withoutARuleOfItsOwnTheDaemonsWindowDecides() throws {
        #expect(try restarted(after: 1800, catchUp: nil).events.map(\.kind) == [.fired])
        let missed = try restarted(after: 7200, catchUp: nil)
        #expect(missed.events.map(\.kind) == [.missed])
        #expect(missed.events.first?.catchUp == .within(3600))
    }

    @Test func alwaysFiresHoweverLateItIsFound() throws {
        let outcome = try restarted(after: 30 * day, catchUp: .always)
        #expect(outcome.events.map(\.kind) == [.fired])
        #expect(outcome.deliveries.count == 1)
    }

    @Test func neverFiresOnlyOnTimeAndSaysWhyItWasMissed() throws {
        let outcome = try restarted(after: 5, catchUp: .never)
        #expect(outcome.events.map(\.kind) == [.missed])
        #expect(outcome.events.first?.catchUp == .never)
        #expect(outcome.deliveries.isEmpty)
        #expect(try restarted(after: 0.5, catchUp: .never).events.map(\.kind) == [.fired])
    }

    @Test func aWindowOfItsOwnOverridesTheDaemons() throws {
        #expect(try restarted(after: 3 * 3600, catchUp: .within(4 * 3600)).events.map(\.kind) == [.fired])
        let missed = try restarted(after: 1800, catchUp: .within(600))
        #expect(missed.events.map(\.kind) == [.missed])
        #expect(missed.events.first?.catchUp == .within(600))
    }

    @Test func thePriorityGoesWithTheDeliveryAndEveryEvent() throws {
        let outcome = try restarted(after: 0, catchUp: nil, priority: .high)
        #expect(outcome.deliveries.first?.reminder.priority == .high)
        #expect(outcome.events.allSatisfy { $0.priority == .high })
    }

    @Test func prioritiesAndCatchUpRulesReadAsPeopleTypeThem() throws {
        #expect(try Priority(validating: "HIGH") == .high)
        #expect(throws: ModelError.unknownPriority("urgent")) { try Priority(validating: "urgent") }
        #expect(try CatchUp(validating: "Always") == .always)
        #expect(try CatchUp(validating: "2h") == .within(7200))
        #expect(try CatchUp(validating: "PT90M").description == "PT1H30M")
        #expect(throws: ModelError.self) { try CatchUp(validating: "soon") }
        #expect(throws: ModelError.self) { try CatchUp(validating: "0s") }
    }

    @Test func anEditSetsAndClearsTheRuleAndThePriority() throws {
        var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(t0), timeZone: utc)
        _ = try book.addItem(NewItem(text: "a", listID: 1, dueDate: t0 + 60, shouldRemind: true))
        let (edited, outcome) = try book.editItem(itemID: 1, ItemEdit(priority: .low, catchUp: .never))
        #expect(edited.priority == .low && edited.catchUp == .never)
        #expect(outcome.events.map(\.kind) == [.replaced])
        #expect(book.scheduler.pendingReminder(for: 1)?.catchUp == .never)
        let (cleared, _) = try book.editItem(itemID: 1, ItemEdit(clearsCatchUp: true))
        #expect(cleared.catchUp == nil && cleared.priority == .low)
    }
}
