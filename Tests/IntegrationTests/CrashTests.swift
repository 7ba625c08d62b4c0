import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing

/// The real nudged, killed with SIGKILL over and over while clients change items and while it compacts its change
/// log (every 4 KiB of log here): after each restart every acknowledged change is there, a change whose answer never
/// came is there or not but whole, and no ID is handed out twice.
@Suite(.timeLimit(hangLimit)) struct CrashTests {
    static let rounds = 200
    static let clients = 4

    @Test func killNineDuringEditsAndCompactionsLosesNothingAcknowledgedAndReusesNoID() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await Self.rounds(sandbox)
    }

    static func rounds(_ sandbox: Sandbox) async throws {
        var book = Ledger()
        var killedMidCompaction = 0
        var compactions = 0
        var lastEvent = 0
        for round in 0..<rounds {
            let directory = (sandbox.store as NSString).deletingLastPathComponent
            let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.contains(".tmp-") }
            if !leftovers.isEmpty { killedMidCompaction += 1 }
            let daemon = try await Daemon(sandbox, arguments: ["--compact-after", "4K"])
            // A client of its own each round: a connection pool that saw the last daemon die may still answer with
            // that failure (connection refused) for a while after the new one listens.
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            defer { _ = http.shutdown() as EventLoopFuture<Void> }
            let api = FullDiskTests.API(http: http, socket: sandbox.socket)
            let onDisk: [Int: String]
            do {
                onDisk = try await api.items()
            } catch {
                daemon.kill9()
                throw Failure("round \(round): reading the items failed (\(error)); nudged's log:\n\(daemon.log)")
            }
            let problems = book.check(against: onDisk)
            #expect(problems == [], "after round \(round - 1)'s kill")
            if !problems.isEmpty {
                daemon.kill9()
                return
            }
            // The event history goes on from where the last round saw it: no event lost, none numbered twice.
            let (history, latest) = try await api.history(since: lastEvent)
            let events = history.compactMap { $0["id"] as? Int }
            #expect(latest >= lastEvent, "round \(round): the latest event went back from \(lastEvent) to \(latest)")
            #expect(
                events == Array((lastEvent + 1)..<(max(latest, lastEvent) + 1)),
                "round \(round): the history after event \(lastEvent) has a gap or a repeat"
            )
            lastEvent = latest

            // Clients change items until the kill, which lands right after a random number of acknowledged changes,
            // with the other clients' requests under way.
            let ledger = SharedLedger(book)
            let killAfter = book.acknowledged + Int.random(in: 1...40)
            let (killTime, kill) = AsyncStream<Void>.makeStream()
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        await runClient(client, round: round, api, ledger) { acknowledged in
                            if acknowledged >= killAfter { kill.yield() }
                        }
                    }
                }
                for await _ in killTime { break }
                daemon.kill9()
                await group.waitForAll()
            }
            book = ledger.withLock { $0 }
            compactions += daemon.log.components(separatedBy: "compacted store").count - 1
        }
        print(
            "kill -9: \(rounds) rounds, \(book.acknowledged) acknowledged changes, \(book.uncertain) without an "
                + "answer, \(compactions) compactions seen finished, \(killedMidCompaction) kills left a half-written "
                + "snapshot or log behind"
        )
        #expect(book.acknowledged > rounds * 10, "too few changes were made to show anything")
    }

    /// One client, one request at a time, on its own items: adds, edits the text, deletes. A request that gets no
    /// answer (the kill) is recorded as uncertain: either outcome may be on disk.
    static func runClient(
        _ client: Int,
        round: Int,
        _ api: FullDiskTests.API,
        _ ledger: SharedLedger,
        onAcknowledged: (Int) -> Void
    ) async {
        var request = 0
        while true {
            request += 1
            let text = "r\(round) c\(client) #\(request)"
            let owned = ledger.withLock { $0.items(of: client) }
            let choice = owned.isEmpty ? 0 : request % 5
            do {
                switch choice {
                case 0, 1:  // As many deletes as creates, so the store stays small and each restart quick.
                    ledger.withLock { $0.pendingCreates[text] = client }
                    // Due far ahead, so each create, edit and delete is also a scheduler decision (an event).
                    let answer = try await api.send(
                        "POST",
                        "/v1/items",
                        ["text": text, "dueDate": "2030-01-01T00:00:00Z", "shouldRemind": true]
                    )
                    guard answer.acknowledged, let itemID = answer.itemID else { throw Failure("\(answer)") }
                    ledger.withLock { $0.created(itemID, text: text, by: client) }
                case 2:
                    let itemID = owned[request % owned.count]
                    ledger.withLock { $0.mayBecome(itemID, text) }
                    guard try await api.send("PATCH", "/v1/items/\(itemID)", ["text": text]).acknowledged else {
                        throw Failure("PATCH refused")
                    }
                    ledger.withLock { $0.settled(itemID, text) }
                default:
                    let itemID = owned[request % owned.count]
                    ledger.withLock { $0.mayBecome(itemID, String?.none) }
                    guard try await api.send("DELETE", "/v1/items/\(itemID)", nil).acknowledged else {
                        throw Failure("DELETE refused")
                    }
                    ledger.withLock { $0.settled(itemID, String?.none) }
                }
                onAcknowledged(ledger.withLock { $0.acknowledged })
            } catch {
                return  // The daemon is gone: what was under way stays uncertain.
            }
        }
    }

    /// What the answers said the store holds, and what may or may not have landed.
    struct Ledger: Sendable {
        /// Each item's text after its last acknowledged change; nil once deleted.
        var expected: [Int: String?] = [:]
        var owner: [Int: Int] = [:]
        /// Changes sent but not answered: the item holds its expected value or this one.
        var inFlight: [Int: String?] = [:]
        /// Creates sent but not answered, by text, with the client that sent each: on disk under a new ID, or not
        /// at all.
        var pendingCreates: [String: Int] = [:]
        /// Every ID ever seen on disk or in an answer, so a reuse shows.
        var everSeen: Set<Int> = []
        var acknowledged = 0
        var uncertain = 0

        func items(of client: Int) -> [Int] {
            expected.compactMap { $0.value != nil && owner[$0.key] == client ? $0.key : nil }.sorted()
        }

        /// IDs an acknowledged create answered with that had been handed out before.
        var reused: [Int] = []

        mutating func created(_ itemID: Int, text: String, by client: Int) {
            if everSeen.contains(itemID) { reused.append(itemID) }
            everSeen.insert(itemID)
            pendingCreates[text] = nil
            expected[itemID] = text
            owner[itemID] = client
            acknowledged += 1
        }

        mutating func mayBecome(_ itemID: Int, _ text: String?) { inFlight[itemID] = .some(text) }

        mutating func settled(_ itemID: Int, _ text: String?) {
            inFlight[itemID] = nil
            expected[itemID] = .some(text)
            acknowledged += 1
        }

        /// Compares the store after a restart with the answers, then takes what landed of the uncertain changes as
        /// known. Returns what contradicts them.
        mutating func check(against onDisk: [Int: String]) -> [String] {
            var problems: [String] = []
            for (itemID, text) in expected {
                let allowed: [String?] = [text] + (inFlight[itemID].map { [$0] } ?? [])
                if !allowed.contains(where: { $0 == onDisk[itemID] }) {
                    problems.append("item \(itemID): disk has \(onDisk[itemID] ?? "nothing"), expected \(allowed)")
                }
                expected[itemID] = .some(onDisk[itemID])
            }
            uncertain += inFlight.count + pendingCreates.count
            inFlight = [:]
            for (itemID, text) in onDisk where expected[itemID] == nil {
                // A create whose answer never came, under an ID never seen before.
                guard let client = pendingCreates[text], !everSeen.contains(itemID) else {
                    problems.append("item \(itemID) (\(text)) is on disk, but no answer or request explains it")
                    continue
                }
                expected[itemID] = text
                owner[itemID] = client
            }
            pendingCreates = [:]
            everSeen.formUnion(expected.keys)
            problems += reused.map { "item ID \($0) was handed out twice" }
            reused = []
            return problems
        }
    }
}

/// The ledger, shared by the clients of a round.
final class SharedLedger: Sendable {
    private let state: Mutex<CrashTests.Ledger>
    init(_ ledger: CrashTests.Ledger) { state = Mutex(ledger) }
    @discardableResult
    func withLock<Result>(_ body: (inout CrashTests.Ledger) -> Result) -> Result { state.withLock { body(&$0) } }
}

extension Daemon {
    /// SIGKILL: no clean stop, no compaction, no goodbye.
    func kill9() {
        if process.exitStatus == nil { kill(process.processIdentifier, SIGKILL) }
        process.awaitExit()
    }
}
