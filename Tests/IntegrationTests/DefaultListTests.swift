import Foundation
import Testing

/// The default list, on the real nudged: Inbox from the first start, kept when lists are added (even ones that sort
/// before it), changed only by `nudge list default`, and kept across a restart.
@Suite(.timeLimit(hangLimit)) struct DefaultListTests {
    @Test func inboxIsTheDefaultUntilAnotherIsChosenAndTheChoiceSurvivesARestart() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var daemon = try await Daemon(sandbox)
        defer { daemon.stop() }

        let first = try await sandbox.nudge("lists")
        #expect(first.status == 0 && first.stdout.contains("1  Inbox  (default)  Inbox  All Done"), "\(first)")
        #expect(try await sandbox.nudge("list", "add", "Archive").status == 0)
        #expect(try await sandbox.nudge("list", "add", "Groceries").status == 0)
        _ = try await sandbox.addItem("milk")
        #expect(try await listName(ofItem: 1, in: sandbox) == "Inbox")

        let chosen = try await sandbox.nudge("list", "default", "groceries")
        #expect(chosen.status == 0 && chosen.stdout == "\"Groceries\" is now the default list\n", "\(chosen)")

        daemon.stop()
        daemon = try await Daemon(sandbox)
        _ = try await sandbox.addItem("eggs")
        #expect(try await listName(ofItem: 2, in: sandbox) == "Groceries")
        let shown = try await sandbox.nudge("list", "default")
        #expect(shown.stdout == "the default list is \"Groceries\"\n", "\(shown)")
        let lists = try await sandbox.nudge("lists")
        #expect(lists.stdout.contains("3  Groceries  (default)  No Icon  1 Remaining"), "\(lists)")
        #expect(lists.stdout.contains("1  Inbox                 Inbox    1 Remaining"), "\(lists)")

        // A list with items goes only with --force: a refusal (1), not a usage error; then the oldest is the default.
        let refused = try await sandbox.nudge("list", "rm", "Groceries")
        #expect(refused.status == 1 && refused.stderr.contains("has 1 item; add --force"), "\(refused)")
        let removed = try await sandbox.nudge("list", "rm", "Groceries", "--force", "--json")
        let answer = try JSONSerialization.jsonObject(with: removed.output) as? [String: Any]
        #expect(removed.status == 0 && answer?["listID"] as? Int == 3 && answer?["removed"] as? Bool == true)
        #expect(try await sandbox.nudge("list", "default").stdout == "the default list is \"Inbox\"\n")
    }

    @Test func anUnknownListGetsADidYouMean() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }

        let result = try await sandbox.nudge("list", "default", "Inbx")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("there is no list named \"Inbx\"; did you mean \"Inbox\"? lists: Inbox"))
    }

    private func listName(ofItem id: Int, in sandbox: Sandbox) async throws -> String? {
        let shown = try await sandbox.nudge("show", String(id), "--json")
        return (try JSONSerialization.jsonObject(with: shown.output) as? [String: Any])?["listName"] as? String
    }
}
