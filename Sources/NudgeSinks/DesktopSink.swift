import Foundation
import Logging
import NudgeCore

/// Shows reminders as desktop notifications by running `notify-send`, one notification per item: when an item fires
/// again its notification is replaced in place, and when it is checked off or deleted the notification is closed
/// (org.freedesktop.Notifications.CloseNotification, through `gdbus`). Every program runs under `timeout`, so a
/// notification server that never answers holds up this sink for at most that long, and nothing else at all.
public actor DesktopSink: ReminderSink {
    public nonisolated let name = "desktop"
    /// notify-send and gdbus are stopped past this (SIGTERM, then SIGKILL a second later).
    public static let timeout: Duration = .seconds(5)

    private let runner: any ProcessRunner
    private let logger: Logger
    /// The notification server's ID for what each item shows now.
    private var shown: [Int: UInt32] = [:]

    public init(runner: any ProcessRunner = SubprocessRunner(), logger: Logger) {
        self.runner = runner
        self.logger = logger
    }

    public func deliver(_ delivery: Delivery) async {
        let itemID = delivery.reminder.itemID
        let outcome = await runner.run(Self.notifySend(delivery, replacing: shown[itemID]))
        guard outcome.succeeded else {
            logger.warning(
                "notify-send for item \(itemID) \(outcome.describe(timeout: Self.timeout))",
                metadata: outcome.standardError.isEmpty ? [:] : ["stderr": "\(outcome.standardError)"]
            )
            return
        }
        guard let notificationID = UInt32(outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            logger.warning("notify-send printed no notification ID for item \(itemID): \(outcome.standardOutput)")
            return
        }
        shown[itemID] = notificationID
        logger.debug("item \(itemID) shows as notification \(notificationID)")
    }

    public func withdraw(itemID: Int) async {
        guard let notificationID = shown.removeValue(forKey: itemID) else { return }
        let outcome = await runner.run(Self.closeNotification(notificationID))
        if outcome.succeeded {
            logger.debug("closed notification \(notificationID) of item \(itemID)")
        } else {
            // Most often the user closed it already, which the server answers with an error.
            logger.info(
                "closing notification \(notificationID) of item \(itemID): gdbus \(outcome.describe(timeout: Self.timeout))",
                metadata: outcome.standardError.isEmpty ? [:] : ["stderr": "\(outcome.standardError)"]
            )
        }
    }

    /// The notification stays until dismissed or withdrawn (`--expire-time=0`): a reminder that vanished while
    /// nobody looked would be no reminder. The list's name is the summary (plain text by the specification), with
    /// "due in 1h" for an advance warning, which the reminder then replaces on screen; the item's text is the body,
    /// escaped, so markup in it shows literally. `--` ends the options, so text starting with `-` is never read as
    /// one.
    static func notifySend(_ delivery: Delivery, replacing notificationID: UInt32?) -> ProcessCommand {
        let reminder = delivery.reminder
        // The item's priority is the notification's urgency; high is "critical", which servers keep on screen.
        let urgency =
            switch reminder.priority {
            case .low: "low"
            case .normal: "normal"
            case .high: "critical"
            }
        var arguments = ["--app-name=nudge", "--print-id", "--urgency=\(urgency)", "--expire-time=0"]
        if let notificationID { arguments.append("--replace-id=\(notificationID)") }
        var body = escapingBodyMarkup(reminder.text)
        if delivery.isLate {
            body += "\n(due \(reminder.due.formatted(date: .abbreviated, time: .shortened)))"
        }
        let summary = delivery.warningTimeLeft.map { "\(reminder.listName): due in \(DurationText.short($0))" }
        arguments += ["--", summary ?? reminder.listName, body]
        return ProcessCommand("notify-send", arguments, timeout: timeout, capturesOutput: true)
    }

    static func closeNotification(_ notificationID: UInt32) -> ProcessCommand {
        ProcessCommand(
            "gdbus",
            [
                "call", "--session", "--dest", "org.freedesktop.Notifications",
                "--object-path", "/org/freedesktop/Notifications",
                "--method", "org.freedesktop.Notifications.CloseNotification", "uint32 \(notificationID)",
            ],
            timeout: timeout,
            capturesOutput: true
        )
    }

    /// Body text may carry a small XML-like markup; escaping `&`, `<` and `>` makes the text show as written.
    static func escapingBodyMarkup(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
