import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// The API's changes to items, as the loop applies them (a request's, or a batch's operation's), and items as the
/// API shows them.
extension ReminderBook {
    /// Runs a change of the user's (a request, an import, a batch, a button on a notification) and reports it as a
    /// `changed` event holding what it did, so that `nudge undo` can take it back; `operation` names one of several
    /// items ("import", "batch") in the event's text. After `continuing`, the same change's earlier part (a batch's
    /// earlier turns): see `recordingUndo`.
    mutating func recordingChange<Value>(
        _ operation: String? = nil,
        _ body: (inout ReminderBook) throws -> (Value, Outcome)
    ) throws -> (Value, Outcome) {
        let ((value, outcome), step) = try recordingUndo(body)
        var reported = outcome
        reported.append(contentsOf: reportChange(step, operation: operation))
        return (value, reported)
    }

    mutating func add(_ request: Components.Schemas.NewItem) throws -> (Components.Schemas.Item, Outcome) {
        let (item, outcome) = try addItem(try newItem(request))
        return (try wireItem(item.itemID), outcome)
    }

    mutating func edit(_ itemID: Int, _ patch: ItemPatch) throws -> (Components.Schemas.Item, Outcome) {
        let (_, outcome) = try editItem(itemID: itemID, try itemEdit(itemID, patch))
        return (try wireItem(itemID), outcome)
    }

    /// What a request adds, in the list it names or the default list.
    func newItem(_ request: Components.Schemas.NewItem) throws -> NewItem {
        try request.item(listID: try namedList(id: request.listID, name: request.list) ?? library.defaultList.listID)
    }

    /// What a patch of item `itemID` changes.
    func itemEdit(_ itemID: Int, _ patch: ItemPatch) throws -> ItemEdit {
        guard library.item(id: itemID) != nil else { throw ModelError.unknownItem(itemID) }
        var edit = patch.edit
        edit.listID = try namedList(id: edit.listID, name: patch.list)
        if let warnings = patch.warnings { edit.warnings = try Warnings.parse(warnings) }
        if let length = patch.repeatAfter { edit.repeatAfter = try RepeatAfter.parseISO8601(length) }
        if let nag = patch.nag { edit.nag = try Nag(exactly: nag) }
        return edit
    }

    mutating func snooze(
        _ itemID: Int,
        until: (Date) -> Date
    ) throws -> (Components.Schemas.Item, Outcome) {
        let (_, outcome) = try snoozeItem(itemID: itemID, until: until(clock.now()))
        return (try wireItem(itemID), outcome)
    }

    /// An item as the API shows it: with its list, and its pending reminder's instant.
    func wireItem(_ itemID: Int) throws(ModelError) -> Components.Schemas.Item {
        guard let item = library.item(id: itemID), let list = library.list(containing: itemID) else {
            throw ModelError.unknownItem(itemID)
        }
        return wire(item, in: list)
    }

    func wire(_ item: ChecklistItem, in list: Checklist) -> Components.Schemas.Item {
        Components.Schemas.Item(item, list: list, pendingDue: scheduler.pendingReminder(for: item.itemID)?.due)
    }

    /// The list a body names (`listID` or `list`), if it names one, which must be there. One that is not is a
    /// conflict with the lists as they are (409 `unknown_list`): 404 says that what the path names is not there.
    func namedList(id: Int?, name: String?) throws(APIFailure) -> Int? {
        let unknown: ModelError
        do throws(ModelError) {
            let listID = try listID(id: id, name: name)
            guard let listID, library.list(id: listID) == nil else { return listID }
            unknown = .unknownList(listID)
        } catch {
            unknown = error
        }
        throw APIFailure(status: .conflict, code: .model(unknown.code), message: unknown.description)
    }

    /// The list a request names by ID or by name; nil when it names none. (An ID is not checked here.)
    func listID(id: Int?, name: String?) throws(ModelError) -> Int? {
        if let id { return id }
        guard let name else { return nil }
        guard let list = library.list(named: name) else { throw ModelError.unknownList(named: name) }
        return list.listID
    }
}
