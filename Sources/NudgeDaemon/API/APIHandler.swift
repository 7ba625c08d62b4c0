import Foundation
import NudgeAPI
import NudgeCore
import OpenAPIRuntime

/// The operations of docs/openapi.yaml, as the generated `APIProtocol` asks for them: each asks the service and
/// wraps its answer. Whatever an operation throws becomes the document's `Error` answer (`APIFailure.from`).
struct APIHandler: APIProtocol {
    let service: ReminderService
    let socket: String

    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        .ok(.init(body: .json(try await service.health(socket: socket))))
    }

    func getOpenAPIDocument(
        _ input: Operations.GetOpenAPIDocument.Input
    ) async throws -> Operations.GetOpenAPIDocument.Output {
        .ok(.init(body: .yaml(HTTPBody(openAPIDocument))))
    }

    func listLists(_ input: Operations.ListLists.Input) async throws -> Operations.ListLists.Output {
        .ok(.init(body: .json(try await service.lists())))
    }

    func createList(_ input: Operations.CreateList.Input) async throws -> Operations.CreateList.Output {
        switch input.body {
        case .json(let request):
            return .created(.init(body: .json(try await service.addList(request))))
        }
    }

    func updateList(_ input: Operations.UpdateList.Input) async throws -> Operations.UpdateList.Output {
        switch input.body {
        case .json(let patch):
            return .ok(.init(body: .json(try await service.updateList(input.path.id, patch))))
        }
    }

    func deleteList(_ input: Operations.DeleteList.Input) async throws -> Operations.DeleteList.Output {
        try await service.removeList(input.path.id)
        return .noContent(.init())
    }

    func listItems(_ input: Operations.ListItems.Input) async throws -> Operations.ListItems.Output {
        let page = try await service.itemPage(
            listName: input.query.list,
            includeChecked: input.query.all ?? false,
            after: try Self.after(input.query.after),
            limit: try Self.limit(input.query.limit)
        )
        return .ok(.init(body: .json(page)))
    }

    func createItem(_ input: Operations.CreateItem.Input) async throws -> Operations.CreateItem.Output {
        switch input.body {
        case .json(let request):
            return .created(.init(body: .json(try await service.addItem(request))))
        }
    }

    func getItem(_ input: Operations.GetItem.Input) async throws -> Operations.GetItem.Output {
        .ok(.init(body: .json(try await service.item(input.path.id))))
    }

    func updateItem(_ input: Operations.UpdateItem.Input) async throws -> Operations.UpdateItem.Output {
        switch input.body {
        case .json(let patch):
            return .ok(.init(body: .json(try await service.editItem(input.path.id, patch))))
        }
    }

    func deleteItem(_ input: Operations.DeleteItem.Input) async throws -> Operations.DeleteItem.Output {
        try await service.removeItem(input.path.id)
        return .noContent(.init())
    }

    func checkItem(_ input: Operations.CheckItem.Input) async throws -> Operations.CheckItem.Output {
        .ok(
            .init(
                body: .json(try await service.editItem(input.path.id, ItemPatch(ItemEdit(checked: true))))
            )
        )
    }

    func uncheckItem(_ input: Operations.UncheckItem.Input) async throws -> Operations.UncheckItem.Output {
        .ok(
            .init(
                body: .json(try await service.editItem(input.path.id, ItemPatch(ItemEdit(checked: false))))
            )
        )
    }

    func listPending(_ input: Operations.ListPending.Input) async throws -> Operations.ListPending.Output {
        let page = try await service.pendingPage(
            after: try Self.after(input.query.after),
            afterDue: input.query.afterDue?.date,
            limit: try Self.limit(input.query.limit)
        )
        return .ok(.init(body: .json(page)))
    }

    /// A page's size as asked, within 1...maximumPageSize (the generated code does not check ranges).
    private static func limit(_ asked: Int?) throws -> Int {
        let limit = asked ?? ReminderService.defaultPageSize
        guard (1...ReminderService.maximumPageSize).contains(limit) else {
            throw APIFailure.badRequest(
                "invalid_request",
                "limit \(limit) is out of range: a page holds 1 to \(ReminderService.maximumPageSize) entries, "
                    + "e.g. limit=1000"
            )
        }
        return limit
    }

    private static func after(_ asked: Int?) throws -> Int {
        let after = asked ?? 0
        guard after >= 0 else {
            throw APIFailure.badRequest(
                "invalid_request",
                "after \(after) is out of range: it is an item ID (the previous page's next), or 0 for the first page"
            )
        }
        return after
    }

    /// Subscribes before answering, so a client that has the answer's head sees every later event.
    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        let encoder = APICoding.encoder()
        let events = service.events.subscribe().map { notice in
            switch notice {
            case .event(let event):
                let wire = Components.Schemas.Event(event)
                return ServerSentEvent(event: wire.kind.rawValue, data: try Self.json(wire, encoder))
            case .dropped(let limit):
                let dropped = Components.Schemas.Dropped(
                    limit: limit,
                    message: "this watcher fell more than \(limit) bytes of events behind, so nudged ended its stream; "
                        + "read faster, or reconnect and read the items back"
                )
                return ServerSentEvent(event: "dropped", data: try Self.json(dropped, encoder))
            }
        }
        let body = HTTPBody(events.asEncodedServerSentEvents(), length: .unknown, iterationBehavior: .single)
        return .ok(.init(headers: .init(cacheControl: "no-cache"), body: .textEventStream(body)))
    }

    private static func json(_ value: some Encodable, _ encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
