import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore
import NudgeVdir

/// `/v1/lists`.
extension APIHandler {
    func listLists(_ input: Operations.ListLists.Input) async throws -> Operations.ListLists.Output {
        let lists = try await service.read { book in book.library.lists.map { book.wireList($0) } }
        return .ok(.init(body: .json(lists)))
    }

    func createList(_ input: Operations.CreateList.Input) async throws -> Operations.CreateList.Output {
        guard case .json(let request) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let icon = try IconName(requested: request.iconName?.rawValue) ?? .noIcon
        let list = try await service.write { book in
            let (list, outcome) = try book.addList(name: request.name, iconName: icon)
            return (book.wireList(list), outcome)
        }
        return .created(.init(body: .json(list)))
    }

    func updateList(_ input: Operations.UpdateList.Input) async throws -> Operations.UpdateList.Output {
        guard case .json(let patch) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let listID = input.path.id
        let icon = try IconName(requested: patch.iconName?.rawValue)
        let digestTime = try Self.digestTime(patch.digestTime)
        let list = try await service.write { book in
            // Not the default already: `false` says what is so. The default: some list must be, so which instead?
            if patch.isDefault == false, book.library.defaultList.listID == listID {
                throw APIFailure(
                    status: .conflict,
                    code: .defaultList,
                    message:
                        "list \(listID) is the default list, and one list always is; to stop it being the default, "
                        + "make another list the default"
                )
            }
            let outcome = try book.updateList(
                listID: listID,
                name: patch.name,
                iconName: icon,
                makeDefault: patch.isDefault == true,
                digestTime: digestTime
            )
            guard let list = book.library.list(id: listID) else { throw ModelError.unknownList(listID) }
            return (book.wireList(list), outcome)
        }
        return .ok(.init(body: .json(list)))
    }

    /// A ListPatch's `digestTime`: nil to leave it, `.some(nil)` for nudged's (`default`), or `HH:MM` in seconds.
    private static func digestTime(_ text: String?) throws -> Int?? {
        guard let text else { return nil }
        if text == "default" { return .some(nil) }
        guard let seconds = TimeOfDay.seconds(text) else {
            throw APIFailure(
                status: .badRequest,
                code: .invalidBody,
                message: "digestTime \"\(text.prefix(40))\" is not a time of day; use HH:MM on the 24-hour clock, like "
                    + "07:30, or default for nudged's"
            )
        }
        return seconds
    }

    func deleteList(_ input: Operations.DeleteList.Input) async throws -> Operations.DeleteList.Output {
        try await service.write { book in ((), try book.removeList(listID: input.path.id)) }
        return .noContent(.init())
    }

    func linkList(_ input: Operations.LinkList.Input) async throws -> Operations.LinkList.Output {
        guard case .json(let request) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let listID = input.path.id
        guard request.folder.hasPrefix("/") else { throw ModelError.folderNotAbsolute(request.folder) }
        // One spelling of each folder, so that one folder is not linked twice as /a/b and /a/b/.
        let folder = (request.folder as NSString).standardizingPath
        let list: Components.Schemas.List
        do {
            list = try await service.link(listID: listID, to: folder, remindsAtDue: request.remindDue ?? true) {
                book,
                list in book.wireList(list)
            }
        } catch let error as VdirError {
            throw APIFailure(
                status: .unprocessableContent,
                code: .folderUnavailable,
                message: "\(error.description); give the collection folder (the one holding the .ics files), "
                    + "readable by nudged's user"
            )
        }
        folders?.follow()
        return .ok(.init(body: .json(list)))
    }

    func unlinkList(_ input: Operations.UnlinkList.Input) async throws -> Operations.UnlinkList.Output {
        let listID = input.path.id
        let list = try await service.write { book in
            let outcome = try book.unlinkList(listID: listID)
            guard let list = book.library.list(id: listID) else { throw ModelError.unknownList(listID) }
            return (book.wireList(list), outcome)
        }
        folders?.follow()
        return .ok(.init(body: .json(list)))
    }
}
