import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `/v1/items`, `/v1/pending` and `/v1/digest`.
extension APIHandler {
    /// A page of items in ID order, of one list or all lists; unchecked ones only unless `all`; with `unacknowledged`,
    /// only those whose fired reminder awaits acknowledgement, or only the others.
    func listItems(_ input: Operations.ListItems.Input) async throws -> Operations.ListItems.Output {
        let (listName, includeChecked) = (input.query.list, input.query.all ?? false)
        let unacknowledged = input.query.unacknowledged
        let after = try Self.after(input.query.after)
        let limit = try Self.limit(input.query.limit)
        let page = try await service.read { book in
            let listID = try book.listID(id: nil, name: listName)
            let (found, more) = book.library.itemPage(after: after, limit: limit) { item, list in
                (listID == nil || list.listID == listID) && (includeChecked || !item.checked)
                    && unacknowledged.map { $0 == (item.unacknowledgedSince != nil) } != false
            }
            let items = found.map { book.wire($0.item, in: $0.list) }
            return Components.Schemas.ItemPage(items: items, next: more ? items.last?.itemID : nil)
        }
        return .ok(.init(body: .json(page)))
    }

    func createItem(_ input: Operations.CreateItem.Input) async throws -> Operations.CreateItem.Output {
        guard case .json(let request) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let item = try await writeItem { book in
            let new = try book.newItem(request)
            if book.library.list(id: new.listID)?.link != nil {
                return (.inFile(try book.fileChange(adding: new)), ReminderBook.Outcome())
            }
            let (item, outcome) = try book.recordingChange { book in try book.add(request) }
            return (.applied(item), outcome)
        }
        guard let item else { preconditionFailure("an item added is there") }
        return .created(.init(body: .json(item)))
    }

    func getItem(_ input: Operations.GetItem.Input) async throws -> Operations.GetItem.Output {
        .ok(.init(body: .json(try await service.read { book in try book.wireItem(input.path.id) })))
    }

    func updateItem(_ input: Operations.UpdateItem.Input) async throws -> Operations.UpdateItem.Output {
        guard case .json(let patch) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        return .ok(.init(body: .json(try await edit(input.path.id, patch))))
    }

    func deleteItem(_ input: Operations.DeleteItem.Input) async throws -> Operations.DeleteItem.Output {
        let itemID = input.path.id
        _ = try await writeItem { book in
            if book.isKeptInFolder(itemID) { return (.inFile(try book.fileChange(removing: itemID)), .init()) }
            let ((), outcome) = try book.recordingChange { book in ((), try book.removeItem(itemID: itemID)) }
            return (.applied(nil), outcome)
        }
        return .noContent(.init())
    }

    func checkItem(_ input: Operations.CheckItem.Input) async throws -> Operations.CheckItem.Output {
        .ok(.init(body: .json(try await edit(input.path.id, ItemPatch(ItemEdit(checked: true))))))
    }

    func uncheckItem(_ input: Operations.UncheckItem.Input) async throws -> Operations.UncheckItem.Output {
        .ok(.init(body: .json(try await edit(input.path.id, ItemPatch(ItemEdit(checked: false))))))
    }

    private func edit(_ itemID: Int, _ patch: ItemPatch) async throws -> Components.Schemas.Item {
        let item = try await writeItem { book in
            if book.isKeptInFolder(itemID) {
                guard let change = try book.fileChange(editing: itemID, try book.itemEdit(itemID, patch)) else {
                    return (.applied(try book.wireItem(itemID)), .init())
                }
                return (.inFile(change), .init())
            }
            let (item, outcome) = try book.recordingChange { book in try book.edit(itemID, patch) }
            return (.applied(item), outcome)
        }
        // A task file written and read back without its task is refused, not answered.
        guard let item else { throw ModelError.unknownItem(itemID) }
        return item
    }

    /// What a request about one item did: changed the book, leaving the item as it answers (none if removed), or,
    /// for an item of a linked list, asks for its file to be changed first.
    enum ItemWrite: Sendable {
        case applied(Components.Schemas.Item?)
        case inFile(TaskFileChange)
    }

