import Foundation
import NudgeCore
import NudgeSinks
import NudgeStore
import Synchronization

/// Keeps every delivery, withdrawal and event in memory, in order.
package final class RecordSink: ReminderSink {
    package enum Entry: Sendable, Equatable {
        case delivered(Delivery)
        case digest(DigestDelivery)
        case withdrawn(itemID: Int)
        case observed(ReminderEvent)
    }

    package let name = "record"

    package init() {}
    private let recorded = Mutex<[Entry]>([])

    package var entries: [Entry] { recorded.withLock { $0 } }

    package func deliver(_ delivery: Delivery) async {
        recorded.withLock { $0.append(.delivered(delivery)) }
    }

    package func deliver(digest: DigestDelivery) async {
        recorded.withLock { $0.append(.digest(digest)) }
    }

    package func withdraw(itemID: Int) async {
        recorded.withLock { $0.append(.withdrawn(itemID: itemID)) }
    }

    package func observe(_ event: ReminderEvent) async {
        recorded.withLock { $0.append(.observed(event)) }
    }
}

extension RecordSink.Entry {
    package var eventKind: ReminderEvent.Kind? {
        if case .observed(let event) = self { event.kind } else { nil }
    }

    package var delivery: Delivery? {
        if case .delivered(let delivery) = self { delivery } else { nil }
    }
}
