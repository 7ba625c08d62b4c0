import Foundation
import Logging
import NudgeAPI
import NudgeCalendar
import NudgeCore
import NudgeTestSupport
import ServiceLifecycle
import Synchronization
import SystemPackage
import Testing

@testable import NudgeDaemon
@testable import NudgeStore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

/// The real service on a real store in a temporary directory, whose writes fail at random steps (create, write,
/// flush, close, rename, directory flush) while 32 clients change items concurrently. Whatever the interleaving,
/// no ID is acknowledged twice, an acknowledged change is readable at once and survives a restart, and a refused
/// change is not on disk. Only an answer of `outcome_unknown` may go either way.
@Suite struct WriteFailureTests {
    static let clients = 32
    static let requestsPerClient = 64

    @Test(arguments: [0.1, 0.3, 1.0])
    func concurrentClientsWhileWritesFail(rate: Double) async throws {
        let directory = try TemporaryStoreDirectory()
        defer { directory.remove() }
        // A store exists before faults begin: opening a missing one writes it.
        try ChecklistStore.open(path: directory.storePath).close()

        let faults = RandomWriteFaults(rate: rate, seed: UInt64(rate * 1000))
        let store = try ChecklistStore.open(path: directory.storePath, faults: faults.storeFaults)
        let service = ReminderService(
            store: store,
            clock: ManualWallClock(ServiceRig.t0),
            zones: zones,
            catchUpWindow: 3600,
            sinks: [],
            events: EventHub(),
            logger: ServiceRig.quiet,
            timer: { _ in RecordingTimer() }
        )
        let api = APIHandler(service: service, socket: "test")
        let group = ServiceGroup(services: [service], logger: ServiceRig.quiet)
        var reports: [ClientReport] = []
        try await withThrowingTaskGroup(of: ClientReport?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            _ = try await api.pending
            reports = try await withThrowingTaskGroup(of: ClientReport.self) { clients in
                for client in 0..<Self.clients {
                    clients.addTask { try await Self.runClient(client, api) }
                }
                return try await clients.reduce(into: []) { $0.append($1) }
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        store.close()

        // Restart: what the disk holds, read by a store with nothing injected.
        let reopened = try ChecklistStore.open(path: directory.storePath)
        defer { reopened.close() }
        let onDisk = Dictionary(
            uniqueKeysWithValues: reopened.library.lists.flatMap(\.items).map { ($0.itemID, $0.text) }
        )
        let histories = reports.flatMap(\.items)
        let acknowledgedIDs = histories.compactMap(\.itemID)
        #expect(Set(acknowledgedIDs).count == acknowledgedIDs.count, "an ID was acknowledged twice")
        var contradictions: [String] = []
        for history in histories {
            guard let itemID = history.itemID else { continue }
            if !history.possible.contains(onDisk[itemID]) {
                contradictions.append(
                    "item \(itemID): disk has \(onDisk[itemID] ?? "nothing"), answers allow \(history.possible)"
                )
            }
        }
        // An item no create was acknowledged for may exist only if its create's outcome was unknown.
        let unknownCreates = Set(histories.filter { $0.itemID == nil }.flatMap(\.possible).compactMap { $0 })
        for (itemID, text) in onDisk where !acknowledgedIDs.contains(itemID) && !unknownCreates.contains(text) {
            contradictions.append("item \(itemID) (\(text)) is on disk, but its create was refused")
        }
        #expect(contradictions == [])
        let answers = reports.map(\.answers).reduce(Answers(), +)
        #expect(answers.total >= 2000)
        #expect(answers.contradicted == 0, "reads right after an answer contradicted it")
        if rate == 1.0 {
            #expect(answers.acknowledged == 0)
        } else {
            #expect(answers.acknowledged > 0 && answers.refused > 0)
        }
        print("write failures at \(rate): \(answers), \(faults.injected) faults injected")
    }

    /// What a client knows of one item from its answers: the texts the disk may hold for it (nil: no item).
    struct ItemHistory: Sendable {
        /// Nil while no create was acknowledged; then `possible` holds the text of a create whose outcome is unknown.
        var itemID: Int?
        var possible: Set<String?>
        /// The text of a create that was refused, which must never show.
        var refusedText: String? = nil
    }

    struct ClientReport: Sendable {
        var items: [ItemHistory] = []
        var answers = Answers()
    }

    struct Answers: Sendable, CustomStringConvertible {
        var acknowledged = 0
        var refused = 0
        var unknown = 0
        /// Reads right after an answer that showed something the answers do not allow.
        var contradicted = 0
        var total: Int { acknowledged + refused + unknown }
        var description: String {
            "\(acknowledged) acknowledged, \(refused) refused, \(unknown) outcome unknown of \(total)"
        }

        static func + (a: Answers, b: Answers) -> Answers {
            Answers(
                acknowledged: a.acknowledged + b.acknowledged,
                refused: a.refused + b.refused,
                unknown: a.unknown + b.unknown,
                contradicted: a.contradicted + b.contradicted
            )
        }

        mutating func count<Value>(_ outcome: Outcome<Value>) {
            switch outcome {
            case .acknowledged: acknowledged += 1
            case .refused: refused += 1
            case .unknown: unknown += 1
            }
        }
    }

    /// One client: creates items, edits and removes its own, one request at a time, and reads back each
    /// acknowledged change at once. No other client touches its items, so its answers alone say what disk may hold.
    static func runClient(_ client: Int, _ api: APIHandler) async throws -> ClientReport {
        var generator = SplitMix64(seed: UInt64(client + 1))
        var items: [ItemHistory] = []
        var answers = Answers()
        var live: [Int] = []  // indices into `items` whose item may still exist
        for request in 0..<requestsPerClient {
            let text = "client \(client) request \(request)"
            let choice = live.isEmpty ? 0 : Int.random(in: 0..<4, using: &generator)
            if choice < 2 {
                let outcome = await answer {
                    try await api.addItem(.init(text: text, dueDate: Instant(ServiceRig.t0 + 60)))
                }
                answers.count(outcome)
                switch outcome {
                case .acknowledged(let item):
                    items.append(ItemHistory(itemID: item.itemID, possible: [text]))
                    live.append(items.count - 1)
                case .refused:
                    items.append(ItemHistory(itemID: nil, possible: [], refusedText: text))
                case .unknown:
                    items.append(ItemHistory(itemID: nil, possible: [text]))
                }
            } else {
                let index = live[Int.random(in: 0..<live.count, using: &generator)]
                let itemID = items[index].itemID!
                let removing = choice == 3
                let outcome = await answer {
                    if removing {
                        try await api.removeItem(itemID)
                    } else {
                        _ = try await api.editItem(itemID, ItemPatch(ItemEdit(text: text)))
                    }
                }
                answers.count(outcome)
                let result: String? = removing ? nil : text
                switch outcome {
                case .acknowledged: items[index].possible = [result]
                case .refused: break
                case .unknown: items[index].possible.insert(result)
                }
                if items[index].possible == [nil] { live.removeAll { $0 == index } }
            }
            // Right after the answer, nudged shows what the answers allow: never a refused change.
            if try await !shows(items, api) { answers.contradicted += 1 }
        }
        return ClientReport(items: items, answers: answers)
    }

    enum Outcome<Value> {
        case acknowledged(Value)
        case refused
        case unknown
    }

    /// Sorts an answer the way a client would: success, a store error (not saved), or `outcome_unknown`.
    static func answer<Value>(_ request: () async throws -> Value) async -> Outcome<Value> {
        do {
            return .acknowledged(try await request())
        } catch {
            return APIFailure.from(error).code == .outcomeUnknown ? .unknown : .refused
        }
    }

    /// Whether nudged shows every item of this client as its answers allow; a create that was refused must not
    /// show at all.
    static func shows(_ items: [ItemHistory], _ api: APIHandler) async throws -> Bool {
        let shown = Dictionary(
            uniqueKeysWithValues: try await api.itemPage(all: true).items.map {
                ($0.itemID, $0.text)
            }
        )
        let shownTexts = Set(shown.values)
        for item in items {
            if let itemID = item.itemID {
                guard item.possible.contains(shown[itemID]) else { return false }
            } else if let refused = item.refusedText, shownTexts.contains(refused) {
                return false
            }
        }
        return true
    }
}
