import Foundation
import NudgeCore
import NudgeStore
import Synchronization

/// What a watcher's stream carries when it asked for history: the events after `since` that the history holds (after
/// a `.gap` if some are no longer kept), then the live ones, with none missed and none repeated between the two.
///
/// The live subscription is taken before the history is first read, and the history only ever shows events whose
/// commit is durable, which are published after that: so an event is either in a history page read (its ID at most
/// the `latest` of the last page) or comes live after the subscription, and live events up to that ID are skipped.
struct EventReplay: AsyncSequence, Sendable {
    enum Element: Sendable {
        case gap(dropped: Int)
        case notice(EventHub.Notice)
    }

    /// Reads a page of the history after an event ID.
    typealias History = @Sendable (_ after: Int) async throws -> EventPage

    let since: Int?
    let history: History
    let live: EventHub.Subscription
    let matches: @Sendable (ReminderEvent) -> Bool

    func makeAsyncIterator() -> Iterator {
        Iterator(replay: self, cursor: since, live: live.makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        fileprivate let replay: EventReplay
        /// Where the next history page starts; nil once the history is read (or none was asked for).
        fileprivate var cursor: Int?
        fileprivate var live: EventHub.Subscription.Iterator
        private var buffered: [Element] = []
        private var firstPage = true
        /// Live events up to this ID were in the history pages.
        private var replayedThrough = 0

        fileprivate init(replay: EventReplay, cursor: Int?, live: EventHub.Subscription.Iterator) {
            self.replay = replay
            self.cursor = cursor
            self.live = live
        }

        mutating func next() async throws -> Element? {
            while buffered.isEmpty, let after = cursor {
                let page = try await replay.history(after)
                if firstPage, page.dropped > 0 { buffered.append(.gap(dropped: page.dropped)) }
                firstPage = false
                buffered += zip(page.events, replay.live.hub.render(page.events)).map { .notice(.event($0, frame: $1)) }
                cursor = page.next
                if page.next == nil { replayedThrough = page.latest }
                await Task.yield()  // A long replay shares the thread with other requests.
            }
            if !buffered.isEmpty { return buffered.removeFirst() }
            while let notice = await live.next() {
                if case .event(let event, _) = notice, event.id <= replayedThrough || !replay.matches(event) {
                    continue
                }
                return .notice(notice)
            }
            return nil
        }
    }
}
