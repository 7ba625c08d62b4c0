import Logging
import NudgeCore
import NudgeSystem
import Synchronization

/// Feeds one sink its work on a task of its own, in the order it was enqueued: a withdrawal never overtakes the
/// delivery it takes back, and a sink that hangs holds up only its own queue. Enqueuing never waits.
public final class SinkQueue: Sendable {
    public enum Work: Sendable, Equatable {
        case deliver(Delivery)
        case deliverDigest(DigestDelivery)
        case withdraw(itemID: Int)
        case observe(ReminderEvent)
    }

    /// Work kept waiting behind a stuck sink, at most; more is dropped, and the first drop is logged.
    public static let capacity = 10_000

    public let sink: any ReminderSink
    private let continuation: AsyncStream<Work>.Continuation
    /// Ends when the task feeding the sink has done all its work. Waited on, unlike that task's value, it can be given
    /// up on: a wait for the value of a task stuck in a sink for good (a journald that never reads) never ends.
    private let drained: AsyncStream<Void>
    private let hasDropped = Atomic<Bool>(false)
    private let logger: Logger

    public init(_ sink: any ReminderSink, logger: Logger) {
        self.sink = sink
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(
            of: Work.self,
            bufferingPolicy: .bufferingOldest(Self.capacity)
        )
        self.continuation = continuation
        let (drained, drainedContinuation) = AsyncStream<Void>.makeStream()
        self.drained = drained
        Task {
            defer { drainedContinuation.finish() }
            for await work in stream {
                switch work {
                case .deliver(let delivery): await sink.deliver(delivery)
                case .deliverDigest(let digest): await sink.deliver(digest: digest)
                case .withdraw(let itemID): await sink.withdraw(itemID: itemID)
                case .observe(let event): await sink.observe(event)
                }
            }
        }
    }

    public func enqueue(_ work: Work) {
        guard case .dropped = continuation.yield(work) else { return }
        if !hasDropped.exchange(true, ordering: .relaxed) {
            logger.error(
                "the \(sink.name) sink is not keeping up: \(Self.capacity) items wait for it; newer ones are dropped"
            )
        }
    }

    /// Takes no more work and waits until what is queued is done, or `timeout` has passed. Once only: at the end.
    public func finish(within timeout: Duration) async {
        continuation.finish()
        let drained = drained
        await withTaskGroup(of: Void.self) { group in
            // Both waits end when cancelled, so the group ends at the first of them, whatever the sink is doing.
            group.addTask { for await _ in drained {} }
            group.addTask { try? await EventLoopClock().sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }
}
