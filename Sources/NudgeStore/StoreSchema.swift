import Foundation
import NudgeCore

/// The on-disk schema in one place: the formats the store has had, and every key each stored record is written
/// under. The encoder, the full decoder (Foundation's, which names a wrong field) and the fast snapshot reader
/// (`SnapshotReader`) are all driven by these tables, so a field added to one is written, read and read fast alike,
/// and a key no table has is refused, never dropped. docs/STORE.md describes the files for people.
public enum StoreSchema {
    /// A format the store has had: its version, and what it changed.
    struct Format: Sendable {
        let version: Int
        let change: String
    }

    /// Every format, oldest first. A store in an older one is read as it is (a key a format added reads as absent,
    /// its field as the blank record's) and rewritten in the newest on open; a newer one is refused, never
    /// overwritten. A new format goes last, and its keys go in the tables below with the version they are required
    /// from, if they are.
    static let formats = [
        Format(version: 1, change: "the property list alone, rewritten on every change"),
        Format(
            version: 2,
            change: "the property list is a snapshot that names the last change-log record it includes "
                + "(logSequence), and a change log beside it holds the changes since"
        ),
        Format(version: 3, change: "items may recur (repeat, completedThrough)"),
        Format(
            version: 4,
            change: "items have a priority, and may have a catchUp rule, a snoozedUntil, warnings and a "
                + "warnedThrough; the library may have a defaultListID"
        ),
        Format(
            version: 5,
            change: "the library has a storeID (made on open for an older store), and items may have the uid of the "
                + "calendar task they came from"
        ),
        Format(version: 6, change: "a checked-off item may say when it was completed (completedAt)"),
        Format(version: 7, change: "an item may be due on a day without a time (dueDay)"),
        Format(
            version: 8,
            change: "a list may have a digestTime of its own, and says the last day its digest went out "
                + "(digestSentOn; changes setDigestTime and markDigestSent)"
        ),
        Format(version: 9, change: "an item may repeat after completion (repeatAfter)"),
        Format(
            version: 10,
            change: "events may be changes of the user's (changed, undone), which keep what they did to their items "
                + "(undo) in the change log and the history"
        ),
        Format(
            version: 11,
            change: "an item's repeat may be an RFC 5545 recurrence (DTSTART:… RRULE:…), which an older nudged "
                + "would read as no repeat"
        ),
        Format(
            version: 12,
            change: "a list may be kept in a folder of task files (link; change setLink), and its items name their "
                + "file there (fileName)"
        ),
        Format(
            version: 13,
            change: "an item may say its fired reminder awaits acknowledgement (unacknowledgedSince), may repeat it "
                + "until then (nag, repeatCount), and events may be acknowledged, renotified or exhausted"
        ),
    ]

    public static let currentVersion = formats[formats.count - 1].version
}

/// An item.
extension ChecklistItem: StoredRecord {
    /// `repeatCount` as stored: left out while it is 0, as nearly every item's is.
    var storedRepeatCount: Int? {
        get { repeatCount == 0 ? nil : repeatCount }
        set { repeatCount = newValue ?? 0 }
    }

    typealias Box = StoredItem
    static let fields: [StoredField<ChecklistItem>] = [
        .init("itemID", \.itemID, .required),
        .init("text", \.text, .required),
        .init("checked", \.checked, .required),
        .init("completedAt", \.completedAt),
        .init("dueDate", \.dueDate),
        .init("dueDay", \.dueDay),
        .init("shouldRemind", \.shouldRemind, .required),
        .init("createdAt", \.createdAt, .required),
        .init("updatedAt", \.updatedAt, .required),
        .init("lastFiredAt", \.lastFiredAt),
        .init("repeat", \.repeatRule),
        .init("repeatAfter", \.repeatAfter),
        .init("completedThrough", \.completedThrough),
        .init("priority", \.priority),
        .init("catchUp", \.catchUp),
        .init("snoozedUntil", \.snoozedUntil),
        .init("warnings", \.warnings),
        .init("warnedThrough", \.warnedThrough),
        .init("unacknowledgedSince", \.unacknowledgedSince),
        .init("nag", \.nag),
        .init("repeatCount", \.storedRepeatCount),
        .init("uid", \.calendarUID),
        .init("fileName", \.fileName),
    ]

    static let blank = ChecklistItem(itemID: 0, text: "", createdAt: Date(timeIntervalSinceReferenceDate: 0))
    static let fieldIndex = makeFieldIndex()
    static let readerSlot = 0
}

/// A list.
extension Checklist: StoredRecord {
    typealias Box = StoredList
    static let fields: [StoredField<Checklist>] = [
        .init("listID", \.listID, .required),
        .init("name", \.name, .required),
        .init("iconName", \.iconName, .required),
        .init("items", \.items, .required),
        .init("digestTime", \.digestTime),
        .init("digestSentOn", \.digestSentOn),
        .init("link", \.link),
    ]

    static let blank = Checklist(listID: 0, name: "")
    static let fieldIndex = makeFieldIndex()
    static let readerSlot = 1
}

/// A list's link to a folder of task files.
extension ListLink: StoredRecord {
    typealias Box = StoredLink
    static let fields: [StoredField<ListLink>] = [
        .init("folder", \.folder, .required),
        .init("remindsAtDue", \.remindsAtDue, .required),
    ]

    static let blank = ListLink(folder: "")
    static let fieldIndex = makeFieldIndex()
    static let readerSlot = 3
}
