import DequeModule
import Foundation
import NudgeCore
import NudgeSystem
import Synchronization
import SystemPackage

/// A page of the event history.
public struct EventPage: Sendable, Equatable {
    /// The events after the one asked for that match, in ID order.
    public var events: [ReminderEvent]
    /// Where the next page starts (pass it as `after`), when the page stopped before the latest event.
    public var next: Int?
    /// Events after the one asked for that are no longer kept (older than the history's limits): a gap before
    /// the first event of the page.
    public var dropped: Int
    /// The latest event ID that is durable; 0 when there is none.
    public var latest: Int

    public init(events: [ReminderEvent], next: Int?, dropped: Int, latest: Int) {
        self.events = events
        self.next = next
        self.dropped = dropped
        self.latest = latest
    }
}
