import Foundation
import NudgeCore
import Synchronization
import SystemPackage
import Testing

@testable import NudgeStore

extension NudgeStoreTests {
    /// The event history beside the store: numbered events committed with their changes, read back in order after
    /// reopening, kept within its limits, and never showing an event whose commit did not become durable.
    @Suite struct EventHistoryTests {
        /// `count` events numbered from `first`, one a minute from `testNow`.
        private func events(_ count: Int, from first: Int) -> [ReminderEvent] {
            (0..<count).map { offset in
                let id = first + offset
                let reminder = Reminder(itemID: id, text: "event \(id)", listName: "List", due: testNow)
                var event = ReminderEvent(.fired, of: reminder, at: testNow.addingTimeInterval(Double(id) * 60))
                event.id = id
                return event
            }
        }

        private func allEvents(_ store: ChecklistStore, after: Int = 0) throws -> EventPage {
            try store.events(after: after, limit: 1_000_000)
        }

        @Test func eventsReadBackInOrderAfterReopeningAndTheirIDsAreNeverHandedOutAgain() throws {
            try withTemporaryDirectory { directory in
                do {
                    let store = try ChecklistStore.open(path: directory.storePath)
                    defer { store.close() }
                    try store.commit([], events: events(3, from: 1))
                    try store.commit([], events: events(2, from: 4))
                    #expect(try allEvents(store).events.map(\.id) == [1, 2, 3, 4, 5])
                    #expect(try allEvents(store, after: 3).events.map(\.id) == [4, 5])
                }
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                #expect(store.library.nextEventID == 6)
                let page = try allEvents(store)
                #expect(page.events == events(5, from: 1))
                #expect(page.latest == 5)
                #expect(page.dropped == 0)
                #expect(page.next == nil)
            }
        }

        /// A change's event keeps what it did to its items (the undo step, each item coded by the store's table) in
        /// the history, as read back after reopening, and in the change log that repairs the history after a crash.
        @Test func aChangeKeepsWhatItDidToItsItemsInTheHistory() throws {
            let item = ChecklistItem(
                itemID: 1,
                text: "Buy milk",
                dueDate: testNow,
                shouldRemind: true,
                createdAt: testNow
            )
            var checked = item
            checked.checked = true
            let step = UndoStep(touches: [.init(itemID: 1, before: .init(item, in: 1), after: .init(checked, in: 1))])
            var change = ReminderEvent(
                .changed,
                of: step,
                text: "checked off “Buy milk”",
                listName: "Inbox",
                at: testNow
            )
            change.id = 1
            var undone = ReminderEvent(
                .undone,
                of: step,
                text: "undid event 1",
                listName: "Inbox",
                at: testNow,
                undid: 1
            )
            undone.id = 2
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try store.commit([], events: [change, undone])
                #expect(try allEvents(store).events == [change, undone])
                // A crash that lost the history: the change log gives the events back, steps included.
                _ = Unmanaged.passRetained(store)
                try FileManager.default.removeItem(atPath: directory.storePath + ".events")
                try FileManager.default.removeItem(atPath: directory.storePath + ".lock")
                do {
                    let repaired = try ChecklistStore.open(path: directory.storePath)
                    defer { repaired.close() }
                    #expect(try allEvents(repaired).events == [change, undone])
                }
                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(try allEvents(reopened).events.map(\.undo) == [step, step])
            }
        }

