import Foundation
import NudgeCore
import NudgeStore
import NudgeSystem
import Synchronization
import Testing

@testable import NudgeDaemon

@Suite struct StoreWriterTests {
    private func withStore(_ body: (ChecklistStore) async throws -> Void) async throws {
        var template = Array("/tmp/nudge-writer-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try ChecklistStore.open(path: directory + "/Checklists.plist")
        defer { store.close() }
        try await body(store)
    }

    @Test func commitsThatArriveDuringAWriteAreWrittenTogetherAndFollowedInTheOrderSubmitted() async throws {
        try await withStore { store in
            // A drain held back stands for a write in flight: every commit must wait behind it.
            let held = Mutex<[@Sendable () -> Void]>([])
            let writer = StoreWriter(store: store) { drain in held.withLock { $0.append(drain) } }
            let followed = Mutex<[Int]>([])
            let queued = (1...20).map { itemID in
                writer.submit(
                    [.putItem(ChecklistItem(itemID: itemID, text: "item \(itemID)", createdAt: Date()), listID: 1)],
                    onDurable: { followed.withLock { $0.append(itemID) } }
                )
            }
            #expect(writer.queuedCount == 20)
            let drains = held.withLock { $0 }
            #expect(drains.count == 1)
            for drain in drains { startThread(named: "test-writer", drain) }
            for commit in queued { try await commit.durable() }
            #expect(writer.writeCount == 1)
            #expect(store.library.itemCount == 20)
            #expect(followed.withLock { $0 } == Array(1...20))
        }
    }

    @Test func aRecordGathersWaitingCommitsOnlyUpToItsBoundAndTheRestFollowInOrder() async throws {
        try await withStore { store in
            let held = Mutex<[@Sendable () -> Void]>([])
            let writer = StoreWriter(store: store) { drain in held.withLock { $0.append(drain) } }
            // Five commits of 4,000 items each: two fit under the bound of 10,000 entries, so three records.
            let perCommit = 4_000
            let queued = (0..<5).map { commit in
                writer.submit(
                    (1...perCommit).map { offset in
                        let itemID = commit * perCommit + offset
                        return .putItem(ChecklistItem(itemID: itemID, text: "item", createdAt: Date()), listID: 1)
                    }
                )
            }
            for drain in held.withLock({ $0 }) { startThread(named: "test-writer", drain) }
            for commit in queued { try await commit.durable() }
            #expect(writer.writeCount == 3)
            #expect(store.library.itemCount == 5 * perCommit)
        }
    }

    @Test func aFailedWriteFailsEveryCommitUntilTheServiceTakesTheFailure() async throws {
        try await withStore { store in
            let writer = StoreWriter(store: store)
            #expect(writer.takeFailure() == nil)
            // An edit of an item that does not exist is refused by the store: a failed write without I/O tricks.
            let bad = ChecklistChange.removeItem(itemID: 42)
            await #expect(throws: StoreError.self) { try await writer.submit([bad]).durable() }
            let good = ChecklistChange.putItem(ChecklistItem(itemID: 1, text: "ok", createdAt: Date()), listID: 1)
            // Computed on what the failed write may have lost: void.
            await #expect(throws: StoreError.self) { try await writer.submit([good]).durable() }
            #expect(store.library.itemCount == 0)
            // The service hears of the failure once, reloads, and its changes go through again.
            #expect(writer.takeFailure()?.code == .rejectedChange)
            #expect(writer.takeFailure() == nil)
            try await writer.submit([good]).durable()
            #expect(store.library.itemCount == 1)
        }
    }
}
