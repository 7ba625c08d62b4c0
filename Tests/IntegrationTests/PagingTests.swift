import Foundation
import Testing

/// The real nudged answers items and pending reminders a page at a time, and `nudge ls` and `nudge pending` walk
/// the pages: every entry once, in order, whatever the page size.
@Suite(.timeLimit(hangLimit)) struct PagingTests {
    @Test func itemsAndRemindersComeInPagesThatTheCommandLineWalks() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        // Items 1...1250 are due an hour after items 1251...2500: pending order is not ID order.
        let nextYear = TestClock.epoch + 365 * 86_400
        try await sandbox.addItems(1250, text: "later", due: nextYear + 3600)
        try await sandbox.addItems(1250, text: "sooner", due: nextYear)
        #expect(try await sandbox.curl("DELETE", "/v1/items/1000").status == 204)
        let expectedIDs = (1...2500).filter { $0 != 1000 }

        // Items: ID order, 1,000 a page by default, `next` until the last page.
        var pages: [[[String: Any]]] = []
        var after = 0
        repeat {
            let page = try await jsonObject(sandbox, "/v1/items?all=true&after=\(after)")
            pages.append(try #require(page["items"] as? [[String: Any]]))
            after = page["next"] as? Int ?? 0
        } while after != 0
        #expect(pages.map(\.count) == [1000, 1000, 499])
        #expect(pages.joined().compactMap { $0["itemID"] as? Int } == expectedIDs)

        // Reminders: soonest first, then by ID; the cursor is the last reminder's item and due instant.
        var reminderIDs: [Int] = []
        var cursor = ""
        repeat {
            let page = try await jsonObject(sandbox, "/v1/pending?limit=700" + cursor)
            reminderIDs += try #require(page["reminders"] as? [[String: Any]]).compactMap { $0["itemID"] as? Int }
            cursor = (page["next"] as? Int).map { "&after=\($0)&afterDue=\(page["nextDue"] as? String ?? "")" } ?? ""
        } while !cursor.isEmpty
        #expect(reminderIDs == Array(1251...2500) + (1...1250).filter { $0 != 1000 })

        // Out of range: the API's error shape, saying the range.
        for query in ["limit=0", "limit=10001", "after=-1"] {
            let refused = try await sandbox.curl("GET", "/v1/items?\(query)")
            #expect(refused.status == 400, "\(query): \(refused)")
            #expect(errorCode(refused.body) == "invalid_request", "\(query): \(refused.body)")
        }

        // The command line walks every page.
        let listed = try await sandbox.nudge("ls", "--all")
        #expect(listed.status == 0)
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == 1 + 2499, "a list name, then one line per item")
        #expect(lines.filter { $0 == "Inbox" }.count == 1)
        let listedJSON = try await sandbox.nudge("ls", "--all", "--json")
        let items = try JSONSerialization.jsonObject(with: Data(listedJSON.stdout.utf8)) as? [[String: Any]]
        #expect(items?.compactMap { $0["itemID"] as? Int } == expectedIDs)
        let pendingJSON = try await sandbox.nudge("pending", "--json")
        let reminders = try JSONSerialization.jsonObject(with: Data(pendingJSON.stdout.utf8)) as? [[String: Any]]
        #expect(reminders?.compactMap { $0["itemID"] as? Int } == reminderIDs)
        let pending = try await sandbox.nudge("pending")
        #expect(pending.stdout.split(separator: "\n").count == 2499)
    }

    private func jsonObject(_ sandbox: Sandbox, _ path: String) async throws -> [String: Any] {
        let answer = try await sandbox.curl("GET", path)
        #expect(answer.status == 200, "\(path): \(answer)")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
    }
}
