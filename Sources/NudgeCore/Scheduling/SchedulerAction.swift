import Foundation

/// What the scheduler asks the edges to do. The scheduler decides; whoever holds it does.
public enum SchedulerAction: Sendable, Equatable {
    /// Wake up at this wall-clock instant and tell the scheduler the time (replaces any earlier arming).
    case armTimer(at: Date)
    /// Nothing is pending: no wake-up is needed.
    case disarmTimer
    /// Deliver this reminder to every sink now.
    case deliver(Delivery)
    /// Deliver the day's digest (or a follow-up to it) to every sink now.
    case deliverDigest(DigestDelivery)
    /// The item is done, deleted, or no longer wants reminding: close whatever a sink still shows of it.
    case withdraw(itemID: Int)
}
