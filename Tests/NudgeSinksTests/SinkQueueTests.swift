import Foundation
import Logging
import NudgeCore
import Synchronization
import Testing

@testable import NudgeSinks

@Suite struct SinkQueueTests {
    /// A sink whose first delivery hangs until the gate opens; it records what it saw, in order.
    final class GatedSink: ReminderSink {
        let name = "gated"
        let seen = Mutex<[String]>([])
        let gate = AsyncStream<Void>.makeStream()

        func deliver(_ delivery: Delivery) async {
            if delivery.reminder.itemID == 1 {
                for await _ in gate.stream { break }
            }
            seen.withLock { $0.append("deliver \(delivery.reminder.itemID)") }
        }

        func deliver(digest: DigestDelivery) async { seen.withLock { $0.append("digest \(digest.itemIDs)") } }

        func withdraw(itemID: Int) async { seen.withLock { $0.append("withdraw \(itemID)") } }

        func observe(_ event: ReminderEvent) async { seen.withLock { $0.append("\(event.kind) \(event.itemID)") } }
    }

    @Test func workReachesTheSinkInOrderAndEnqueuingNeverWaitsForIt() async {
        let sink = GatedSink()
        let queue = SinkQueue(sink, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        for itemID in 1...5 {
            let reminder = Reminder(itemID: itemID, text: "t", listName: "L", due: due)
            queue.enqueue(.deliver(Delivery(reminder: reminder, firedAt: due, lateBy: 0)))
            queue.enqueue(.withdraw(itemID: itemID))
        }
        queue.enqueue(
            .observe(ReminderEvent(.cancelled, of: Reminder(itemID: 9, text: "t", listName: "L", due: due), at: due))
        )
        // Everything was enqueued while the sink hung on its first delivery.
        #expect(sink.seen.withLock { $0 }.isEmpty)
        sink.gate.continuation.yield()
        await queue.finish(within: .seconds(300))  // returns as soon as the queue is done
        #expect(
            sink.seen.withLock { $0 } == (1...5).flatMap { ["deliver \($0)", "withdraw \($0)"] } + ["cancelled 9"]
        )
    }

    /// A sink stuck for good, in a wait nothing cancels (a send to a journald that never reads): finishing its queue
    /// gives up on it after the timeout instead of waiting for ever.
    @Test(.timeLimit(.minutes(1))) func finishingGivesUpOnASinkStuckForGood() async throws {
        final class StuckSink: ReminderSink {
            let name = "stuck"
            let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
            func deliver(_ delivery: Delivery) async {}
            func deliver(digest: DigestDelivery) async {}
            func withdraw(itemID: Int) async {}
            func observe(_ event: ReminderEvent) async {
                await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
            }
            var isStuck: Bool { waiting.withLock { $0 != nil } }
        }
        let sink = StuckSink()
        let queue = SinkQueue(sink, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        queue.enqueue(
            .observe(ReminderEvent(.cancelled, of: Reminder(itemID: 9, text: "t", listName: "L", due: due), at: due))
        )
        // The time limit detects a hang; how long the timeout takes is not asserted.
        await queue.finish(within: .milliseconds(10))
        // Released at last, so the test leaves nothing waiting; it may not have begun to wait yet.
        while !sink.isStuck { await Task.yield() }
        sink.waiting.withLock { $0?.resume() }
    }
}
