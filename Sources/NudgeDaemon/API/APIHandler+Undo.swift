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
        let (changes, _) = try await recentChanges(Self.undoListLength)
        // Newest first: the changes later than each are those before it in the list, all of them.
        let listed = changes.indices.map { index in
            var since = ChangesSince(of: changes[index])
            for later in changes[..<index].reversed() { since.add(later) }
            let reason = since.whyNotUndoable
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
        let (event, seenThrough): (ReminderEvent, Int)
        if let requested = body.event {
            guard requested >= 1 else {
                throw APIFailure.badRequest(.invalidBody, "event \(requested) is not an event ID; IDs start at 1")
            }
            (event, seenThrough) = try await change(requested)
        } else {
            let (changes, latest) = try await recentChanges(1)
            guard let last = changes.first else {
                throw APIFailure(
                    status: .conflict,
                    code: .model(.notUndoable),
                    message: "there is nothing to undo: the last \(Self.undoScanLimit) events of the history hold no "
                        + "change of yours"
                )
            }
            (event, seenThrough) = (last, latest)
        }
        let undone = try await service.write { book in
            let outcome = try book.undoChange(event, seenThrough: seenThrough)
            // The `undone` event is the outcome's last.
            return (outcome.events.last { $0.kind == .undone }, outcome)
        }
        guard let undone else { preconditionFailure("undoChange reports an undone event") }
        return .ok(.init(body: .json(.init(undone))))
    }

    /// The last `count` changes of the history (`changed`, `undone`), newest first, looking back no further than
    /// `undoScanLimit` events, and the latest event read: read a window at a time from the latest, so the usual case
    /// reads one.
    private func recentChanges(_ count: Int) async throws -> (changes: [ReminderEvent], latest: Int) {
        let window = 1_000
        let latest = try await eventPage(after: .max, limit: 1) { _ in false }.latest
        var upper = latest
        let oldest = max(0, upper - Self.undoScanLimit)
        var found: [ReminderEvent] = []
        while found.count < count, upper > oldest {
            let lower = max(oldest, upper - window)
            let page = try await eventPage(after: lower, limit: window, scanLimit: upper - lower) { $0.kind.isChange }
            found += page.events.filter { $0.id <= upper }.reversed()
            upper = lower
        }
        return (Array(found.prefix(count)), latest)
    }

    /// Event `id`, a change of the user's that no later change stands in the way of (every later change is read
    /// from the history, a page at a time), and the latest event read.
    private func change(_ id: Int) async throws -> (event: ReminderEvent, latest: Int) {
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
        var since = ChangesSince(of: event)
        var after = id
        var latest = id
        while true {
            let page = try await eventPage(after: after, limit: 100) { $0.kind.isChange }
            for later in page.events { since.add(later) }
            latest = max(latest, page.latest)
            guard let next = page.next else { break }
            after = next
        }
        if let reason = since.whyNotUndoable { throw ModelError.notUndoable(id, because: reason) }
        return (event, latest)
    }
}
