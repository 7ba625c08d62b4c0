import Foundation
import NudgeCore
import NudgeSystem
import Synchronization

/// What the service needs of a store: what is durable, and a way to make changes durable. `ChecklistStore` is the
/// real one; unit tests use one in memory whose writes can fail.
public protocol DurableStore: Sendable {
    /// Where it is kept, for messages.
    var path: String { get }
    /// What is durable now.
    var library: ChecklistLibrary { get }
    /// Makes `changes` and the numbered `events` decided with them durable, in order, or throws and keeps none.
    func commit(_ changes: [ChecklistChange], events: [ReminderEvent]) throws(StoreError)
    /// A page of the durable events: up to `limit` after event `after` that `matches` accepts, looking at no more
    /// than `scanLimit`.
    func events(
        after: Int,
        limit: Int,
        scanLimit: Int,
        matching matches: (ReminderEvent) -> Bool
    ) throws(StoreError) -> EventPage
}
