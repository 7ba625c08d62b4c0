import Foundation
import NudgeCore

/// A `ReminderEvent` as the change log and the event history hold it: its own fields as the event codes them, and
/// for a change of the user's, beside them under `undo`, what the change did to its items (`UndoStep`), each item
/// coded by `StoreSchema`'s table as in the snapshot.
struct StoredEvent: Codable, Sendable {
    var event: ReminderEvent

    init(_ event: ReminderEvent) { self.event = event }

    private enum Key: String, CodingKey {
        case undo
    }

    /// One item a step touched.
    private struct Touch: Codable {
        var itemID: Int
        var before: Placed?
        var after: Placed?
    }

    private struct Placed: Codable {
        var listID: Int
        var item: StoredItem
    }

    init(from decoder: any Decoder) throws {
        event = try ReminderEvent(from: decoder)
        // Item images are read with today's rules, though the history keeps them for weeks: one a later format cannot
        // read leaves the change not undoable, never the history unreadable.
        let container = try decoder.container(keyedBy: Key.self)
        guard let touches = (try? container.decodeIfPresent([Touch].self, forKey: .undo)) ?? nil else { return }
        func placed(_ stored: Placed?) -> UndoStep.Placed? {
            stored.map { UndoStep.Placed($0.item.record, in: $0.listID) }
        }
        event.undo = UndoStep(
            touches: touches.map {
                UndoStep.Touch(itemID: $0.itemID, before: placed($0.before), after: placed($0.after))
            }
        )
    }

    func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        guard let step = event.undo else { return }
        func stored(_ placed: UndoStep.Placed?) -> Placed? {
            placed.map { Placed(listID: $0.listID, item: StoredItem(record: $0.item)) }
        }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(
            step.touches.map { Touch(itemID: $0.itemID, before: stored($0.before), after: stored($0.after)) },
            forKey: .undo
        )
    }
}
