import Foundation
import Hummingbird
import HummingbirdTesting
import NudgeAPI
import NudgeTestSupport
import Testing

@testable import NudgeDaemon

/// The routes of docs/openapi.yaml in-process, through Hummingbird's router with nudged's middleware, over a service on
/// a `ServiceRig`: what a request's bytes are answered, status, headers and body, with no socket and no process.
/// (Who may connect is the socket's concern, tested with the binaries.)
@Suite struct APIRouteTests {
    /// An answer, read: the status, the headers, and the body as JSON when it is.
    struct Answer {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let json: [String: Any]?

        /// The `code` of an `Error` document.
        var code: String? { (json?["error"] as? [String: Any])?["code"] as? String }
    }

    /// Runs `body` with a client of the router over a running service.
    private func withRoutes(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let rig = ServiceRig()
        _ = try await rig.running {
            let app = Application(router: try APIServer.router(service: rig.service, socket: "test"))
            try await app.test(.router) { client in try await body(client) }
        }
    }

    private static func send(
        _ client: any TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ uri: String,
        json: String? = nil,
        contentType: String = "application/json"
    ) async throws -> Answer {
        var headers: HTTPFields = [:]
        if json != nil { headers[.contentType] = contentType }
        return try await client.execute(
            uri: uri,
            method: method,
            headers: headers,
            body: json.map { ByteBuffer(string: $0) }
        ) { response in
            Answer(
                status: response.status,
                headers: response.headers,
                json: try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            )
        }
    }

    @Test func anItemAddedIsAnswered201AndReadBackByItsID() async throws {
        try await withRoutes { client in
            let added = try await Self.send(
                client,
                .post,
                "/v1/items",
                json: #"{"text": "water the plants", "dueDate": "2027-01-15T09:00:00Z"}"#
            )
            #expect(added.status == .created)
            let id = try #require(added.json?["itemID"] as? Int)
            let read = try await Self.send(client, .get, "/v1/items/\(id)")
            #expect(read.status == .ok)
            #expect(read.json?["text"] as? String == "water the plants")
            #expect(read.json?["dueDate"] as? String == "2027-01-15T09:00:00.000Z")
        }
    }

    @Test(arguments: [
        ("/v1/items/01", HTTPResponse.Status.badRequest, "invalid_id"),
        ("/v1/items/0", .badRequest, "invalid_id"),
        ("/v1/items/+1", .badRequest, "invalid_id"),
        ("/v1/items/99", .notFound, "unknown_item"),
        ("/v1/nowhere", .notFound, "not_found"),
        ("/v1/items?limit=many", .badRequest, "invalid_request"),
    ])
    func aReadOfWhatIsNotThereIsRefusedWithTheErrorDocument(uri: String, status: HTTPResponse.Status, code: String)
        async throws
    {
        try await withRoutes { client in
            let answer = try await Self.send(client, .get, uri)
            #expect(answer.status == status, "\(uri)")
            #expect(answer.code == code, "\(uri): \(answer.json ?? [:])")
            #expect(answer.headers[.contentType] == "application/json")
        }
    }

    @Test func aMethodThePathDoesNotTakeIsAnswered405WithTheMethodsItTakes() async throws {
        try await withRoutes { client in
            let answer = try await Self.send(client, .put, "/v1/items")
            #expect(answer.status == .methodNotAllowed)
            #expect(answer.code == "method_not_allowed")
            #expect(answer.headers[.allow] == "GET, POST")
        }
    }

