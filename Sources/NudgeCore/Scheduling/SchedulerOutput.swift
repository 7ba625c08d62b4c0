import Foundation

/// What one input to the scheduler produced.
public struct SchedulerOutput: Sendable, Equatable {
    public var actions: [SchedulerAction] = []
    public var events: [ReminderEvent] = []

    public init(actions: [SchedulerAction] = [], events: [ReminderEvent] = []) {
        self.actions = actions
        self.events = events
    }

    public var deliveries: [Delivery] {
        actions.compactMap { if case .deliver(let delivery) = $0 { delivery } else { nil } }
    }

    mutating func append(_ other: SchedulerOutput) {
        actions += other.actions
        events += other.events
    }
}
