import Foundation
import Logging
import NudgeCore

/// Shows reminders as desktop notifications, talking to the notification server over the session bus: one
/// notification per item, replaced in place when the item fires again, closed when it is checked off or deleted; and
/// one for the day's digest, which its follow-ups and the next day's digest replace.
/// Where the server offers actions, a notification has **Done** and **Snooze** buttons; what the user does with
/// it (a button, dismissing it) goes to the daemon through `listen`. Which notification shows which item is kept
/// in nudged's runtime directory, so a restarted nudged still replaces and closes what is on screen, as long as
/// the same server shows it. Every call is bounded by `timeout`: a server that never answers costs a delivery that
/// long, and nothing else at all.
public actor DesktopSink: ReminderSink {
    public nonisolated let name = "desktop"
    public static let timeout: Duration = .seconds(5)

    /// An item's notification on screen: its ID, and the due instant of the reminder it shows.
    struct Shown: Codable, Sendable, Equatable {
        var notification: UInt32
        var due: Date
        /// The server epoch it was shown in; a server change after it voids it. Not kept: a run starts at 0.
        var epoch = 0

        private enum CodingKeys: String, CodingKey {
            case notification, due
        }
    }

    /// The file kept in the runtime directory: the server that shows them, and what shows which item.
    private struct ShownFile: Codable {
        var server: String
        var shown: [String: Shown]
    }

    private let server: any NotificationServer
    private let shownFile: String?
    private let snoozeLabel: String
    private let logger: Logger
    private(set) var shown: [Int: Shown] = [:]
    /// Asked once per server: nil until then, and again when the server changes.
    private var capabilities: (offered: Set<String>, epoch: Int)?
    private var serverIdentity: String?
    /// The latest server change heard of (`NotificationSignal.serverChanged`).
    private var epoch = 0

    /// `shownFile` keeps which notification shows which item across restarts (nil: in memory only); `snoozeLength`
    /// labels the Snooze button.
    public init(
        server: any NotificationServer,
        shownFile: String?,
        snoozeLength: TimeInterval,
        logger: Logger
    ) {
        self.server = server
        self.shownFile = shownFile
        snoozeLabel = "Snooze \(DurationText.short(snoozeLength))"
        self.logger = logger
    }

    /// The key the day's digest notification is kept under in `shown`: no item has ID 0.
    static let digestKey = 0

    public func deliver(_ delivery: Delivery) async {
        await show(delivery.reminder.itemID, due: delivery.reminder.due, as: "item \(delivery.reminder.itemID)") {
            [snoozeLabel] replacing, capabilities in
            Self.notification(delivery, replacing: replacing, capabilities: capabilities, snoozeLabel: snoozeLabel)
        }
    }

    public func deliver(digest: DigestDelivery) async {
        await show(Self.digestKey, due: digest.instant, as: "the digest") { replacing, capabilities in
            Self.notification(digest, replacing: replacing, capabilities: capabilities)
        }
    }

    /// Shows what `make` builds, replacing what `key` shows, and keeps it as `key`'s.
    private func show(
        _ key: Int,
        due: Date,
        as what: String,
        _ make: (_ replacing: UInt32?, _ capabilities: Set<String>) -> DesktopNotification
    ) async {
        do {
            let capabilities = try await currentCapabilities()
            // Before showing: the file must not name a later server than the one that showed what it holds.
            if serverIdentity == nil { serverIdentity = try? await server.identity() }
            // Read after the waits: what the key shows may have changed meanwhile.
            let (notificationID, shownIn) = try await server.notify(make(shown[key]?.notification, capabilities))
            guard shownIn >= epoch else {
                logger.info("\(what) was shown by a notification server that has gone since")
                return
            }
            shown[key] = Shown(notification: notificationID, due: due, epoch: shownIn)
            save()
            logger.debug("\(what) shows as notification \(notificationID)")
        } catch {
            logger.warning("showing \(what) on the desktop: \(Self.describe(error))")
        }
    }

    public func withdraw(itemID: Int) async {
        guard let entry = shown.removeValue(forKey: itemID) else { return }
        save()
        await close(entry.notification, of: itemID)
    }

    /// Takes what the server says until nudged stops: a button pressed or a notification closed goes to `respond`
    /// with the item and the due instant its notification showed; a new server voids what the old one showed.
    public func listen(_ respond: @escaping @Sendable (_ itemID: Int, _ due: Date, NotificationResponse) async -> Void)
        async
    {
        for await signal in server.signals {
            switch signal {
            case .actionInvoked(let notificationID, let action):
                guard let response = NotificationResponse(rawValue: action), response == .done || response == .snooze,
                    let (itemID, entry) = take(notificationID)
                else { continue }
                // Done is done, and a snoozed reminder comes back as a new notification; servers that keep a
                // notification after an action (dunst) must not keep this one. Closed first: a reminder shown
                // while the response is recorded is a new notification, which this close cannot take away.
                await close(notificationID, of: itemID)
                await respond(itemID, entry.due, response)
            case .closed(let notificationID, let reason):
                // The digest closed is nothing to record: its items stay as they are.
                guard let (itemID, entry) = take(notificationID), itemID != Self.digestKey else { continue }
                switch reason {
                case 1: await respond(itemID, entry.due, .expired)
                case 2: await respond(itemID, entry.due, .dismissed)
                default: break  // Closed by a call: nudge's, or another program's.
                }
            case .serverChanged(let changed):
                epoch = max(epoch, changed)
                let gone = shown.filter { $0.value.epoch < changed }
                if !gone.isEmpty {
                    logger.info("the notification server changed; notifications gone with it: \(gone.count)")
                }
                shown = shown.filter { $0.value.epoch >= changed }
                if let asked = capabilities, asked.epoch < changed { capabilities = nil }
                serverIdentity = nil
                save()
            }
        }
    }

    /// At start: takes back what the last run kept, if the same server still shows it; else forgets it.
    public func restore() async {
        guard let shownFile, let data = FileManager.default.contents(atPath: shownFile) else { return }
        guard let saved = try? JSONDecoder().decode(ShownFile.self, from: data) else {
            logger.warning("\(shownFile) is not what nudged writes there; its notifications are forgotten")
            return
        }
        let kept = Dictionary(
            uniqueKeysWithValues: saved.shown.compactMap { key, value in Int(key).map { ($0, value) } }
        )
        do {
            let identity = try await server.identity()
            if identity == saved.server {
                shown = kept
                serverIdentity = identity
                let count =
                    kept.count == 1
                    ? "1 notification from before the restart is"
                    : "\(kept.count) notifications from before the restart are"
                logger.info("\(count) on screen still")
                return
            }
            logger.info(
                "the notification server restarted since nudged last ran; its \(kept.count) notifications are gone"
            )
        } catch {
            logger.warning(
                "cannot tell which notification server runs: \(Self.describe(error)); forgetting what it showed"
            )
        }
        save()
    }

    // MARK: Private

    private func currentCapabilities() async throws(BusError) -> Set<String> {
        if let capabilities, capabilities.epoch >= epoch { return capabilities.offered }
        let (offered, askedIn) = try await server.capabilities()
        capabilities = (offered, askedIn)
        logger.debug("the notification server supports: \(offered.sorted().joined(separator: ", "))")
        return offered
    }

    /// The item a notification shows, no longer kept as shown.
    private func take(_ notificationID: UInt32) -> (Int, Shown)? {
        guard let (itemID, entry) = shown.first(where: { $0.value.notification == notificationID }) else { return nil }
        shown.removeValue(forKey: itemID)
        save()
        return (itemID, entry)
    }

    private func close(_ notificationID: UInt32, of itemID: Int) async {
        do {
            try await server.close(notificationID)
            logger.debug("closed notification \(notificationID) of item \(itemID)")
        } catch {
            logger.info("closing notification \(notificationID) of item \(itemID): \(Self.describe(error))")
        }
    }

    /// Rewrites the runtime directory's file; it is small (one entry a notification on screen) and on a tmpfs.
    private func save() {
        guard let shownFile else { return }
        let file = ShownFile(
            server: serverIdentity ?? "",
            shown: Dictionary(uniqueKeysWithValues: shown.map { (String($0.key), $0.value) })
        )
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try encoder.encode(file).write(to: URL(fileURLWithPath: shownFile), options: .atomic)
        } catch {
            logger.warning("cannot keep which notification shows which item in \(shownFile): \(error)")
        }
    }

    private static func describe(_ error: BusError) -> String {
        error.isTimeout
            ? "the notification server did not answer within \(timeout.components.seconds) s"
            : error.description
    }

    /// The notification stays until dismissed or withdrawn (expire timeout 0): a reminder that vanished while
    /// nobody looked would be no reminder. The list's name and the item's ID are the summary (plain text by the
    /// specification), with "due in 1h" for an advance warning, which the reminder then replaces on screen; the item's text is the body,
    /// escaped where the server reads markup, so it shows as written.
    static func notification(
        _ delivery: Delivery,
        replacing notificationID: UInt32?,
        capabilities: Set<String>,
        snoozeLabel: String
    ) -> DesktopNotification {
        let reminder = delivery.reminder
        var body = capabilities.contains("body-markup") ? escapingBodyMarkup(reminder.text) : reminder.text
        if delivery.isLate {
            body += "\n(due \(reminder.due.formatted(date: .abbreviated, time: .shortened)))"
        }
        // The item's ID in the summary tells the user what `nudge done` takes, and keeps two items with the same text
        // apart: servers stack identical notifications into one (dunst's stack_duplicates), closing the first.
        let title = "\(reminder.listName) #\(reminder.itemID)"
        let summary = delivery.warningTimeLeft.map { "\(title): due in \(DurationText.short($0))" }
        // The item's priority is the notification's urgency; high is critical, which servers keep on screen.
        let urgency = UInt8(reminder.priority.rank)
        return DesktopNotification(
            replacesID: notificationID ?? 0,
            summary: summary ?? title,
            body: body,
            actions: capabilities.contains("actions")
                ? [NotificationResponse.done.rawValue, "Done", NotificationResponse.snooze.rawValue, snoozeLabel] : [],
            urgency: urgency
        )
    }

    /// The day's digest: what is due today and overdue in the summary, the items' texts in the body (the first
    /// `DigestDelivery.entryLimit` of each, and how many more), no buttons (Done for a list of items would say
    /// nothing of which). A follow-up says what it adds in the summary, and lists the day as the digest does.
    static func notification(_ delivery: DigestDelivery, replacing notificationID: UInt32?, capabilities: Set<String>)
        -> DesktopNotification
    {
        let digest = delivery.digest
        func lines(_ entries: [Digest.Entry], count: Int, label: String) -> [String] {
            guard count > 0 else { return [] }
            let more = count - entries.count
            return ["\(label):"] + entries.map { "• \($0.text)  #\($0.itemID)" }
                + (more > 0 ? ["• and \(more) more"] : [])
        }
        let text =
            (lines(digest.dueToday, count: digest.dueTodayCount, label: "Due today")
            + lines(digest.overdue, count: digest.overdueCount, label: "Overdue")).joined(separator: "\n")
        var counts: [String] = []
        if digest.dueTodayCount > 0 { counts.append("\(digest.dueTodayCount) due") }
        if digest.overdueCount > 0 { counts.append("\(digest.overdueCount) overdue") }
        let summary =
            delivery.isFollowUp
            ? "Also today: \(delivery.summary)"
            : "Today: " + (counts.isEmpty ? "nothing due" : counts.joined(separator: ", "))
        return DesktopNotification(
            replacesID: notificationID ?? 0,
            summary: summary,
            body: capabilities.contains("body-markup") ? escapingBodyMarkup(text) : text,
            actions: [],
            urgency: UInt8(Priority.normal.rank)
        )
    }

    /// Body text may carry a small XML-like markup; escaping `&`, `<` and `>` makes the text show as written.
    static func escapingBodyMarkup(_ text: String) -> String {
        text.replacingCharacters {
            switch $0 {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            default: nil
            }
        }
    }
}
