import Foundation
import NudgeCore
import Synchronization

/// Fans every scheduler decision out to the clients watching `/v1/events`.
final class EventHub: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<ReminderEvent>.Continuation]>([:])

    /// A stream of every event published from now on; it ends when the subscriber stops reading.
    func subscribe() -> AsyncStream<ReminderEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ReminderEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// How many streams are subscribed now.
    var subscriberCount: Int { subscribers.withLock { $0.count } }

    func publish(_ events: [ReminderEvent]) {
        guard !events.isEmpty else { return }
        let current = subscribers.withLock { Array($0.values) }
        for continuation in current {
            for event in events { continuation.yield(event) }
        }
    }

    /// Ends every stream, so watching clients see the daemon go away.
    func finish() {
        let current = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for continuation in current { continuation.finish() }
    }
}
