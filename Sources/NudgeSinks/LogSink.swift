import Logging
import NudgeCore

/// Writes each reminder as a log line (stderr by default): useful before the journal and desktop are set up, and
/// on any machine where stderr is collected.
public struct LogSink: ReminderSink {
    public let name = "log"
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func deliver(_ delivery: Delivery) async {
        let reminder = delivery.reminder
        logger.notice(
            delivery.warningTimeLeft.map { "due in \(DurationText.short($0)): \(reminder.text)" }
                ?? "reminder: \(reminder.text)",
            metadata: [
                "item": "\(reminder.itemID)",
                "list": "\(reminder.listName)",
                "due": "\(reminder.due.formatted(.iso8601))",
                "late": "\(delivery.isLate ? "\(Int(delivery.lateBy))s" : "no")",
            ]
        )
    }

    public func deliver(digest: DigestDelivery) async {
        logger.notice(
            digest.isFollowUp
                ? "added to today's digest: \(digest.summary)" : "today's digest: \(digest.summary)",
            metadata: [
                "day": "\(digest.digest.day.iso)",
                "items": "\(digest.itemIDs.map(String.init).joined(separator: ","))",
                "late": "\(digest.isLate ? "\(Int(digest.lateBy))s" : "no")",
            ]
        )
    }
}
