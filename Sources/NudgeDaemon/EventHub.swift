import Foundation
import NudgeCore
import Synchronization

/// Fans every scheduler decision out to the clients watching `/v1/events`.
final class EventHub: Sendable {
    /// Nil once finished: a stream subscribed after that ends at once.
    private let subscribers = Mutex<[UUID: AsyncStream<ReminderEvent>.Continuation]?>([:])

    /// A stream of every event published from now on; it ends when the subscriber stops reading, or when nudged
    /// stops.
    func subscribe() -> AsyncStream<ReminderEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ReminderEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0?.removeValue(forKey: id) }
        }
        let subscribed = subscribers.withLock { subscribers in
            subscribers?[id] = continuation
            return subscribers != nil
        }
        if !subscribed { continuation.finish() }
        return stream
    }

    /// How many streams are subscribed now.
    var subscriberCount: Int { subscribers.withLock { $0?.count ?? 0 } }

    func publish(_ events: [ReminderEvent]) {
        guard !events.isEmpty else { return }
        let current = subscribers.withLock { Array($0?.values ?? [:].values) }
        for continuation in current {
            for event in events { continuation.yield(event) }
        }
    }

    /// Ends every stream, so watching clients see the daemon go away, and refuses new ones.
    func finish() {
        let current = subscribers.withLock { subscribers in
            defer { subscribers = nil }
            return Array(subscribers?.values ?? [:].values)
        }
        for continuation in current { continuation.finish() }
    }
}