    /// Runs `operation` in the loop's turn; for an item of a linked list, the change it asks for is made to the file
    /// first (`ReminderService.write(_:folders:source:answer:)`).
    private func writeItem(
        _ operation: @escaping @Sendable (inout ReminderBook) throws -> (ItemWrite, ReminderBook.Outcome)
    ) async throws -> Components.Schemas.Item? {
        let change: TaskFileChange
        switch try await service.write(operation) {
        case .applied(let item): return item
        case .inFile(let inFile): change = inFile
        }
        return try await service.write(change, folders: folders) { book, item in
            try item.map { try book.wireItem($0.itemID) }
        }
    }

    /// Acknowledges an item's reminder that fired; not a change of the user's to undo (`acknowledgeItem`).
    func acknowledgeItem(_ input: Operations.AcknowledgeItem.Input) async throws -> Operations.AcknowledgeItem.Output {
        let itemID = input.path.id
        let item = try await service.write { book in
            let outcome = try book.acknowledgeItem(itemID: itemID)
            return (try book.wireItem(itemID), outcome)
        }
        return .ok(.init(body: .json(item)))
    }

    /// Snoozes an item's reminder until the instant the body names, from the loop's clock (the manual clock's, too).
    func snoozeItem(_ input: Operations.SnoozeItem.Input) async throws -> Operations.SnoozeItem.Output {
        guard case .json(let snooze) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let until = try Self.snoozeTarget(snooze)
        let item = try await service.write { book in
            try book.recordingChange { try $0.snooze(input.path.id, until: until) }
        }
        return .ok(.init(body: .json(item)))
    }

    /// The instant a `Snooze` names, from the loop's clock as it reads when the snooze is applied.
    static func snoozeTarget(_ snooze: Components.Schemas.Snooze) throws -> @Sendable (Date) -> Date {
        switch (snooze._for, snooze.until) {
        case (let length?, nil):
            guard let seconds = DurationText.iso8601Seconds(length), seconds > 0 else {
                throw APIFailure.badRequest(
                    .model(.invalidSnooze),
                    "field for: \"\(length.prefix(40))\" is not a length of time over zero; use \(DurationText.expected)"
                )
            }
            return { $0.addingTimeInterval(seconds) }
        case (nil, let instant?):
            return { _ in instant.date }
        default:
            throw APIFailure.badRequest(
                .invalidBody,
                "give either for (an ISO 8601 duration, like PT10M) or until (an instant), not both or neither"
            )
        }
    }

    /// A page of pending reminders, soonest first, after item `after`'s reminder (due at `afterDue`, or as pending
    /// now).
    func listPending(_ input: Operations.ListPending.Input) async throws -> Operations.ListPending.Output {
        let after = try Self.after(input.query.after)
        let afterDue = input.query.afterDue?.date
        let limit = try Self.limit(input.query.limit)
        let page = try await service.read { book in
            var cursor: (due: Date, itemID: Int)?
            if after > 0 {
                // A well-formed request about a reminder that is not there: 404, as for an item that is not.
                guard let due = afterDue ?? book.scheduler.pendingReminder(for: after)?.due else {
                    throw APIFailure(
                        status: .notFound,
                        code: .noPendingReminder,
                        message: "item \(after) has no pending reminder to start the page after; pass afterDue too, as "
                            + "the previous page's nextDue gave it"
                    )
                }
                cursor = (due, after)
            }
            let (reminders, more) = book.scheduler.pendingPage(after: cursor, limit: limit)
            let last = more ? reminders.last : nil
            return Components.Schemas.ReminderPage(
                reminders: reminders.map(Components.Schemas.Reminder.init),
                next: last?.itemID,
                nextDue: last.map { Instant($0.due) }
            )
        }
        return .ok(.init(body: .json(page)))
    }

    func getDigest(_ input: Operations.GetDigest.Input) async throws -> Operations.GetDigest.Output {
        let limit = try Self.limit(input.query.limit)
        let digest = try await service.read { book in
            let day = input.query.day ?? CalendarDay(containing: book.clock.now(), in: book.timeZone)
            return Components.Schemas.Digest(book.library.digest(on: day, limit: limit))
        }
        return .ok(.init(body: .json(digest)))
    }
}
