import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore
import NudgeStore

/// `/v1/undo`: the user's changes, read back from the event history (each `changed` or `undone` event holds what it
/// did to its items), and taking one back. The history says whether a later change touched the same items; the
/// loop's turn has the last word (`ReminderBook.undoChange`), since a change may land between the read and the turn.
extension APIHandler {
    /// How many changes `GET /v1/undo` lists.
    static let undoListLength = 20
    /// How far back `GET /v1/undo` and `POST /v1/undo` without an event look for changes, in events.
    static let undoScanLimit = 50_000

    func listUndo(_ input: Operations.ListUndo.Input) async throws -> Operations.ListUndo.Output {
        let changes = try await recentChanges(Self.undoListLength)
        // Newest first: the changes later than each are those before it in the list, all of them.
        let listed = changes.indices.map { index in
            var since = ChangesSince()
            for later in changes[..<index].reversed() { since.add(later) }
            let reason = since.whyNotUndoable(changes[index])
            return Components.Schemas.UndoableChange(
                event: .init(changes[index]),
                undoable: reason == nil,
                reason: reason
            )
        }
        return .ok(.init(body: .json(.init(changes: listed))))
    }

    func undo(_ input: Operations.Undo.Input) async throws -> Operations.Undo.Output {
        guard case .json(let body) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let event: ReminderEvent
        if let requested = body.event {
            event = try await change(requested)
        } else {
            guard let last = try await recentChanges(1).first else {
                throw APIFailure(
                    status: .conflict,
                    code: .model(.notUndoable),
                    message: "there is nothing to undo: the last \(Self.undoScanLimit) events of the history hold no "
                        + "change of yours"
                )
            }
            event = last
        }
        let undone = try await service.write { book in
            let outcome = try book.undoChange(event)
            // The `undone` event is the outcome's last.
            return (outcome.events.last { $0.kind == .undone }, outcome)
        }
        guard let undone else { preconditionFailure("undoChange reports an undone event") }
        return .ok(.init(body: .json(.init(undone))))
    }

    /// The last `count` changes of the history (`changed`, `undone`), newest first, looking back no further than
    /// `undoScanLimit` events: read a window at a time from the latest, so the usual case reads one.
    private func recentChanges(_ count: Int) async throws -> [ReminderEvent] {
        let window = 1_000
        var upper = try await eventPage(after: .max, limit: 1) { _ in false }.latest
        let oldest = max(0, upper - Self.undoScanLimit)
        var found: [ReminderEvent] = []
        while found.count < count, upper > oldest {
            let lower = max(oldest, upper - window)
            let page = try await eventPage(after: lower, limit: window, scanLimit: upper - lower) { $0.kind.isChange }
            found += page.events.filter { $0.id <= upper }.reversed()
            upper = lower
        }
        return Array(found.prefix(count))
    }

    /// Event `id`, a change of the user's that no later change touched (the items of every later change are read
    /// from the history, a page at a time).
    private func change(_ id: Int) async throws -> ReminderEvent {
        guard
            let event = try await eventPage(after: id - 1, limit: 1, scanLimit: 1, matching: { _ in true }).events
                .first, event.id == id
        else {
            throw APIFailure(
                status: .notFound,
                code: .unknownEvent,
                message: "the history does not hold event \(id) (it keeps the latest --history-events, of the last "
                    + "--history-age); 'nudge undo --list' shows the changes it holds"
            )
        }
        var since = ChangesSince()
        var after = id
        while true {
            let page = try await eventPage(after: after, limit: 100) { $0.kind.isChange }
            for later in page.events { since.add(later) }
            guard let next = page.next else { break }
            after = next
        }
        if let reason = since.whyNotUndoable(event) {
            throw APIFailure(
                status: .conflict,
                code: .model(.notUndoable),
                message: "event \(id) cannot be undone: \(reason); nothing changed"
            )
        }
        return event
    }
}
