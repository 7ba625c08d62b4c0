import Foundation
import NudgeCalendar

/// The core's one error: why a change to the checklists was refused, or why a time a person typed cannot be read.
/// Each reads as a sentence a person can act on.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal this is, for callers that map errors to API status codes.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        case unknownIcon = "unknown_icon"
        case unknownList = "unknown_list"
        case unknownItem = "unknown_item"
        case duplicateListName = "duplicate_list_name"
        case duplicateListID = "duplicate_list_id"
        case emptyText = "empty_text"
        case lastList = "last_list"
        case timeNotUnderstood = "time_not_understood"
        case invalidRepeat = "invalid_repeat"
        case unknownPriority = "unknown_priority"
        case invalidCatchUp = "invalid_catch_up"
        case invalidSnooze = "invalid_snooze"
        /// An instant the request asks for that the clock, as it reads now, cannot reach: a snooze until a time not
        /// ahead, a repeat rule with no occurrence ahead, or a snooze or clock move past the latest instant nudge can
        /// say. The same request may be fine at another reading of the clock, so it is a conflict with the state
        /// (409), not a malformed request.
        case instantOutOfReach = "instant_out_of_reach"
        case invalidWarning = "invalid_warning"
        case itemChecked = "item_checked"
        case calendarNotUnderstood = "calendar_not_understood"
        /// A due date given both as an instant and as a day: each field is valid, the two together are not (422).
        case invalidDue = "invalid_due"
        /// A repeat rule and a repeat after completion given together: likewise each valid, the two not (422).
        case conflictingRepeat = "conflicting_repeat"
        /// A change that cannot be taken back as things are: it is not a change, its items changed since, it is too
        /// large to have been kept (409).
        case notUndoable = "not_undoable"
        /// A change to a list kept in a folder (`ListLink`), or to its items, that only the folder may make, or a
        /// folder linked to another list already (409).
        case linkedList = "linked_list"
        /// A list with items of its own linked to a folder, whose tasks would be its items (409).
        case listNotEmpty = "list_not_empty"
        /// A folder to link that is not an absolute path (400).
        case invalidFolder = "invalid_folder"
        /// A task file another program changed since nudge last read it: nudge reads it again and does not write
        /// over it (409).
        case changedOnDisk = "changed_on_disk"
        /// A nag (`Nag`) not understood, or with a part out of range (400).
        case invalidNag = "invalid_nag"
    }

    public let code: Code
    public let description: String

    public static func unknownIcon(_ name: String) -> ModelError {
        let valid = IconName.allCases.map(\.rawValue).joined(separator: ", ")
        return ModelError(code: .unknownIcon, description: "unknown icon \"\(name)\"; valid icons are: \(valid)")
    }

    public static func unknownList(_ listID: Int) -> ModelError {
        ModelError(code: .unknownList, description: "there is no list with ID \(listID)")
    }

    public static func unknownList(named name: String) -> ModelError {
        ModelError(code: .unknownList, description: "there is no list named \"\(name)\"")
    }

    public static func unknownItem(_ itemID: Int) -> ModelError {
        ModelError(code: .unknownItem, description: "there is no item with ID \(itemID)")
    }

    public static func duplicateListName(_ name: String) -> ModelError {
        ModelError(
            code: .duplicateListName,
            description: "a list named \"\(name)\" already exists; list names are unique, ignoring case"
        )
    }

    public static func duplicateListID(_ listID: Int) -> ModelError {
        ModelError(code: .duplicateListID, description: "a list with ID \(listID) already exists")
    }

    public static func emptyText(_ what: String) -> ModelError {
        ModelError(code: .emptyText, description: "\(what) must not be empty")
    }

    public static func notUndoable(_ eventID: Int, because reason: String) -> ModelError {
        ModelError(code: .notUndoable, description: "event \(eventID) cannot be undone: \(reason); nothing changed")
    }

    /// An item put back (an undo) would hold the calendar task another item holds now, one imported again since.
    public static func calendarTaskTaken(_ uid: String, by itemID: Int) -> ModelError {
        ModelError(
            code: .notUndoable,
            description: "the calendar task \"\(uid)\" is item \(itemID) now (imported again since); remove item "
                + "\(itemID) first to have the old one back; nothing changed"
        )
    }

    public static func lastList(_ name: String) -> ModelError {
        ModelError(
            code: .lastList,
            description: "\"\(name)\" is the only list and cannot be removed; add another list first"
        )
    }

    /// What a time input error ends with: inputs that would work.
    static let timeExamples =
        "try tomorrow 9, fri 17:00, next monday 10:00, dec 1, 1 dec 9:30, tonight, noon, eod, "
        + "in 10m, 1h30m, 2026-12-01T09:00+01:00 or now"

    /// A time input (`TimeInput`) longer than any time a person types; not quoted back.
    public static func timeTooLong(length: Int, limit: Int) -> ModelError {
        ModelError(
            code: .timeNotUnderstood,
            description: "cannot read a time of \(length) bytes: a time is at most \(limit); \(timeExamples)"
        )
    }

    /// A time input (`TimeInput`) of which `part` is wrong, and why: `reason` says what range or shape it must have
    /// ("is out of range: hours run 0 to 23"); without one, the part "is not understood". The whole input, when
    /// empty, is said to be so.
    public static func timeNotUnderstood(_ part: String, in input: String, because reason: String? = nil)
        -> ModelError
    {
        let why =
            part.allSatisfy(\.isWhitespace) ? "it is empty" : "\"\(part)\" \(reason ?? "is not understood")"
        return ModelError(
            code: .timeNotUnderstood,
            description: "cannot read \"\(input)\" as a time: \(why); \(timeExamples)"
        )
    }

    /// A change that gives both a due instant and a due day.
    public static func dueTwice(_ instant: Date, _ day: CalendarDay) -> ModelError {
        ModelError(
            code: .invalidDue,
            description: "the item is given a due instant (\(InstantFormat.format(instant))) and a due day (\(day)); "
                + "give one: a day alone is due all that day"
        )
    }

    /// A repeat rule that is not a calendar expression systemd would accept, with the part and why.
    public static func invalidRepeat(_ error: CalendarSpecError) -> ModelError {
        ModelError(code: .invalidRepeat, description: error.description)
    }

    /// An RFC 5545 recurrence (`Recurrence`) that cannot be a repeat, and why.
    public static func invalidRecurrence(_ text: String, _ reason: String) -> ModelError {
        ModelError(
            code: .invalidRepeat,
            description: "cannot repeat by \"\(text)\": \(reason)"
        )
    }

    /// A repeat-after length that is not a length of time within `RepeatAfter`'s bounds.
    public static func invalidRepeatAfter(_ text: String, _ reason: String) -> ModelError {
        ModelError(
            code: .invalidRepeat,
            description: "cannot use \"\(text)\" as a repeat after completion: \(reason); give a length of time "
                + "from 1 hour to \(Int(RepeatAfter.maximumLength / 86_400)) days, like 2w, 10d or 36h (P2W, P10D or "
                + "PT36H in the API)"
        )
    }

    /// An item given both ways to repeat: a calendar rule and a length after completion.
    public static func repeatTwice(_ rule: String, after length: TimeInterval) -> ModelError {
        ModelError(
            code: .conflictingRepeat,
            description: "the item is given a repeat rule (\"\(rule)\") and a repeat after completion "
                + "(\(DurationText.iso8601(length))); give one: a rule repeats on the calendar, a length after each "
                + "check-off"
        )
    }

    public static func unknownPriority(_ text: String) -> ModelError {
        ModelError(code: .unknownPriority, description: "unknown priority \"\(text)\"; use low, normal or high")
    }

    /// A nag not understood (`text`, as given), or with a part out of range (`because`).
    public static func invalidNag(_ text: String, because reason: String) -> ModelError {
        ModelError(code: .invalidNag, description: "cannot repeat a reminder as \"\(text)\": \(reason)")
    }

    /// A catch-up rule not understood: as people type one (`2h`), or `exactly` as the API and the store hold one.
    public static func invalidCatchUp(_ text: String, exactly: Bool = false) -> ModelError {
        ModelError(
            code: .invalidCatchUp,
            description: "cannot read \"\(text)\" as a catch-up rule: use always, never, or "
                + (exactly ? "an ISO 8601 duration such as PT2H or PT90M" : "a duration such as 2h, 90m or PT2H")
                + " (how late a reminder may be found and still fire)"
        )
    }

    /// An advance warning that is not a length of time within `Warnings`' bounds, or one too many.
    public static func invalidWarning(_ text: String, _ reason: String) -> ModelError {
        ModelError(
            code: .invalidWarning,
            description: "cannot use \"\(text)\" as advance warnings: \(reason); give up to "
                + "\(Warnings.maximumCount) lengths of time before the due instant, each more than 0 and at most "
                + "\(Int(Warnings.maximumLead / 86_400)) days, like 1h,10m (or [\"PT1H\", \"PT10M\"] in the API)"
        )
    }

    public static func snoozeNotAhead(_ until: Date, now: Date) -> ModelError {
        ModelError(
            code: .instantOutOfReach,
            description: "cannot snooze until \(InstantFormat.format(until)): it is not after now "
                + "(\(InstantFormat.format(now))); snooze for a length of time, like 10m, or until a time to come"
        )
    }

    public static let clockPastLatestInstant = ModelError(
        code: .instantOutOfReach,
        description: "the clock cannot move past \(InstantFormat.format(InstantFormat.range.upperBound)), the latest "
            + "instant nudge can say; move it less far"
    )

    public static let snoozePastLatestInstant = ModelError(
        code: .instantOutOfReach,
        description: "cannot snooze past \(InstantFormat.format(InstantFormat.range.upperBound)), the latest instant "
            + "nudge can say; snooze for less"
    )

    public static func itemChecked(_ itemID: Int) -> ModelError {
        ModelError(
            code: .itemChecked,
            description:
                "item \(itemID) is checked off, so it has no reminder to snooze; uncheck it first (nudge undone)"
        )
    }

    /// A repeat rule with no occurrence after the instant the series would start from.
    public static func repeatWithoutOccurrence(_ expression: String, after start: Date) -> ModelError {
        ModelError(
            code: .instantOutOfReach,
            description: "the repeat rule \"\(expression)\" has no occurrence after \(InstantFormat.format(start)); "
                + (Recurrence.isRecurrence(expression)
                    ? "check its DTSTART, COUNT and UNTIL"
                    : "check its years and dates with 'nudge calendar \"\(expression)\"'")
        )
    }

    /// An iCalendar document (`nudge import`) out of shape at `line`: nothing of it is imported.
    public static func calendarNotUnderstood(line: Int, _ problem: String) -> ModelError {
        ModelError(
            code: .calendarNotUnderstood,
            description: "cannot read the calendar: line \(line): \(problem); nothing was imported (fix the file, or "
                + "export it again from the program that wrote it)"
        )
    }

    /// An item of a linked list changed by a batch, an import or an undo: its file is its truth, which nudge
    /// writes for a request about the item alone (`ReminderBook.fileChange`).
    public static func keptInFolder(_ itemID: Int, fileName: String?, list: Checklist) -> ModelError {
        let folder = list.link?.folder ?? ""
        let file = fileName.map { folder + "/" + $0 } ?? folder
        return ModelError(
            code: .linkedList,
            description: "item \(itemID) is kept in \(file), the folder of list \"\(list.name)\": change it alone "
                + "(nudge edit, done, undone, rm), not in a batch, an import or an undo, or change it there with "
                + "todoman"
        )
    }

    /// An item imported, moved, or added in a batch into a linked list.
    public static func linkedListTakesNoItems(_ list: Checklist) -> ModelError {
        ModelError(
            code: .linkedList,
            description: "list \"\(list.name)\" is kept in the folder \(list.link?.folder ?? ""): add a task to it "
                + "alone (nudge add --list \(list.name)), not in a batch, an import or a move, or with todoman"
        )
    }

    /// A change to an item of a linked list that nudge does not write to its file: the file keeps it.
    public static func notWrittenBack(_ itemID: Int, what: String, file: String) -> ModelError {
        ModelError(
            code: .linkedList,
            description: "item \(itemID) is kept in \(file), and nudge does not write \(what) there (it writes the "
                + "text, due date, priority, alarms and completion): change it with todoman or the program that "
                + "syncs it"
        )
    }

    /// A new item of a linked list with what nudge does not write to a new task file.
    public static func notWrittenBack(adding what: String, list: Checklist) -> ModelError {
        ModelError(
            code: .linkedList,
            description: "list \"\(list.name)\" is kept in the folder \(list.link?.folder ?? ""), and nudge does not "
                + "write \(what) to a new task there: add it without, or with todoman"
        )
    }

    /// A task file that is not as nudge last read it: another program changed it, or nudge has not read it since
    /// it started (`unread`). Nothing was written; the folder is read again.
    public static func changedOnDisk(_ path: String, unread: Bool = false) -> ModelError {
        ModelError(
            code: .changedOnDisk,
            description: unread
                ? "\(path) has not been read since nudged started (its folder was unavailable, or the file skipped): "
                    + "nudge writes only over what it read; see nudge lists, and try again once it is read"
                : "\(path) changed on disk since nudge read it (another program wrote, moved or removed it): nothing "
                    + "was written, and nudge read it again; look at the item, then try again"
        )
    }

    public static func folderLinkedTwice(_ folder: String, to listName: String) -> ModelError {
        ModelError(
            code: .linkedList,
            description: "the folder \(folder) is linked to list \"\(listName)\" already: a folder keeps one list's "
                + "items; unlink that list first (nudge list unlink \"\(listName)\")"
        )
    }

    public static func listNotEmpty(_ listName: String, count: Int) -> ModelError {
        ModelError(
            code: .listNotEmpty,
            description: "list \"\(listName)\" has \(count) item\(count == 1 ? "" : "s") of its own: a linked list's "
                + "items are its folder's tasks; link a new list (nudge list link NAME FOLDER makes it), or move or "
                + "remove these items first"
        )
    }

    /// The default list linked, or a linked list made the default: items added without a list go to the default.
    public static func defaultListLinked(_ listName: String) -> ModelError {
        ModelError(
            code: .linkedList,
            description: "list \"\(listName)\" is the default list, where nudge add puts items without --list, and a "
                + "linked list takes no items from nudge; make another list the default first (nudge list default NAME)"
        )
    }

    public static func folderNotAbsolute(_ folder: String) -> ModelError {
        ModelError(
            code: .invalidFolder,
            description: "\"\(folder)\" is not an absolute path: give the collection folder from / "
                + "(nudge list link resolves a relative one against the current directory)"
        )
    }

    public static func notLinked(_ listName: String) -> ModelError {
        ModelError(
            code: .linkedList,
            description: "list \"\(listName)\" is not linked to a folder; link it first (nudge list link NAME FOLDER)"
        )
    }
}
