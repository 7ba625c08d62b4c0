import Foundation

/// Repeating after completion (`--repeat-after 2w`): checking the item off does not close it but makes it due again
/// this long after it was done, for what is due some time after it was last done rather than on a fixed calendar
/// (a haircut, a filter, a backup). The other way to repeat, a calendar rule (`repeatRule`), is the fixed schedule;
/// an item has one or the other.
public enum RepeatAfter {
    /// Shorter would be a nag, not a repeat.
    public static let minimumLength: TimeInterval = 3600
    /// Ten years of 366 days: longer is no reminder.
    public static let maximumLength: TimeInterval = 3660 * 86_400

    /// Checks a length given as seconds; `text` is what the person or program wrote, for the error.
    public static func validated(_ length: TimeInterval, as text: String? = nil) throws(ModelError) -> TimeInterval {
        guard length >= minimumLength, length <= maximumLength else {
            let why =
                length < minimumLength
                ? "it is shorter than an hour" : "it is longer than \(Int(maximumLength / 86_400)) days"
            throw .invalidRepeatAfter(text ?? DurationText.iso8601(length), why)
        }
        return length
    }

    /// Reads a length as people type it (`2w`, `36h`, `P2W`).
    public static func parse(_ text: String) throws(ModelError) -> TimeInterval {
        guard let seconds = DurationText.seconds(text) else { throw .invalidRepeatAfter(text, "it is not a duration") }
        return try validated(seconds, as: text)
    }

    /// Reads a length as the API and the iCalendar files take it: an ISO 8601 duration (`P2W`, `PT36H`).
    public static func parseISO8601(_ text: String) throws(ModelError) -> TimeInterval {
        guard let seconds = DurationText.iso8601Seconds(text) else {
            throw .invalidRepeatAfter(text, "it is not an ISO 8601 duration")
        }
        return try validated(seconds, as: text)
    }

    /// How many days a length moves an item due on a day: whole days, rounded up (`36h` is 2 days, `1h` is 1).
    static func days(in length: TimeInterval) -> Int { max(1, Int((length / 86_400).rounded(.up))) }

    /// `item` checked off at `completedAt` (in `zone`): open again, due `length` later (an item due on a day, that many
    /// days after the day it was done), with its completion recorded in `completedThrough` (the due date it
    /// completed, or the moment of completion for an item that had none) and a snooze ended.
    static func completing(_ item: ChecklistItem, length: TimeInterval, at completedAt: Date, in zone: TimeZone)
        -> ChecklistItem
    {
        var item = item
        item.checked = false
        item.snoozedUntil = nil
        item.completedThrough = item.dueDate ?? completedAt
        if item.dueDay != nil {
            let day = CalendarDay(containing: completedAt, in: zone)
            item.setDueDay(CalendarDay(days: day.days + days(in: length)) ?? day, in: zone)
        } else {
            item.dueDate = min(completedAt + length, InstantFormat.range.upperBound)
        }
        return item
    }
}
