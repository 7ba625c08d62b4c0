import Logging
import NudgeCore

/// Somewhere a fired reminder goes. The daemon feeds each sink through a `SinkQueue` of its own, in the order the
/// scheduler decided, so a slow sink delays nothing but itself.
public protocol ReminderSink: Sendable {
    /// A short name for logs and `--help`: `journal`, `desktop`, `command`, `log`.
    var name: String { get }
    /// Shows or sends the reminder.
    func deliver(_ delivery: Delivery) async
    /// Shows or sends the day's digest of items due on a day, or a follow-up to it.
    func deliver(digest: DigestDelivery) async
    /// The item is done, deleted or no longer wants reminding: take back what this sink still shows of it.
    func withdraw(itemID: Int) async
    /// Every decision the scheduler made (scheduled, replaced, cancelled, fired, missed), for sinks that keep a
    /// record of them. Most sinks only deliver, so the default does nothing.
    func observe(_ event: ReminderEvent) async
}

extension ReminderSink {
    /// Most sinks show nothing that stays.
    public func withdraw(itemID: Int) async {}
    public func observe(_ event: ReminderEvent) async {}
}
