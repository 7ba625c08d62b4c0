import Foundation
import Synchronization
import Testing

/// A temporary directory holding one daemon's store and socket; removed by `remove()`.
struct Sandbox: Sendable {
    let path: String
    var store: String { path + "/data/Checklists.plist" }
    var socket: String { path + "/run/nudged.sock" }

    init() throws {
        path = try temporaryDirectory("it")
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// One HTTP request to this sandbox's daemon through `curl --unix-socket`: the status and the body.
    /// A request with curl; a body goes with `contentType` (none if nil).
    func curl(
        _ method: String,
        _ path: String,
        body: String? = nil,
        contentType: String? = "application/json"
    ) async throws -> (status: Int, body: String) {
        var arguments = ["-s", "--unix-socket", socket, "-X", method, "-w", "\n%{http_code}", "--path-as-is"]
        if let body {
            let bodyFile = self.path + "/body-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: bodyFile, contents: Data(body.utf8))
            arguments += ["-H", "Content-Type: \(contentType ?? "")", "--data-binary", "@" + bodyFile]
        }
        let result = try await run("/usr/bin/curl", arguments + ["http://nudged" + path])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// `GET /v1/health`, decoded.
    func health() async throws -> [String: Any] {
        let response = try await curl("GET", "/v1/health")
        return (try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]) ?? [:]
    }

    /// Moves this sandbox's manual clock to `instant` (`nudge clock set`); nudged answers once every decision due on the
    /// way is durable and published.
    func moveClock(to instant: Date, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let moved = try await nudge("clock", "set", iso(instant))
        guard moved.status == 0 else {
            throw Failure("nudge clock set \(iso(instant)) failed (\(sourceLocation)): \(moved)")
        }
    }

    /// For tests of the wall clock only: adds items, each due `after` seconds past a whole second a little ahead (the
    /// base), in one batch, and returns their IDs and the base. A due instant that passed before nudged got the batch
    /// would never fire; then the items are removed and added again twice as far ahead, so how fast the machine is
    /// decides how long this takes, never whether the test passes.
    func addDueSoon(_ items: [(text: String, after: TimeInterval)]) async throws -> (ids: [Int], base: Date) {
        var lead: TimeInterval = 2
        while true {
            let base = wholeSecond(after: lead)
            let operations = items.map { ["op": "add", "item": ["text": $0.text, "dueDate": iso(base + $0.after)]] }
            let body = try JSONSerialization.data(withJSONObject: ["operations": operations])
            let answer = try await curl("POST", "/v1/batch", body: String(decoding: body, as: UTF8.self))
            let results = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?[
                "results"
            ]
            guard answer.status == 200, let added = (results as? [[String: Any]])?.map({ $0["item"] as? [String: Any] })
            else {
                throw Failure("a batch of \(items.count) adds was refused: \(answer.status) \(answer.body.prefix(500))")
            }
            let ids = added.compactMap { $0?["itemID"] as? Int }
            if ids.count == items.count, added.allSatisfy({ $0?["pendingDue"] != nil }) { return (ids, base) }
            for id in ids { _ = try await curl("DELETE", "/v1/items/\(id)") }
            guard lead < 512 else { throw Failure("nudged took over \(lead) s to add \(items.count) items") }
            lead *= 2
        }
    }

    /// Runs `nudge` against this sandbox's daemon.
    @discardableResult
    func nudge(_ arguments: String...) async throws -> CommandResult {
        try await run(Binaries.nudge, arguments + ["--socket", socket])
    }

    /// Adds `count` items with the same text and due instant through the API, over one connection (curl).
    func addItems(_ count: Int, text: String, due: Date) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["text": text, "dueDate": iso(due)])
        let added = try await run(
            "/usr/bin/curl",
            [
                "-sf", "-o", "/dev/null", "--unix-socket", socket, "-H", "Content-Type: application/json",
                "--data-binary", String(decoding: body, as: UTF8.self),
            ] + Array(repeating: "http://nudged/v1/items", count: count)
        )
        #expect(added.status == 0, "adding \(count) items through curl: \(added)")
    }

    /// Adds an item through `nudge add`, due at `due` if given; its ID. The text comes after `--`, so it may start
    /// with a dash.
    func addItem(_ text: String, due: Date? = nil) async throws -> Int {
        let result = try await run(
            Binaries.nudge,
            ["add", "--json"] + (due.map { ["--due", iso($0)] } ?? []) + ["--socket", socket, "--", text]
        )
        guard result.status == 0 else { throw Failure("nudge add \(text) failed: \(result)") }
        return try Self.itemID(added: result.output, due: due)
    }

    /// The ID of the item an add answered with, once it is sure the item's reminder is pending at `due` (if given):
    /// a test that waits for a reminder that nudged was handed too late to schedule would only time out.
    static func itemID(added answer: Data, due: Date?) throws -> Int {
        let item = try JSONSerialization.jsonObject(with: answer) as? [String: Any]
        guard let itemID = item?["itemID"] as? Int else {
            throw Failure("an add answered no item: \(String(decoding: answer.prefix(500), as: UTF8.self))")
        }
        // The CLI sends whole seconds.
        if let due, date(item?["pendingDue"]).map({ abs($0.timeIntervalSince(due)) < 1 }) != true {
            throw Failure(
                "item \(itemID), due \(iso(due)), has no reminder pending; nudged added it at \(item?["updatedAt"] ?? "?")"
            )
        }
        return itemID
    }
}
