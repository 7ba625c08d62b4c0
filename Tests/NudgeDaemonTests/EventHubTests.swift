import Foundation
import NudgeCore
import Testing

@testable import NudgeDaemon

/// A watcher may fall only so far behind: past the hub's byte limit it is dropped with a last notice, and a watcher
/// that keeps reading is not affected.
@Suite struct EventHubTests {
    static func event(_ itemID: Int, text: String) -> ReminderEvent {
        let reminder = Reminder(itemID: itemID, text: text, listName: "L", due: Date(timeIntervalSince1970: 0))
        return ReminderEvent(.scheduled, of: reminder, at: Date(timeIntervalSince1970: 0))
    }

    /// Each event costs 1,000 bytes of text, 1 of list name and the overhead: three fit in the limit, a fourth
    /// does not.
    static let text = String(repeating: "x", count: 1000)
    static let limit = 3 * (1001 + EventHub.eventOverhead)

    @Test func aWatcherThatStopsReadingIsDroppedWithALastNoticeAndAReaderIsNot() async {
        let hub = EventHub(byteLimit: Self.limit)
        let stalled = hub.subscribe()
        var reader = hub.subscribe().makeAsyncIterator()
        for itemID in 1...10 {
            hub.publish([Self.event(itemID, text: Self.text)])
            guard case .event(let event, _) = await reader.next() else {
                Issue.record("the reader missed event \(itemID)")
                return
            }
            #expect(event.itemID == itemID)
        }
        #expect(hub.subscriberCount == 1)

        var notices: [String] = []
        for await notice in stalled {
            switch notice {
            case .event(let event, _): notices.append("event \(event.itemID)")
            case .dropped(let limit): notices.append("dropped past \(limit)")
            }
        }
        #expect(notices == ["event 1", "event 2", "event 3", "dropped past \(Self.limit)"])
    }

    @Test func takingAnEventMakesRoomForAnother() async {
        let hub = EventHub(byteLimit: Self.limit)
        var watcher = hub.subscribe().makeAsyncIterator()
        for itemID in 1...3 { hub.publish([Self.event(itemID, text: Self.text)]) }
        _ = await watcher.next()
        hub.publish([Self.event(4, text: Self.text)])
        #expect(hub.subscriberCount == 1, "dropped although it had taken an event")
        hub.publish([Self.event(5, text: Self.text)])
        #expect(hub.subscriberCount == 0, "not dropped past the limit")
    }
}