    @Test(arguments: [
        (#"{"text": null}"#, "application/json", HTTPResponse.Status.badRequest, "invalid_body"),
        (#"{"text": "a", "colour": "red"}"#, "application/json", .badRequest, "invalid_body"),
        (#"{"text": ""}"#, "application/json", .badRequest, "empty_text"),
        (#"{"text": "a", "list": "nowhere"}"#, "application/json", .conflict, "unknown_list"),
        (#"{"text": "a"}"#, "text/plain", .unsupportedMediaType, "unsupported_media_type"),
        ("{", "application/json", .badRequest, "invalid_body"),
    ])
    func aBodyThatIsWrongIsRefusedNamingWhatAndChangesNothing(
        json: String,
        contentType: String,
        status: HTTPResponse.Status,
        code: String
    ) async throws {
        try await withRoutes { client in
            let answer = try await Self.send(client, .post, "/v1/items", json: json, contentType: contentType)
            #expect(answer.status == status, "\(json)")
            #expect(answer.code == code, "\(json): \(answer.json ?? [:])")
            let items = try await Self.send(client, .get, "/v1/items")
            #expect((items.json?["items"] as? [Any])?.isEmpty == true, "\(items.json ?? [:])")
        }
    }

    @Test func aBodyOverTheLimitIsAnswered413() async throws {
        try await withRoutes { client in
            let text = String(repeating: "a", count: APILimits.maximumBodySize)
            let answer = try await Self.send(client, .post, "/v1/items", json: #"{"text": "\#(text)"}"#)
            #expect(answer.status == .contentTooLarge)
            #expect(answer.code == "body_too_large")
        }
    }

    @Test func aBatchRefusedPartWayNamesTheOperationAndWhatWasApplied() async throws {
        try await withRoutes { client in
            let answer = try await Self.send(
                client,
                .post,
                "/v1/batch",
                json: #"{"operations": [{"op": "add", "item": {"text": "first"}}, {"op": "remove", "itemID": 99}]}"#
            )
            #expect(answer.status == .notFound, "\(answer.json ?? [:])")
            #expect(answer.code == "unknown_item")
            let error = try #require(answer.json?["error"] as? [String: Any])
            #expect(error["operation"] as? Int == 1)
            #expect((error["applied"] as? [Any])?.count == 1)
        }
    }

    @Test func aFiredReminderAwaitsAcknowledgementUntilAckedAndTheListFiltersByIt() async throws {
        try await withRoutes { client in
            let item = #"{"text": "tea", "dueDate": "2027-01-15T08:01:00Z", "shouldRemind": true}"#
            #expect(try await Self.send(client, .post, "/v1/items", json: item).status == .created)
            #expect(try await Self.send(client, .post, "/v1/items", json: #"{"text": "other"}"#).status == .created)
            func ids(_ query: String) async throws -> [Int] {
                let page = try await Self.send(client, .get, "/v1/items\(query)")
                return (page.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["itemID"] as? Int }
            }
            #expect(try await ids("?unacknowledged=true") == [], "nothing fired yet")
            #expect(try await Self.send(client, .post, "/v1/clock", json: #"{"advance": "PT2M"}"#).status == .ok)
            let fired = try await Self.send(client, .get, "/v1/items/1")
            #expect(fired.json?["unacknowledgedSince"] as? String == "2027-01-15T08:01:00.000Z")
            #expect(try await ids("?unacknowledged=true") == [1])
            #expect(try await ids("?unacknowledged=false") == [2])

            let acked = try await Self.send(client, .post, "/v1/items/1/ack")
            #expect(acked.status == .ok, "\(acked.json ?? [:])")
            #expect(acked.json?["itemID"] as? Int == 1 && acked.json?["unacknowledgedSince"] == nil)
            #expect(try await ids("?unacknowledged=true") == [])
            // Again: nothing awaits it, and it is answered as it is.
            #expect(try await Self.send(client, .post, "/v1/items/1/ack").status == .ok)
            #expect(try await Self.send(client, .post, "/v1/items/9/ack").code == "unknown_item")
        }
    }

    @Test func aNagIsSetReadBackRepeatsAndIsClearedAndOneOutOfRangeIsRefused() async throws {
        try await withRoutes { client in
            let item = #"{"text": "tea", "dueDate": "2027-01-15T08:01:00Z", "nag": "times=2;every=PT10M"}"#
            let added = try await Self.send(client, .post, "/v1/items", json: item)
            #expect(added.status == .created, "\(added.json ?? [:])")
            #expect(added.json?["nag"] as? String == "every=PT10M;times=2")
            #expect(try await Self.send(client, .post, "/v1/clock", json: #"{"advance": "PT30M"}"#).status == .ok)
            let events = try await Self.send(client, .get, "/v1/events?item=1&follow=false")
            let kinds = (events.json?["events"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(
                kinds.filter { $0 != "scheduled" } == ["changed", "fired", "renotified", "renotified", "exhausted"]
            )

            let cleared = try await Self.send(client, .patch, "/v1/items/1", json: #"{"nag": null}"#)
            #expect(cleared.status == .ok && cleared.json?["nag"] == nil, "\(cleared.json ?? [:])")
            let set = try await Self.send(client, .patch, "/v1/items/1", json: #"{"nag": "every=PT1H;until=seen"}"#)
            #expect(set.status == .ok && set.json?["nag"] as? String == "every=PT1H;times=10;until=seen")
            let badNew = #"{"text": "x", "nag": "every=PT10M;times=2;escalateAfter=3"}"#
            #expect(try await Self.send(client, .post, "/v1/items", json: badNew).code == "invalid_nag")
            for bad in [#"{"nag": "every=PT10S"}"#, #"{"nag": "every=PT10M;times=0"}"#, #"{"nag": "often"}"#] {
                let refused = try await Self.send(client, .patch, "/v1/items/1", json: bad)
                #expect(
                    refused.status == .badRequest && refused.code == "invalid_nag",
                    "\(bad): \(refused.json ?? [:])"
                )
            }
        }
    }

    @Test func aClockMoveIsAppliedOnTheManualClockAndOneThatIsNotADurationIsRefused() async throws {
        try await withRoutes { client in
            // The rig's service runs on a manual clock: a move is applied and answered with the clock after it.
            let moved = try await Self.send(client, .post, "/v1/clock", json: #"{"advance": "PT1H"}"#)
            #expect(moved.status == .ok, "\(moved.json ?? [:])")
            #expect(moved.json?["now"] as? String == "2027-01-15T09:00:00.000Z")
            let refused = try await Self.send(client, .post, "/v1/clock", json: #"{"advance": "an hour"}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.code == "invalid_body")
        }
    }
}
