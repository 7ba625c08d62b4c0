import Foundation
import NudgeCore

/// One structured journal entry, its fields in the order they are sent. Values are sent length-delimited, so no
/// newline, `=` or NUL in them can start a field of its own.
public struct JournalEntry: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public private(set) var fields: [Field] = []

    /// The fixed MESSAGE_ID of each kind of entry, for `journalctl MESSAGE_ID=…`. Never change one: people's
    /// queries and alerts name them.
    public static func messageID(of kind: ReminderEvent.Kind) -> String {
        switch kind {
        case .fired: "28c762f3a8fece76dcfed12e357523d6"
        case .missed: "72f7bf7230b9074eeda6e1df4c91daad"
        case .scheduled: "e640508344e5d57ab99ebfd37b8cf9b4"
        case .replaced: "24c5bbf9930c375e9d02361fd8d59084"
        case .cancelled: "ab1437b7f104fd97cd3bf09055645fde"
        case .snoozed: "57e60be36ae4a3a63aa01d34b18d620b"
        case .completed: "017cdb8c95ae4e1abaf93d870403375a"
        case .warned: "2617270170764842b07c5e1b3dd07b7e"
        case .dismissed: "ab6c533a88b845bda43d59d0f4b1f6b3"
        case .acknowledged: "b4aa6212c6734b61a0cc02aec8b28a74"
        case .renotified: "770101804c71415c9215ac3c957813bf"
        case .exhausted: "b517caa5fb8c443f80714ce1376f4eaf"
        case .expired: "c530e9028b9a4487bac95d352cb48776"
        case .digest: "8ebfc08e841a4a42af242776147f4ffb"
        case .changed: "c916ac1676de7a29960718eaabfd3489"
        case .undone: "2c732a7dfb3962a315dd8d12b86ce3cc"
        }
    }

    /// The MESSAGE_ID of an advance warning reported `missed`.
    public static let missedWarningMessageID = "28e00b2040764a38b076f84d81541a32"

    /// syslog priorities: a reminder (or advance warning) of normal priority that fires is a notice (5); one that
    /// fires late or is missed, a warning (4). A low-priority one is information (6), a high-priority one critical
    /// (2). A digest is a notice, as a reminder on time. The scheduler's other decisions are information.
    public static func priority(of event: ReminderEvent) -> Int {
        switch (event.kind, event.priority ?? .normal) {
        case (.fired, .low), (.warned, .low), (.missed, .low), (.renotified, .low): 6
        case (.fired, .high), (.warned, .high), (.missed, .high), (.renotified, .high): 2
        case (.fired, .normal), (.warned, .normal), (.renotified, .normal):
            (event.lateBy ?? 0) >= ReminderScheduler.lateThreshold ? 4 : 5
        case (.missed, .normal): 4
        case (.digest, _): 5
        case (.scheduled, _), (.replaced, _), (.cancelled, _), (.snoozed, _), (.completed, _), (.dismissed, _),
            (.acknowledged, _), (.exhausted, _), (.expired, _), (.changed, _), (.undone, _):
            6
        }
    }

    public init(_ event: ReminderEvent) {
        let due = InstantFormat.format(event.due)
        let message =
            switch event.kind {
            case .fired: event.text
            case .missed where event.warning != nil:
                "missed warning \(DurationText.short(event.warning ?? 0)) ahead (nudged was not running): \(event.text)"
            case .missed: "missed (nudged was not running when it fell due): \(event.text)"
            case .scheduled: "scheduled for \(due): \(event.text)"
            case .replaced: "rescheduled for \(due): \(event.text)"
            case .cancelled: "cancelled: \(event.text)"
            case .snoozed where event.source == .notification:
                "snoozed until \(due), from the notification: \(event.text)"
            case .snoozed: "snoozed until \(due): \(event.text)"
            case .completed where event.source == .notification: "done, from the notification: \(event.text)"
            case .completed: "occurrence of \(due) completed: \(event.text)"
            case .warned: "due in \(DurationText.short(event.warningTimeLeft ?? 0)) (\(due)): \(event.text)"
            case .dismissed: "notification dismissed: \(event.text)"
            case .acknowledged: "acknowledged: \(event.text)"
            case .renotified: "again (\(event.repeatNumber ?? 0)), not acknowledged yet: \(event.text)"
            case .exhausted: "no more repeats (\(event.repeatNumber ?? 0)), still not acknowledged: \(event.text)"
            case .expired: "notification expired: \(event.text)"
            case .digest: event.text
            case .changed: "changed: \(event.text)"
            case .undone: event.text
            }
        append("MESSAGE", message)
        append("PRIORITY", String(Self.priority(of: event)))
        // A warning found too late is `missed` in the API, with a MESSAGE_ID of its own: `MESSAGE_ID=` queries for
        // missed reminders do not count it.
        append(
            "MESSAGE_ID",
            event.kind == .missed && event.warning != nil ? Self.missedWarningMessageID : Self.messageID(of: event.kind)
        )
        append("SYSLOG_IDENTIFIER", "nudge")
        append("NUDGE_EVENT", event.kind.rawValue)
        // The event's ID in nudged's history (`nudge events`): a reader that sees one twice has seen one event.
        append("NUDGE_EVENT_ID", String(event.id))
        if event.kind == .digest {
            // About several items: `journalctl NUDGE_EVENT=digest` lists the days' digests.
            append("NUDGE_ITEM_IDS", (event.itemIDs ?? []).map(String.init).joined(separator: " "))
            if let day = event.day { append("NUDGE_DAY", day.iso) }
        } else {
            append("NUDGE_ITEM_ID", String(event.itemID))
            append("NUDGE_LIST", event.listName)
        }
        if event.kind.isChange {
            // A change may be of several items (`NUDGE_ITEM_ID=0`): these are all of them.
            append("NUDGE_ITEM_IDS", (event.itemIDs ?? []).map(String.init).joined(separator: " "))
            if let undid = event.undid { append("NUDGE_UNDID", String(undid)) }
        }
        append("NUDGE_DUE", due)
        // When nudged decided, by its clock: under `--clock manual`, the virtual instant, unlike the entry's own time.
        append("NUDGE_AT", InstantFormat.format(event.at))
        if let lateBy = event.lateBy {
            append("NUDGE_LATE_USEC", String(Int64((max(lateBy, 0) * 1_000_000).rounded())))
        }
        // A recurring reminder found late stands for every occurrence that passed unwatched.
        if let coalesced = event.coalesced { append("NUDGE_COALESCED", String(coalesced)) }
        // A repeat of a fire not acknowledged (`renotified`, `exhausted`): which one.
        if let number = event.repeatNumber { append("NUDGE_REPEAT_COUNT", String(number)) }
        append("NUDGE_PRIORITY", (event.priority ?? .normal).rawValue)
        if let catchUp = event.catchUp { append("NUDGE_CATCH_UP", catchUp.description) }
        // An advance warning: how long before NUDGE_DUE it was meant to come.
        if let warning = event.warning { append("NUDGE_WARNING", DurationText.iso8601(warning)) }
        // What the user did on the desktop notification led to this event.
        if let source = event.source { append("NUDGE_SOURCE", source.rawValue) }
    }

    /// journald's rule for a field an application may set: 1 to 64 of A–Z, 0–9 and `_`, not starting with a digit
    /// or `_` (those are journald's own trusted fields). journald silently drops fields that break it.
    public static func isValidFieldName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64, first != UInt8(ascii: "_"),
            !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return name.utf8.allSatisfy {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }

    /// The first field name journald would refuse, if any.
    public var invalidFieldName: String? { fields.first { !Self.isValidFieldName($0.name) }?.name }

    mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }
}
