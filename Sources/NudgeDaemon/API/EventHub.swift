import Foundation
import NudgeCore
import NudgeStore
import Synchronization

/// Fans every scheduler decision out to the clients watching `/v1/events`.
///
/// Each watcher may fall behind by `byteLimit` bytes of events, counted as each event's text and list name plus
/// `eventOverhead`. A watcher further behind (one that stopped reading) is dropped: its stream ends with a
/// `.dropped` notice, so it costs nudged at most that much memory, and nobody else waits for it.
final class EventHub: Sendable {
    /// What a watcher's stream carries: events, then possibly one last notice.
    enum Notice: Sendable {
        /// An event, and its frame as the stream sends it, made once for every watcher.
        case event(ReminderEvent, frame: [UInt8])
        /// The watcher fell more than `limit` bytes behind, and its stream ends here.
        case dropped(limit: Int)
    }

    /// How far behind a watcher may fall, in bytes.
    let byteLimit: Int
    /// Makes the frames the streams send, one per event, in order.
    typealias Render = @Sendable ([ReminderEvent]) -> [[UInt8]]
    let render: Render
    /// What an event costs beyond its text and list name: its other fields, as the stream sends them, fit in this.
    static let eventOverhead = 256

    private struct Subscriber {
        let continuation: AsyncStream<Notice>.Continuation
        /// Bytes of events yielded and not yet taken.
        var behind = 0
    }

    /// Nil once finished: a stream subscribed after that ends at once.
    private let subscribers = Mutex<[UUID: Subscriber]?>([:])

    init(byteLimit: Int = 1 << 20, render: @escaping Render = { $0.map { _ in [] } }) {
        self.byteLimit = byteLimit
        self.render = render
    }

    /// Every event published from now on; it ends when the subscriber stops iterating, falls too far behind, or
    /// nudged stops.
    func subscribe() -> Subscription {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Notice>.makeStream()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0?.removeValue(forKey: id) }
        }
        let subscribed = subscribers.withLock { subscribers in
            subscribers?[id] = Subscriber(continuation: continuation)
            return subscribers != nil
        }
        if !subscribed { continuation.finish() }
        return Subscription(hub: self, id: id, stream: stream)
    }

    /// How many streams are subscribed now.
    var subscriberCount: Int { subscribers.withLock { $0?.count ?? 0 } }

    /// Hands `events` to every watcher. Each event is rendered once, however many watch, and not at all when none
    /// does: a change pays for its events' frames, never per watcher.
    func publish(_ events: [ReminderEvent]) {
        guard !events.isEmpty, subscriberCount > 0 else { return }
        let frames = render(events)
        let cost = events.reduce(0) { $0 + Self.cost(of: $1) }
        let (keeping, dropping) = subscribers.withLock { subscribers in
            var keeping: [AsyncStream<Notice>.Continuation] = []
            var dropping: [AsyncStream<Notice>.Continuation] = []
            for (id, var subscriber) in subscribers ?? [:] {
                if subscriber.behind + cost > byteLimit {
                    subscribers?[id] = nil
                    dropping.append(subscriber.continuation)
                } else {
                    subscriber.behind += cost
                    subscribers?[id] = subscriber
                    keeping.append(subscriber.continuation)
                }
            }
            return (keeping, dropping)
        }
        // Outside the lock: finishing runs `onTermination`, which takes it.
        for continuation in keeping {
            for (event, frame) in zip(events, frames) { continuation.yield(.event(event, frame: frame)) }
        }
        for continuation in dropping {
            continuation.yield(.dropped(limit: byteLimit))
            continuation.finish()
        }
    }

    /// Ends every stream, so watching clients see the daemon go away, and refuses new ones.
    func finish() {
        let current = subscribers.withLock { subscribers in
            defer { subscribers = nil }
            return (subscribers ?? [:]).values.map(\.continuation)
        }
        for continuation in current { continuation.finish() }
    }

    fileprivate func taken(_ event: ReminderEvent, by id: UUID) {
        subscribers.withLock { $0?[id]?.behind -= Self.cost(of: event) }
    }

    private static func cost(of event: ReminderEvent) -> Int {
        event.text.utf8.count + event.listName.utf8.count + eventOverhead
    }

    /// One watcher's stream; taking an event from it makes room for another.
    struct Subscription: AsyncSequence, Sendable {
        let hub: EventHub
        fileprivate let id: UUID
        fileprivate let stream: AsyncStream<Notice>

        func makeAsyncIterator() -> Iterator {
            Iterator(hub: hub, id: id, base: stream.makeAsyncIterator())
        }

        struct Iterator: AsyncIteratorProtocol {
            fileprivate let hub: EventHub
            fileprivate let id: UUID
            fileprivate var base: AsyncStream<Notice>.Iterator

            mutating func next() async -> Notice? {
                let notice = await base.next()
                if case .event(let event, _) = notice { hub.taken(event, by: id) }
                return notice
            }
        }
    }
}