        @Test func aCrashThatLostTheHistoryFileIsRepairedFromTheChangeLog() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                try store.commit([], events: events(4, from: 1))
                // A crash: the store is never closed (so never compacted, and the history never flushed), and the
                // history's file is lost. The lock file goes too, so this process can open the store again.
                _ = Unmanaged.passRetained(store)
                try FileManager.default.removeItem(atPath: directory.storePath + ".events")
                try FileManager.default.removeItem(atPath: directory.storePath + ".lock")
                let reopened = try ChecklistStore.open(path: directory.storePath)
                defer { reopened.close() }
                #expect(try allEvents(reopened).events.map(\.id) == [1, 2, 3, 4])
            }
        }

        @Test func eventsOfAFailedCommitAreNeverReadAndTheirIDsGoToTheNextCommit() throws {
            try withTemporaryDirectory { directory in
                let failNext = Mutex(false)
                let store = try ChecklistStore.open(
                    path: directory.storePath,
                    faults: StoreFaults { step throws(Errno) in
                        if step == .syncLog, failNext.withLock({ $0 }) {
                            failNext.withLock { $0 = false }
                            throw .noSpace
                        }
                    }
                )
                defer { store.close() }
                try store.commit([], events: events(2, from: 1))
                failNext.withLock { $0 = true }
                #expect(throws: StoreError.self) { try store.commit([], events: events(2, from: 3)) }
                #expect(try allEvents(store).events.map(\.id) == [1, 2])
                #expect(store.library.nextEventID == 3)
                var retried = events(1, from: 3)
                retried[0].text = "retried"
                try store.commit([], events: retried)
                #expect(try allEvents(store).events.map(\.text) == ["event 1", "event 2", "retried"])
            }
        }

        @Test func theHistoryKeepsTheLastEventsWithinItsLimitsAndSaysHowManyWereDropped() throws {
            try withTemporaryDirectory { directory in
                let options = StoreOptions(historyLimits: HistoryLimits(count: 10, age: 24 * 60 * 60))
                do {
                    let store = try ChecklistStore.open(path: directory.storePath, options: options)
                    defer { store.close() }
                    for first in stride(from: 1, through: 25, by: 3) {
                        try store.commit([], events: events(3, from: first))
                    }
                    let page = try allEvents(store)
                    #expect(page.events.map(\.id) == Array(18...27))
                    #expect(page.dropped == 17)
                    #expect(try allEvents(store, after: 20).dropped == 0)
                    #expect(FileManager.default.fileExists(atPath: directory.storePath + ".events.previous"))
                }
                // Reopened with a shorter age: events decided more than 5 minutes before the latest are dropped too.
                let shorter = StoreOptions(historyLimits: HistoryLimits(count: 10, age: 5 * 60))
                let store = try ChecklistStore.open(path: directory.storePath, options: shorter)
                defer { store.close() }
                // Events are a minute apart, three to a record, and kept by record: the records whose last event
                // is within 5 minutes of event 27.
                let page = try allEvents(store)
                #expect(page.events.map(\.id) == Array(22...27))
                #expect(page.dropped == 21)
                #expect(page.latest == 27)
            }
        }

        @Test func pagesAreBoundedByTheLimitAndByTheEventsLookedAt() throws {
            try withTemporaryDirectory { directory in
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                try store.commit([], events: events(100, from: 1))
                let first = try store.events(after: 0, limit: 10)
                #expect(first.events.map(\.id) == Array(1...10))
                #expect(first.next == 10)
                let even = try store.events(after: 0, limit: 1000, scanLimit: 30) { $0.id.isMultiple(of: 2) }
                #expect(even.events.map(\.id) == Array(stride(from: 2, through: 30, by: 2)))
                #expect(even.next == 30)
                let last = try store.events(after: 90, limit: 1000)
                #expect(last.events.map(\.id) == Array(91...100))
                #expect(last.next == nil)
            }
        }

        @Test func aHistoryDamagedBeforeItsEndIsSetAsideAndNudgedGoesOn() throws {
            try withTemporaryDirectory { directory in
                let historyPath = directory.storePath + ".events"
                do {
                    let store = try ChecklistStore.open(path: directory.storePath)
                    defer { store.close() }
                    try store.commit([], events: events(2, from: 1))
                    try store.commit([], events: events(2, from: 3))
                }
                var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: historyPath)))
                bytes[EventHistory.framing.header.count + 20] ^= 0xFF  // Inside the first record.
                try Data(bytes).write(to: URL(fileURLWithPath: historyPath))
                let store = try ChecklistStore.open(path: directory.storePath)
                defer { store.close() }
                #expect(store.openingNotes.contains { $0.contains("is damaged at byte 12") && $0.contains(".damaged") })
                #expect(FileManager.default.fileExists(atPath: historyPath + ".damaged"))
                let page = try allEvents(store)
                #expect(page.events.isEmpty)
                #expect(page.dropped == 4)
                #expect(store.library.nextEventID == 5)
            }
        }
    }
}
