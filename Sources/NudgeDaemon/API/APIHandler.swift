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

    func snoozeItem(_ input: Operations.SnoozeItem.Input) async throws -> Operations.SnoozeItem.Output {
        guard case .json(let snooze) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let until = try Self.snoozeTarget(snooze)
        return .ok(.init(body: .json(try await service.snoozeItem(input.path.id, until: until))))
    }

    /// The instant a `Snooze` names, from the loop's clock as it reads when the snooze is applied.
    private static func snoozeTarget(_ snooze: Components.Schemas.Snooze) throws -> @Sendable (Date) -> Date {
        switch (snooze._for, snooze.until) {
        case (let length?, nil):
            guard let seconds = DurationText.iso8601Seconds(length), seconds > 0 else {
                throw APIFailure.badRequest(
                    ModelError.Code.invalidSnooze.rawValue,
                    "field for: \"\(length.prefix(40))\" is not a length of time over zero; use \(DurationText.expected)"
                )
            }
            return { $0.addingTimeInterval(seconds) }
        case (nil, let instant?):
            return { _ in instant.date }
        default:
            throw APIFailure.badRequest(
                "invalid_body",
                "give either for (an ISO 8601 duration, like PT10M) or until (an instant), not both or neither"
            )
        }
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

    /// With `follow=false`, a page of the history. Otherwise subscribes before answering, so a client that has the
    /// answer's head sees every later event, then streams the history after `since` (or `Last-Event-ID`) and the
    /// live events after it.
    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        let query = input.query
        let limit = try Self.limit(query.limit)
        let since = try Self.since(query.since, lastEventID: input.headers.lastEventID)
        let item = query.item
        if let item, item < 1 {
            throw APIFailure.badRequest("invalid_request", "item \(item) is out of range: it is an item ID, 1 or more")
        }
        let kind = query.kind.flatMap { ReminderEvent.Kind(rawValue: $0.rawValue) }
        let matches: @Sendable (ReminderEvent) -> Bool = { event in
            (item == nil || event.itemID == item) && (kind == nil || event.kind == kind)
        }
        if query.follow == false {
            let page = try service.eventPage(after: since ?? 0, limit: limit, matching: matches)
            return .ok(.init(headers: .init(cacheControl: "no-cache"), body: .json(Components.Schemas.EventPage(page))))
        }
        let encoder = APICoding.encoder()
        let replay = EventReplay(
            since: since,
            history: { [service] after in try service.eventPage(after: after, limit: limit, matching: matches) },
            live: service.events.subscribe(),
            matches: matches
        )
        let frames = replay.map { element -> ArraySlice<UInt8> in
            switch element {
            case .gap(let dropped):
                let gap = Components.Schemas.Gap(
                    dropped: dropped,
                    message: "\(dropped) events after \(since ?? 0) are no longer in the history (it keeps the latest "
                        + "--history-events, of the last --history-age); the stream goes on after them"
                )
                return Self.frame(event: "gap", data: try encoder.encode(gap))
            case .notice(.event(_, let frame)):
                return frame[...]
            case .notice(.dropped(let limit)):
                let dropped = Components.Schemas.Dropped(
                    limit: limit,
                    message: "this watcher fell more than \(limit) bytes of events behind, so nudged ended its stream; "
                        + "read faster, or reconnect with the last event ID seen to pick up where it left off"
                )
                return Self.frame(event: "dropped", data: try encoder.encode(dropped))
            }
        }
        let body = HTTPBody(frames, length: .unknown, iterationBehavior: .single)
        return .ok(.init(headers: .init(cacheControl: "no-cache"), body: .textEventStream(body)))
    }

    /// Events as the stream sends them: `id:`, `event:` (the kind) and one `data:` line of the `Event` as JSON (which
    /// never holds a raw newline). Made once per event for every watcher (`EventHub.render`).
    @Sendable static func frames(_ events: [ReminderEvent]) -> [[UInt8]] {
        let encoder = APICoding.encoder()
        return events.map { event in
            // An `Event` is strings, numbers and instants: encoding it cannot fail.
            let data = (try? encoder.encode(Components.Schemas.Event(event))) ?? Data()
            return Array(frame(id: event.id, event: event.kind.rawValue, data: data))
        }
    }

    private static func frame(id: Int? = nil, event: String, data: Data) -> ArraySlice<UInt8> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + 48)
        if let id { bytes += Array("id: \(id)\n".utf8) }
        bytes += Array("event: \(event)\ndata: ".utf8)
        bytes += data
        bytes += Array("\n\n".utf8)
        return bytes[...]
    }

    /// Where a stream or page starts: `since`, else the `Last-Event-ID` an `EventSource` sends on reconnecting.
    private static func since(_ since: Int?, lastEventID: String?) throws -> Int? {
        // As the document's pattern says: 1 to 18 digits, nothing else (no sign, no spaces); checked even when `since`
        // wins over it, as the document checks every header it names.
        var lastSeen: Int?
        if let lastEventID {
            guard (1...18).contains(lastEventID.utf8.count), lastEventID.utf8.allSatisfy({ (48...57).contains($0) }),
                let id = Int(lastEventID)
            else {
                throw APIFailure.badRequest(
                    "invalid_request",
                    "Last-Event-ID \"\(lastEventID.prefix(40))\" is not an event ID; send the id: of the last event "
                        + "seen"
                )
            }
            lastSeen = id
        }
        guard let since else { return lastSeen }
        guard since >= 0 else {
            throw APIFailure.badRequest("invalid_request", "since \(since) is out of range: it is an event ID, or 0")
        }
        return since
    }

    func exportCalendar(_ input: Operations.ExportCalendar.Input) async throws -> Operations.ExportCalendar.Output {
        .ok(.init(body: .textCalendar(HTTPBody(try await service.exportCalendar(listName: input.query.list)))))
    }

    func importCalendar(_ input: Operations.ImportCalendar.Input) async throws -> Operations.ImportCalendar.Output {
        switch input.body {
        case .textCalendar(let body):
            let text = try await String(collecting: body, upTo: APILimits.maximumBodySize)
            return .ok(.init(body: .json(try await service.importCalendar(text, listName: input.query.list))))
        }
    }

    func getClock(_ input: Operations.GetClock.Input) async throws -> Operations.GetClock.Output {
        let (now, manual) = try await service.clockReading()
        return .ok(.init(body: .json(.init(now: Instant(now), mode: manual ? .manual : .wall))))
    }

    func moveClock(_ input: Operations.MoveClock.Input) async throws -> Operations.MoveClock.Output {
        guard case .json(let move) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let now = try await service.moveClock(to: try Self.clockTarget(move))
        return .ok(.init(body: .json(.init(now: Instant(now), mode: .manual))))
    }

    /// Where a `ClockMove` goes, from where the clock is when the move is applied.
    private static func clockTarget(_ move: Components.Schemas.ClockMove) throws -> @Sendable (Date) -> Date {
        switch (move.advance, move.to) {
        case (let advance?, nil):
            guard let seconds = DurationText.iso8601Seconds(advance) else {
                throw APIFailure.badRequest(
                    "invalid_body",
                    "field advance: \"\(advance.prefix(40))\" is not \(DurationText.expected)"
                )
            }
            return { $0.addingTimeInterval(seconds) }
        case (nil, let to?):
            return { _ in to.date }
        default:
            throw APIFailure.badRequest(
                "invalid_body",
                "give either advance (an ISO 8601 duration, like PT1H) or to (an instant), not both or neither"
            )
        }
    }

    /// Reads every operation before any is applied, so one that cannot be read refuses the whole batch.
    func runBatch(_ input: Operations.RunBatch.Input) async throws -> Operations.RunBatch.Output {
        guard case .json(let batch) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let count = batch.operations.count
        guard (1...APILimits.maximumBatchOperations).contains(count) else {
            throw APIFailure.badRequest(
                "invalid_body",
                "a batch holds 1 to \(APILimits.maximumBatchOperations) operations, and this one holds \(count); "
                    + (count == 0 ? "send at least one" : "split it into several batches")
            )
        }
        var steps: [ReminderService.BatchStep] = []
        steps.reserveCapacity(count)
        for (index, operation) in batch.operations.enumerated() {
            do {
                steps.append(try Self.step(operation))
            } catch {
                throw ReminderService.BatchRefusal(index: index, error: error)
            }
        }
        return .ok(.init(body: .json(.init(results: try await service.runBatch(steps)))))
    }

    private static func step(_ operation: Components.Schemas.BatchOperation) throws -> ReminderService.BatchStep {
        switch operation {
        case .add(let add): .add(add.item)
        case .edit(let edit): .edit(itemID: edit.itemID, edit.patch)
        case .snooze(let snooze): .snooze(itemID: snooze.itemID, until: try snoozeTarget(snooze.snooze))
        case .remove(let remove): .remove(itemID: remove.itemID)
        case .clock(let clock): .moveClock(to: try clockTarget(clock.move))
        }
    }
}
