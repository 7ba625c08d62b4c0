import Foundation
import NudgeCore
import NudgeSystem
import SystemPackage

/// One committed batch of changes, as the change log holds it.
struct LogRecord: Codable, Sendable, Equatable {
    /// 1, 2, 3, … without gaps. The snapshot names the last record it includes, so replay skips those and no change
    /// applies twice.
    var sequence: Int
    /// The ID counters after the batch. Applying the changes moves them too; recording them says so outright, so no
    /// ID is handed out twice whatever a batch removed.
    var nextItemID: Int
    var nextListID: Int
    var nextEventID: Int
    var changes: [ChecklistChange]
    /// The scheduler's decisions made with these changes, numbered. The event history is written before the record
    /// and flushed only now and then: the log is what makes the events durable, and replays them into the history
    /// after a crash.
    var events: [ReminderEvent]

    private enum CodingKeys: String, CodingKey {
        case sequence, nextItemID, nextListID, nextEventID, changes, events
    }
}

extension LogRecord {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int.self, forKey: .sequence)
        nextItemID = try container.decode(Int.self, forKey: .nextItemID)
        nextListID = try container.decode(Int.self, forKey: .nextListID)
        // Absent from records written before events had IDs.
        nextEventID = try container.decodeIfPresent(Int.self, forKey: .nextEventID) ?? 1
        changes = try container.decode([StoredChange].self, forKey: .changes).map(\.change)
        events = try container.decodeIfPresent([StoredEvent].self, forKey: .events)?.map(\.event) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(nextItemID, forKey: .nextItemID)
        try container.encode(nextListID, forKey: .nextListID)
        try container.encode(nextEventID, forKey: .nextEventID)
        try container.encode(changes.map(StoredChange.init), forKey: .changes)
        try container.encode(events.map(StoredEvent.init), forKey: .events)
    }
}
