import Foundation
import Testing

/// `done`, `undone` and `rm` with several IDs, on the real nudged: each is changed and reported in turn, a refused
/// one is said on stderr without stopping the rest, the exit status says so, and `--json` prints what changed.
@Suite(.timeLimit(hangLimit)) struct SeveralItemsTests {
    @Test func eachIDIsChangedAndReportedInTurnAndARefusedOneStopsNothing() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        for text in ["milk", "eggs", "bread"] { _ = try await sandbox.addItem(text) }

        let done = try await sandbox.nudge("done", "1", "99", "2")
        #expect(done.status == 1, "\(done)")
        let lines = done.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("[x]  milk") && lines[1].contains("[x]  eggs"), "\(done)")
        #expect(done.stderr.contains("item 99: there is no item with ID 99"), "\(done)")
        #expect(done.stderr.contains("1 of 3 items were not changed"), "\(done)")

        let undone = try await sandbox.nudge("undone", "1", "2", "--json")
        #expect(undone.status == 0, "\(undone)")
        let items = try JSONSerialization.jsonObject(with: undone.output) as? [[String: Any]]
        #expect(items?.map { $0["itemID"] as? Int } == [1, 2])
        #expect(items?.allSatisfy { $0["checked"] as? Bool == false } == true)

        let one = try await sandbox.nudge("rm", "3", "--json")
        let removed = try JSONSerialization.jsonObject(with: one.output) as? [String: Any]
        #expect(removed?["itemID"] as? Int == 3 && removed?["removed"] as? Bool == true, "\(one)")

        let several = try await sandbox.nudge("rm", "1", "3", "--json")
        #expect(several.status == 1, "\(several)")
        let answers = try JSONSerialization.jsonObject(with: several.output) as? [[String: Any]]
        #expect(answers?.first?["removed"] as? Bool == true, "\(several)")
        #expect(((answers?.last?["error"] as? [String: Any])?["code"] as? String) == "unknown_item", "\(several)")

        let none = try await sandbox.nudge("rm")
        #expect(none.status == 2 && none.stderr.contains("Missing expected argument"), "\(none)")
        let listed = try await sandbox.nudge("ls", "--json")
        let left = try JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]]
        #expect(left?.map { $0["itemID"] as? Int } == [2])
    }
}
