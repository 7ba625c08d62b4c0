import NudgeCore

/// Outcomes gathered into commits of about `size` changes and events each, in order: a clock move over a day of a
/// million reminders, or a batch of thousands of edits, is a thousand records, not a million.
struct CommitChunks {
    static let size = 1_000
    private var full: [ReminderBook.Outcome] = []
    private var current = ReminderBook.Outcome()

    mutating func append(_ outcome: ReminderBook.Outcome) {
        current.append(contentsOf: outcome)
        if current.changes.count + current.events.count >= Self.size {
            full.append(current)
            current = ReminderBook.Outcome()
        }
    }

    var outcomes: [ReminderBook.Outcome] { full + [current] }
}
