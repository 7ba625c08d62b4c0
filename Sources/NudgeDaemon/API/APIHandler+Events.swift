import Foundation
import NIOPosix
import NudgeAPI
import NudgeAPITypes
import NudgeCore
import NudgeStore
import OpenAPIRuntime

/// `/v1/events`: the history, and the live stream.
extension APIHandler {
    /// With `follow=false`, a page of the history. Otherwise subscribes before answering, so a client that has the
    /// answer's head sees every later event, then streams the history after `since` (or `Last-Event-ID`) and the
    /// live events after it.
    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        let query = input.query
        let limit = try Self.limit(query.limit)
        let since = try Self.since(query.since, lastEventID: input.headers.lastEventID)
        let item = query.item
        if let item, item < 1 {
            throw APIFailure.badRequest(.invalidRequest, "item \(item) is out of range: it is an item ID, 1 or more")
        }
        let kind = query.kind.flatMap { ReminderEvent.Kind(rawValue: $0.rawValue) }
        let matches: @Sendable (ReminderEvent) -> Bool = { event in
            (item.map { event.itemID == $0 || event.itemIDs?.contains($0) == true } ?? true)
                && (kind == nil || event.kind == kind)
        }
        if query.follow == false {
            let page = try await eventPage(after: since ?? 0, limit: limit, matching: matches)
            return .ok(.init(headers: .init(cacheControl: "no-cache"), body: .json(Components.Schemas.EventPage(page))))
        }
        let encoder = APICoding.encoder()
        let replay = EventReplay(
            since: since,
            history: { [self] after in try await eventPage(after: after, limit: limit, matching: matches) },
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

    /// A page of the event history (durable events only); read from the store's files, beside the loop, on NIO's
    /// pool of threads for blocking work: a read from disk must not hold up an event loop's other connections.
    func eventPage(
        after: Int,
        limit: Int,
        scanLimit: Int = 50_000,
        matching matches: @escaping @Sendable (ReminderEvent) -> Bool
    ) async throws -> EventPage {
        try await NIOThreadPool.singleton.runIfActive { [store = service.writer.store] in
            try store.events(after: after, limit: limit, scanLimit: scanLimit, matching: matches)
        }
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
                    .invalidRequest,
                    "Last-Event-ID \"\(lastEventID.prefix(40))\" is not an event ID; send the id: of the last event "
                        + "seen"
                )
            }
            lastSeen = id
        }
        guard let since else { return lastSeen }
        guard since >= 0 else {
            throw APIFailure.badRequest(.invalidRequest, "since \(since) is out of range: it is an event ID, or 0")
        }
        return since
    }
}
