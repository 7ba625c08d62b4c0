import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing

/// The real nudged with its store on a real, small file system (a tmpfs) that fills up and frees again while 32
/// clients change items over the socket: no ID is acknowledged twice, an acknowledged change is readable at once
/// and survives a restart, and a refused change never shows. Mounting needs root (docs/TESTING.md).
@Suite(.timeLimit(hangLimit)) struct FullDiskTests {
    static let clients = 32
    static let requestsPerClient = 64
    /// Answers between two flips of the disk between full and not.
    static let flipEvery = 50

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func concurrentClientsWhileTheDiskFillsAndFrees()
        async throws
    {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let disk = try SmallDisk(at: sandbox.path + "/data", megabytes: 4)
        defer { disk.unmount() }

        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
            )
        )
        do {
            try await Self.clientsChangeItems(API(http: http, socket: sandbox.socket), sandbox, disk)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func clientsChangeItems(_ api: API, _ sandbox: Sandbox, _ disk: SmallDisk) async throws {
        var daemon = try await Daemon(sandbox)
        let answered = Atomic<Int>(0)
        let onAnswer: @Sendable () throws -> Void = {
            let count = answered.add(1, ordering: .relaxed).newValue
            if count % Self.flipEvery == 0 { try disk.flip() }
        }
        let reports = try await withThrowingTaskGroup(of: ClientReport.self) { clients in
            for client in 0..<Self.clients {
                clients.addTask { try await Self.runClient(client, api, onAnswer: onAnswer) }
            }
            return try await clients.reduce(into: []) { $0.append($1) }
        }
        try disk.free()
        #expect(daemon.stop() == 0)

        // Restart on what the disk holds.
        daemon = try await Daemon(sandbox)
        defer { daemon.stop() }
        let onDisk = try await api.items()
        let acknowledgedIDs = reports.flatMap(\.acknowledgedIDs)
        #expect(Set(acknowledgedIDs).count == acknowledgedIDs.count, "an ID was acknowledged twice")
        var contradictions: [String] = []
        for report in reports {
            for (itemID, text) in report.expected where onDisk[itemID] != text {
                contradictions.append(
                    "item \(itemID): disk has \(onDisk[itemID] ?? "nothing"), answers said \(text ?? "removed")"
                )
            }
            for text in report.refusedCreates where onDisk.values.contains(text) {
                contradictions.append("a refused create is on disk: \(text)")
            }
        }
        #expect(contradictions == [])
        let total = reports.reduce(into: (acknowledged: 0, refused: 0, contradicted: 0)) {
            $0.acknowledged += $1.acknowledged
            $0.refused += $1.refused
            $0.contradicted += $1.contradicted
        }
        #expect(total.contradicted == 0, "a read right after an answer contradicted it")
        #expect(total.acknowledged + total.refused >= 2000)
        #expect(total.acknowledged > 0 && total.refused > 0, "the disk never filled, or never freed: \(total)")
        print("full disk: \(total.acknowledged) acknowledged, \(total.refused) refused, \(disk.flips) flips")
    }

    struct ClientReport: Sendable {
        var acknowledgedIDs: [Int] = []
        /// The text each acknowledged item has after the last acknowledged change (nil: removed).
        var expected: [Int: String?] = [:]
        var refusedCreates: [String] = []
        var acknowledged = 0
        var refused = 0
        var contradicted = 0
    }

    /// One client, one request at a time: creates items, and edits or removes its own; reads each answer back.
    /// No other client touches its items, so its own answers say what they must hold.
    static func runClient(_ client: Int, _ api: API, onAnswer: @Sendable () throws -> Void) async throws -> ClientReport
    {
        var report = ClientReport()
        var live: [Int] = []
        for request in 0..<requestsPerClient {
            let text = "client \(client) request \(request)"
            let choice = live.isEmpty ? 0 : (client * 7 + request * 13) % 4
            var itemID: Int
            let answer: API.Answer
            if choice < 2 {
                answer = try await api.send("POST", "/v1/items", ["text": text])
                itemID = answer.itemID ?? -1
                if answer.acknowledged {
                    report.acknowledgedIDs.append(itemID)
                    report.expected[itemID] = text
                    live.append(itemID)
                } else {
                    report.refusedCreates.append(text)
                }
            } else {
                itemID = live[(client + request) % live.count]
                if choice == 3 {
                    answer = try await api.send("DELETE", "/v1/items/\(itemID)", nil)
                    if answer.acknowledged {
                        report.expected[itemID] = .some(nil)
                        live.removeAll { $0 == itemID }
                    }
                } else {
                    answer = try await api.send("PATCH", "/v1/items/\(itemID)", ["text": text])
                    if answer.acknowledged { report.expected[itemID] = text }
                }
            }
            if answer.acknowledged { report.acknowledged += 1 } else { report.refused += 1 }
            try onAnswer()
            // Right after the answer, the item shows as the answers say; a refused create shows nowhere.
            if itemID >= 0, let expected = report.expected[itemID] {
                if try await api.text(of: itemID) != expected { report.contradicted += 1 }
            } else if !answer.acknowledged, try await api.items().values.contains(text) {
                report.contradicted += 1
            }
        }
        return report
    }

    /// The API over the socket, through AsyncHTTPClient.
    struct API: Sendable {
        let http: HTTPClient
        let socket: String

        struct Answer {
            var status: Int
            var json: Any?
            var acknowledged: Bool { (200..<300).contains(status) }
            var itemID: Int? { (json as? [String: Any])?["itemID"] as? Int }
        }

        /// One request, and whatever the answer was.
        func request(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Answer {
            var request = HTTPClientRequest(url: url(path))
            request.method = .init(rawValue: method)
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            }
            let response = try await http.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 64 << 20)
            let json = try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))
            return Answer(status: Int(response.status.code), json: json)
        }

        /// One request whose answer is a success or the store's refusal; anything else throws.
        func send(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> Answer {
            let answer = try await request(method, path, body)
            let (status, json) = (answer.status, answer.json)
            // A refusal must be the store's, not anything else going wrong.
            if !(200..<300).contains(status) {
                let code = ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String ?? "?"
                guard status == 500, code.hasPrefix("store_") else {
                    throw Failure("\(method) \(path) answered \(status) \(code): \(json ?? "no JSON")")
                }
            }
            return answer
        }

        /// `path` on nudged's socket, as AsyncHTTPClient names it: the socket's path percent-encoded as the host.
        func url(_ path: String) -> String {
            "http+unix://" + (socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket) + path
        }

        /// Every item's text, by ID.
        func items() async throws -> [Int: String] {
            // One page holds them all: 32 clients make at most 2,048 items.
            let answer = try await send("GET", "/v1/items?all=true&limit=10000", nil)
            let page = answer.json as? [String: Any]
            guard let items = page?["items"] as? [[String: Any]], page?["next"] == nil else {
                throw Failure("GET /v1/items answered no single page of items")
            }
            return Dictionary(
                uniqueKeysWithValues: items.compactMap { item in
                    (item["itemID"] as? Int).map { ($0, item["text"] as? String ?? "") }
                }
            )
        }

        /// An item's text, or nil if there is no such item.
        func text(of itemID: Int) async throws -> String? {
            let response = try await http.execute(
                HTTPClientRequest(url: url("/v1/items/\(itemID)")),
                timeout: .seconds(30)
            )
            let bytes = try await response.body.collect(upTo: 1 << 20)
            if response.status == .notFound { return nil }
            let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any]
            return json?["text"] as? String
        }
    }
}

