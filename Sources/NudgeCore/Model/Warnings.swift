import Foundation

/// Advance warnings: lengths of time before its due instant at which an item's reminder warns that it is coming.
/// They are part of the item's pending set (replaced by every edit, cancelled by a check-off), and stored and
/// answered longest lead first, so the earliest warning comes first.
public enum Warnings {
    public static let maximumCount = 8
    /// A warning is about a reminder to come, not a calendar: a year ahead at most.
    public static let maximumLead: TimeInterval = 366 * 86_400

    /// Checks and orders leads given as seconds: each more than 0 and at most `maximumLead`, at most
    /// `maximumCount` of them; duplicates count once.
    public static func normalized(_ leads: [TimeInterval]) throws(ModelError) -> [TimeInterval] {
        let text = leads.map(DurationText.iso8601).joined(separator: ",")
        for lead in leads where !(lead > 0 && lead <= maximumLead) {
            throw .invalidWarning(text, "\(DurationText.iso8601(lead)) is not more than 0 and at most a year")
        }
        guard leads.count <= maximumCount else { throw .invalidWarning(text, "there are \(leads.count) of them") }
        return Set(leads).sorted(by: >)
    }

    /// How long until `due` a warning of `lead` tells the user, decided at `decidedAt`, `lateBy` after its instant:
    /// the lead when on time (not the milliseconds less the timer took), what is left when found late.
    public static func timeLeft(lead: TimeInterval, due: Date, decidedAt: Date, lateBy: TimeInterval) -> TimeInterval {
        lateBy >= ReminderScheduler.lateThreshold ? due.timeIntervalSince(decidedAt) : lead
    }

    /// Reads leads as people type them, separated by commas: `1h,10m`, `PT1H,PT10M`, `2d`.
    public static func parse(_ text: String) throws(ModelError) -> [TimeInterval] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        return try parse(parts.map { $0.trimmingCharacters(in: .whitespaces) }, as: text, reading: DurationText.seconds)
    }

    /// Reads leads given one by one, as the API takes them and its contract says: ISO 8601 durations, `["PT1H",
    /// "PT10M"]`, nothing else.
    public static func parse(_ texts: [String]) throws(ModelError) -> [TimeInterval] {
        try parse(texts, as: texts.joined(separator: ","), reading: DurationText.iso8601Seconds)
    }

    private static func parse(
        _ texts: [String],
        as whole: String,
        reading: (String) -> TimeInterval?
    ) throws(ModelError) -> [TimeInterval] {
        var leads: [TimeInterval] = []
        for text in texts {
            guard let seconds = reading(text) else {
                throw .invalidWarning(whole, text.isEmpty ? "one of them is empty" : "\"\(text)\" is not a duration")
            }
            leads.append(seconds)
        }
        return try normalized(leads)
    }
}
