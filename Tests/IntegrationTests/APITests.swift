import Foundation
import Testing

/// The HTTP API as any client sees it, through curl on the Unix socket.
@Suite(.timeLimit(hangLimit)) struct APITests {
    @Test func badRequestsAreRefusedWithANamedProblemAndChangeNothing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // On the wall clock, where moving the clock is refused; nothing here waits for a time to come.
        let daemon = try await Daemon(sandbox, clock: .wall)
        defer { daemon.stop() }
        let created = try await sandbox.curl("POST", "/v1/items", body: #"{"text": "milk"}"#)
        #expect(created.status == 201)
        let before = [sandbox.store, sandbox.store + ".log"].map { FileManager.default.contents(atPath: $0) }

        let cases: [(method: String, path: String, body: String?, status: Int, code: String, mentions: String)] = [
            ("POST", "/v1/items", #"{"text": "#, 400, "invalid_body", "not valid JSON"),
            ("POST", "/v1/items", #"{"text": "x", "colour": "red"}"#, 400, "invalid_body", "colour"),
            ("POST", "/v1/items", #"{"text": 12}"#, 400, "invalid_body", "text"),
            ("PATCH", "/v1/items/1", #"{"shouldRemind": "yes"}"#, 400, "invalid_body", "shouldRemind"),
            ("POST", "/v1/items", #"{"text": "x", "dueDate": "next tuesday"}"#, 400, "invalid_body", "dueDate"),
            // Size and depth: an instant is short, and JSON nested 100,000 deep is refused, not a crash.
            (
                "POST", "/v1/items", "{\"text\": \"x\", \"dueDate\": \"\(String(repeating: "2", count: 100_000))\"}",
                400,
                "invalid_body", "a string of 100000 bytes (at most 64)"
            ),
            ("POST", "/v1/items", String(repeating: "[", count: 100_000), 400, "invalid_body", "JSON"),
            ("POST", "/v1/items", #"{"text": "   "}"#, 400, "empty_text", "empty"),
            ("PATCH", "/v1/items/99", #"{"text": "y"}"#, 404, "unknown_item", "99"),
            ("DELETE", "/v1/items/99", nil, 404, "unknown_item", "99"),
            ("GET", "/v1/items/abc", nil, 400, "invalid_id", "abc"),
            // IDs are strict decimal: each of these would otherwise read as item 1.
            ("GET", "/v1/items/+1", nil, 400, "invalid_id", "+1"),
            ("GET", "/v1/items/%2B1", nil, 400, "invalid_id", "%2B1"),
            ("GET", "/v1/items/01", nil, 400, "invalid_id", "01"),
            ("PATCH", "/v1/items/01", #"{"text": "y"}"#, 400, "invalid_id", "01"),
            ("GET", "/v1/items/%201", nil, 400, "invalid_id", "%201"),
            ("GET", "/v1/items/1e3", nil, 400, "invalid_id", "1e3"),
            ("DELETE", "/v1/lists/-1", nil, 400, "invalid_id", "-1"),
            ("POST", "/v1/items/0/check", nil, 400, "invalid_id", "0"),
            // A list a body names that is not there is a conflict with the lists as they are: 404 is for the path.
            ("POST", "/v1/items", #"{"text": "x", "list": "Nowhere"}"#, 409, "unknown_list", "Nowhere"),
            ("POST", "/v1/items", #"{"text": "x", "listID": 7}"#, 409, "unknown_list", "7"),
            ("PATCH", "/v1/items/99", #"{"listID": 7}"#, 404, "unknown_item", "99"),
            ("POST", "/v1/lists", #"{"name": "Trips", "iconName": "Rockets"}"#, 400, "invalid_body", "Rockets"),
            ("POST", "/v1/lists", #"{"name": "inbox"}"#, 409, "duplicate_list_name", "inbox"),
            ("DELETE", "/v1/lists/1", nil, 409, "last_list", "Inbox"),
            ("PATCH", "/v1/lists/1", #"{"isDefault": false}"#, 409, "default_list", "make another list the default"),
            ("PATCH", "/v1/lists/7", #"{"isDefault": true}"#, 404, "unknown_list", "7"),
            // A snooze or a clock move names its instant by exactly one of a length of time and an instant.
            (
                "POST", "/v1/items/99/snooze", #"{"for": "PT0S"}"#, 400, "invalid_snooze",
                #"field for: \"PT0S\" is not a length of time over zero; use "#
            ),
            (
                "POST", "/v1/items/99/snooze", #"{"for": "PT1H", "until": "2027-01-01T00:00:00Z"}"#, 400,
                "invalid_body",
                "give either for (an ISO 8601 duration, like PT10M) or until (an instant), not both or neither"
            ),
            ("POST", "/v1/clock", #"{"advance": "1h"}"#, 400, "invalid_body", #"field advance: \"1h\" is not "#),
            (
                "POST", "/v1/clock", "{}", 400, "invalid_body",
                "give either advance (an ISO 8601 duration, like PT1H) or to (an instant), not both or neither"
            ),
            // A batch that cannot be read, or that moves the wall clock, applies none of its operations.
            ("POST", "/v1/batch", #"{"operations": []}"#, 400, "invalid_body", "1 to 10000 operations"),
            (
                "POST", "/v1/batch", #"{"operations": [{"op": "frob"}]}"#, 400, "invalid_body",
                #"operations[0].op: \"frob\" is not one of the values"#
            ),
            (
                "POST", "/v1/batch",
                #"{"operations": [{"op": "edit", "itemID": 1, "patch": {"text": "y"}}, {"op": "snooze", "itemID": 1, "#
                    + #""snooze": {"for": "10m"}}]}"#, 400, "invalid_snooze", "operation 1 of the batch"
            ),
            (
                "POST", "/v1/batch",
                #"{"operations": [{"op": "edit", "itemID": 1, "patch": {"text": "y"}}, {"op": "clock", "move": "#
                    + #"{"advance": "PT1H"}}]}"#, 409, "clock_not_manual", "none of the batch was applied"
            ),
            (
                "POST", "/v1/items", "{\"text\": \"\(String(repeating: "a", count: 1 << 20))\"}", 413, "body_too_large",
                "1 MiB"
            ),
            // What requests generated from the contract found (Schemathesis): query parameters are not a body;
            // a parameter below its minimum is refused; a number that fits no field is named, not "not JSON"; an
            // ID past 64 bits is out of range, as the contract says; null is not "left out" where no null is allowed.
            ("GET", "/v1/items?limit=abc", nil, 400, "invalid_request", #"\"/v1/items?limit=abc\" does not read"#),
            ("GET", "/v1/pending?afterDue=notadate", nil, 400, "invalid_request", #"\"notadate\" is not an RFC 3339"#),
            ("GET", "/v1/events?follow=false&item=0", nil, 400, "invalid_request", "item 0 is out of range"),
            (
                "POST", "/v1/items", #"{"text": "x", "listID": 9223372036854775808}"#, 400, "invalid_body",
                "field listID: 9223372036854775808 is not a whole number"
            ),
            ("POST", "/v1/items", #"{"text": "x", "listID": 1.5}"#, 400, "invalid_body", "field listID: 1.5"),
            ("GET", "/v1/items/9223372036854775808", nil, 400, "invalid_id", "from 1 to 9223372036854775807"),
            ("POST", "/v1/items", #"{"text": "x", "priority": null}"#, 400, "invalid_body", "field priority: null"),
            ("POST", "/v1/items", #"{"text": "x", "dueDate": null}"#, 400, "invalid_body", "field dueDate: null"),
            ("POST", "/v1/items", "null", 400, "invalid_body", "the body is null"),
            (
                "PATCH", "/v1/items/1", #"{"text": null}"#, 400, "invalid_body",
                "field text: expected String, found null"
            ),
            ("PATCH", "/v1/items/1", #"{"checked": null}"#, 400, "invalid_body", "field checked"),
            ("PATCH", "/v1/lists/1", #"{"iconName": null}"#, 400, "invalid_body", "field iconName: null"),
            ("PATCH", "/v1/lists/1", #"{"isDefault": null}"#, 400, "invalid_body", "field isDefault: null"),
            (
                "POST", "/v1/items/1/snooze", #"{"for": null, "until": "2030-01-02T00:00:00Z"}"#, 400, "invalid_body",
                "field for: null"
            ),
            (
                "POST", "/v1/clock", #"{"advance": null, "to": "2030-01-02T00:00:00Z"}"#, 400, "invalid_body",
                "field advance: null"
            ),
            (
                "POST", "/v1/batch",
                #"{"operations": [{"op": "edit", "itemID": 1, "patch": {"repeat": null}}, "#
                    + #"{"op": "add", "item": {"text": "y", "list": null}}]}"#, 400, "invalid_body",
                "field operations[1].item.list: null"
            ),
            (
                "POST", "/v1/batch", #"{"operations": [{"op": "edit", "itemID": 1, "patch": {"text": null}}]}"#, 400,
                "invalid_body", "field operations[0].patch.text: expected String, found null"
            ),
            ("POST", "/v1/lists", #"{"name": ""}"#, 400, "empty_text", "list name must not be empty"),
            // What the clock, as it reads now, cannot reach is a conflict with the state, not a malformed request.
            (
                "POST", "/v1/items", #"{"text": "x", "repeat": "2020-01-01 00:00"}"#, 409, "instant_out_of_reach",
                "has no occurrence after"
            ),
            // The API reads durations as its contract's pattern says: ISO 8601, not the command line's `1h`.
            ("POST", "/v1/items", #"{"text": "x", "warnings": ["1h"]}"#, 400, "invalid_warning", "is not a duration"),
            ("POST", "/v1/items", #"{"text": "x", "catchUp": "2h"}"#, 400, "invalid_catch_up", "PT2H or PT90M"),
            ("POST", "/v1/items/1/snooze", #"{"for": "PT.5S"}"#, 400, "invalid_snooze", "PT.5S"),
        ]
        for request in cases {
            let response = try await sandbox.curl(request.method, request.path, body: request.body)
            #expect(response.status == request.status, "\(request.method) \(request.path): \(response)")
            #expect(errorCode(response.body) == request.code, "\(request.method) \(request.path): \(response.body)")
            #expect(response.body.contains(request.mentions), "\(request.method) \(request.path): \(response.body)")
        }
        // A body that does not say it is JSON is refused whatever it holds.
        for contentType in ["text/plain", "application/x-www-form-urlencoded", nil] {
            let response = try await sandbox.curl(
                "POST",
                "/v1/items",
                body: #"{"text": "x"}"#,
                contentType: contentType
            )
            #expect(response.status == 415, "\(contentType ?? "no type"): \(response)")
            #expect(errorCode(response.body) == "unsupported_media_type", "\(response.body)")
        }
        #expect(
            [sandbox.store, sandbox.store + ".log"].map { FileManager.default.contents(atPath: $0) } == before,
            "a refused request changed the store"
        )
        // `"isDefault": false` says what is so of a list that is not the default: nothing changes.
        let trips = try await sandbox.curl("POST", "/v1/lists", body: #"{"name": "Trips"}"#)
        #expect(trips.status == 201, "\(trips)")
        let notDefault = try await sandbox.curl("PATCH", "/v1/lists/2", body: #"{"isDefault": false}"#)
        #expect(notDefault.status == 200 && notDefault.body.contains(#""isDefault":false"#), "\(notDefault)")
        let withCharset = try await sandbox.curl(
            "PATCH",
            "/v1/items/1",
            body: #"{"text": "milk"}"#,
            contentType: "Application/JSON; charset=utf-8"
        )
        #expect(withCharset.status == 200, "\(withCharset)")
        let items = try await sandbox.curl("GET", "/v1/items?all=true")
        #expect(items.status == 200)
        #expect(items.body.contains("\"milk\"") && !items.body.contains("\"x\""))
    }

    /// What requests generated from the contract found (Schemathesis): requests that killed nudged (an ID or event
    /// ID of 2^63-1, whose `+ 1` trapped), stalled it (a rule firing every microsecond), or broke what an instant is
    /// (years past 9999, a fraction answered a millisecond off, RFC 3339 forms refused). nudged answers each as the
    /// contract says and goes on serving.
    @Test func requestsAtTheEdgesOfTheContractNeitherCrashNorStall() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        let largest = Int.max
        for (path, status) in [
            ("/v1/items?after=\(largest)", 200), ("/v1/items?all=true&after=\(largest - 1)", 200),
            ("/v1/events?follow=false&since=\(largest)", 200), ("/v1/events?follow=false&since=\(largest - 1)", 200),
            ("/v1/events?follow=false&item=\(largest)", 200), ("/v1/items/\(largest)", 404),
            // No item has that ID, so it names no pending reminder to start after.
            ("/v1/pending?after=\(largest)", 404),
        ] {
            let response = try await sandbox.curl("GET", path)
            #expect(response.status == status, "\(path): \(response)")
            #expect(try await sandbox.curl("GET", "/v1/health").status == 200, "after \(path)")
        }

        // Last-Event-ID is checked against the contract's pattern even when `since` wins over it (Schemathesis found
        // an empty one taken beside `since`).
        for (header, status) in [("Last-Event-ID;", 400), ("Last-Event-ID: abc", 400), ("Last-Event-ID: 1", 200)] {
            let answered = try await run(
                "/usr/bin/curl",
                ["-s", "--unix-socket", sandbox.socket, "-H", header, "-w", "\n%{http_code}"]
                    + ["http://nudged/v1/events?follow=false&since=0"]
            )
            #expect(answered.stdout.hasSuffix("\n\(status)"), "\(header): \(answered)")
        }

        let fast = try await sandbox.curl("POST", "/v1/items", body: #"{"text": "us", "repeat": "*:*:0/0.000001"}"#)
        #expect(fast.status == 400 && errorCode(fast.body) == "invalid_repeat", "\(fast)")
        #expect(fast.body.contains("less than 1 second apart"), "\(fast.body)")

        // Instants: RFC 3339 in every form, to the millisecond, years 0000 to 9999.
        for (sent, answered) in [
            ("2030-01-01T00:00:00.010Z", "2030-01-01T00:00:00.010Z"),
            ("2031-01-01t00:00:00z", "2031-01-01T00:00:00.000Z"),
            ("2031-01-01T00:00:00-23:53", "2031-01-01T23:53:00.000Z"),
            ("2031-01-01T00:00:00.1234567891Z", "2031-01-01T00:00:00.123Z"),
        ] {
            let added = try await sandbox.curl("POST", "/v1/items", body: #"{"text": "x", "dueDate": "\#(sent)"}"#)
            #expect(added.status == 201 && added.body.contains(#""dueDate":"\#(answered)""#), "\(sent): \(added)")
        }
        let latest = "9999-12-31T23:59:59Z"
        #expect(try await sandbox.curl("POST", "/v1/clock", body: #"{"to": "\#(latest)"}"#).status == 200)
        for move in [#"{"advance": "P1D"}"#, #"{"advance": "PT1S"}"#] {
            let refused = try await sandbox.curl("POST", "/v1/clock", body: move)
            #expect(refused.status == 409 && errorCode(refused.body) == "instant_out_of_reach", "\(move): \(refused)")
            #expect(refused.body.contains("past 9999-12-31T23:59:59.999Z"), "\(refused.body)")
        }
        let clock = try await sandbox.curl("GET", "/v1/clock")
        #expect(clock.body.contains(#""now":"9999-12-31T23:59:59.000Z""#), "\(clock)")
        #expect(try await sandbox.curl("POST", "/v1/clock", body: #"{"to": "2027-01-01T00:00:00Z"}"#).status == 200)
        let far = try await sandbox.curl("POST", "/v1/clock", body: #"{"advance": "P999999999D"}"#)
        #expect(far.status == 409 && errorCode(far.body) == "instant_out_of_reach", "\(far)")
        let snooze = try await sandbox.curl("POST", "/v1/items/1/snooze", body: #"{"for": "P999999999D"}"#)
        #expect(snooze.status == 409 && errorCode(snooze.body) == "instant_out_of_reach", "\(snooze)")
        #expect(try await sandbox.curl("GET", "/v1/health").status == 200)
    }

    @Test func aFailedSaveAnswers500NamingTheCauseAndTheDaemonKeepsServing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // Files nudged writes may not exceed 16 KiB: a big item makes the save fail with EFBIG, as a full disk would.
        let daemon = try await Daemon(sandbox, launcher: ["/usr/bin/prlimit", "--fsize=16384", "--"])
        defer { daemon.stop() }
        #expect(try await sandbox.curl("POST", "/v1/items", body: #"{"text": "small"}"#).status == 201)
        let later = #"{"text": "later", "dueDate": "2099-01-01T09:00:00Z"}"#
        #expect(try await sandbox.curl("POST", "/v1/items", body: later).status == 201)
        let before = [sandbox.store, sandbox.store + ".log"].map { FileManager.default.contents(atPath: $0) }

        let big = try await sandbox.curl(
            "POST",
            "/v1/items",
            body: "{\"text\": \"\(String(repeating: "b", count: 40_000))\"}"
        )
        #expect(big.status == 500, "\(big)")
        #expect(errorCode(big.body) == "store_io", "\(big.body)")
        #expect(
            big.body.contains("too large") || big.body.contains("EFBIG") || big.body.contains("errno 27"),
            "\(big.body)"
        )
        // The failed append was cut off again: the log and the snapshot are as they were.
        #expect([sandbox.store, sandbox.store + ".log"].map { FileManager.default.contents(atPath: $0) } == before)

        // Still serving, and memory did not run ahead of disk: the failed item is not there, the next one saves.
        let after = try await sandbox.curl("POST", "/v1/items", body: #"{"text": "after"}"#)
        #expect(after.status == 201, "\(after)")
        let items = try await sandbox.curl("GET", "/v1/items").body
        #expect(items.contains("small") && items.contains("after") && !items.contains("bbbb"))
        // The reload kept what was pending.
        let pending = try await sandbox.curl("GET", "/v1/pending").body
        #expect(pending.contains("\"later\"") && pending.contains("2099-01-01T09:00:00"), "\(pending)")
    }

    @Test func theContractIsServedAsWrittenAndUnknownRoutesAnswerItsErrorShape() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        // Set just after the bind, so it may lag the first answer by a moment.
        try await eventually("the socket to be 0600") {
            try FileManager.default.attributesOfItem(atPath: sandbox.socket)[.posixPermissions] as? Int == 0o600
        }
        let document = try String(contentsOfFile: Binaries.packageRoot + "/docs/openapi.yaml", encoding: .utf8)
        let served = try await sandbox.curl("GET", "/v1/openapi.yaml")
        #expect(served.status == 200)
        #expect(served.body == document, "GET /v1/openapi.yaml differs from docs/openapi.yaml")

        let cases: [(method: String, path: String, status: Int, code: String)] = [
            ("GET", "/v1/nothing", 404, "not_found"),
            // A path of the contract asked with a method it does not take: 405, saying which it takes.
            ("PUT", "/v1/items/1", 405, "method_not_allowed"),
            ("TRACE", "/v1/lists", 405, "method_not_allowed"),
            ("GET", "/v1/items/1/done", 405, "method_not_allowed"),
            ("GET", "/v1/items/0", 400, "invalid_id"),
        ]
        for request in cases {
            let response = try await sandbox.curl(request.method, request.path)
            #expect(response.status == request.status, "\(request.method) \(request.path): \(response)")
            #expect(errorCode(response.body) == request.code, "\(request.method) \(request.path): \(response.body)")
        }
        let head = try await run(
            "/usr/bin/curl",
            ["-s", "-i", "--unix-socket", sandbox.socket, "-X", "PUT", "http://nudged/v1/items/1"]
        )
        #expect(head.stdout.lowercased().contains("allow: get, patch, delete"), "\(head)")

        // An Accept header that admits nothing the route answers with is the client's mistake, not a fault (it was
        // 500 `internal`; fuzz-request found it).
        for path in ["/v1/health", "/v1/events?since=0"] {
            let refused = try await run(
                "/usr/bin/curl",
                ["-s", "--unix-socket", sandbox.socket, "-H", "Accept: text/evenidstream", "-w", "\n%{http_code}"]
                    + ["http://nudged" + path]
            )
            #expect(refused.stdout.hasSuffix("\n406"), "\(path): \(refused)")
            #expect(refused.stdout.contains(#""code":"not_acceptable""#), "\(path): \(refused)")
        }
    }
}