/// A tmpfs of a few megabytes mounted at a directory, which `flip` fills to the last byte or frees again.
final class SmallDisk: Sendable {
    let path: String
    private var filler: String { path + "/filler" }
    private let state = Mutex((full: false, flips: 0))

    init(at path: String, megabytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let status = try Self.runToEnd(
            "/bin/mount",
            ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", path]
        )
        guard status == 0 else { throw Failure("could not mount a tmpfs at \(path): mount exited with \(status)") }
    }

    var flips: Int { state.withLock { $0.flips } }

    func flip() throws {
        try state.withLock { state in
            if state.full { try FileManager.default.removeItem(atPath: filler) } else { try fill() }
            state.full.toggle()
            state.flips += 1
        }
    }

    /// Frees the disk, if full.
    func free() throws {
        try state.withLock { state in
            if state.full { try FileManager.default.removeItem(atPath: filler) }
            state.full = false
        }
    }

    func unmount() {
        _ = try? Self.runToEnd("/bin/umount", ["-l", path])
    }

    /// mount and umount return at once; waiting for them blocks this thread only briefly.
    private static func runToEnd(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        return process.awaitExit() ?? -1
    }

    /// Writes zeros until the file system says it is full.
    private func fill() throws {
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("could not create \(filler): errno \(errno)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == ENOSPC { return }
                throw Failure("filling \(path): errno \(errno)")
            }
        }
    }
}

extension FullDiskTests.API {
    /// Sends and expects a 2xx answer, as JSON.
    func ok(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        let answer = try await request(method, path, body)
        guard answer.acknowledged else {
            throw Failure("\(method) \(path) answered \(answer.status): \(answer.json ?? "")")
        }
        return answer.json as? [String: Any] ?? [:]
    }

    /// The whole history after `since`, page by page, and the latest event ID the daemon named.
    func history(since: Int = 0) async throws -> (events: [[String: Any]], latest: Int) {
        var events: [[String: Any]] = []
        var cursor: Int? = since
        var latest = since
        while let after = cursor {
            let page = try await ok("GET", "/v1/events?follow=false&limit=10000&since=\(after)")
            events += page["events"] as? [[String: Any]] ?? []
            latest = page["latest"] as? Int ?? latest
            cursor = page["next"] as? Int
        }
        return (events, latest)
    }
}
