import AsyncHTTPClient
import Foundation
import NIOCore
import NudgeCalendar
import NudgeCore
import NudgeStore

/// A store of `items` items, built once and copied for each run. Layout 2 is built through `ChecklistStore` (in
/// batches, then compacted on close); layout 1, for measuring a nudged from before the change log, is the same
/// library written as one property list with format version 1.
struct StoreTemplate {
    let directory: String
    let items: Int
    let files: [String]

    /// With `fullLog`, the store also has a change log of single-change records up to the compaction threshold, as
    /// a crash just before a compaction would leave it: the slowest start there can be.
    /// Items are due a second apart from 30 days ahead, unless `dueDates` says when (then the store is named `name`);
    /// with `repeatRules`, item N repeats by rule N modulo their count, from its due date on.
    static func prepare(
        items: Int,
        layout: Int,
        fullLog: Bool,
        in work: String,
        name: String? = nil,
        dueDates: ((Int) -> Date)? = nil,
        repeatRules: [String] = []
    ) throws -> StoreTemplate {
        let directory = "\(work)/" + (name ?? "store-\(items)-v\(layout)" + (fullLog ? "-full-log" : ""))
        let files = layout == 1 ? ["Checklists.plist"] : ["Checklists.plist", "Checklists.plist.log"]
        let template = StoreTemplate(directory: directory, items: items, files: files)
        if FileManager.default.fileExists(atPath: directory + "/ready") { return template }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let started = ContinuousClock.now
        let path = directory + "/Checklists.plist"
        let store = try ChecklistStore.open(path: path)
        var library = store.library
        let zones = ZoneRulesStore()
        let due = Date() + 30 * 86_400
        let dueDate = dueDates ?? { due + Double($0) }
        var batch: [ChecklistChange] = []
        for number in 1...items {
            let change = try library.makeAddItem(
                NewItem(
                    text: "item \(number) to do",
                    listID: 1,
                    dueDate: dueDate(number),
                    shouldRemind: true,
                    repeatRule: repeatRules.isEmpty ? nil : repeatRules[number % repeatRules.count]
                ),
                now: min(Date(), dueDate(number) - 3600),
                zones: zones
            )
            try library.apply(change)
            batch.append(change)
            if batch.count == 10_000 || number == items {
                try store.commit(batch)
                batch = []
            }
        }
        store.close()
        if layout == 1 {
            try FileManager.default.removeItem(atPath: path + ".log")
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            var root = try PropertyListSerialization.propertyList(from: data, format: nil) as! [String: Any]
            root["formatVersion"] = 1
            root["logSequence"] = nil
            try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
                .write(to: URL(fileURLWithPath: path))
        }
        try? FileManager.default.removeItem(atPath: path + ".lock")
        if fullLog { try fillLog(path: path, items: items) }
        _ = FileManager.default.createFile(atPath: directory + "/ready", contents: nil)
        say("  built a store of \(items) items (layout \(layout)) in \(started.duration(to: .now))")
        return template
    }

    /// Edits until the log reaches the default compaction threshold, then keeps the files as they are at that
    /// moment (closing would compact them).
    private static func fillLog(path: String, items: Int) throws {
        let building = path + ".building"
        try? FileManager.default.removeItem(atPath: building)
        try FileManager.default.createDirectory(atPath: building, withIntermediateDirectories: false)
        for file in ["Checklists.plist", "Checklists.plist.log"] {
            let directory = (path as NSString).deletingLastPathComponent
            try FileManager.default.moveItem(atPath: directory + "/" + file, toPath: building + "/" + file)
        }
        let store = try ChecklistStore.open(
            path: building + "/Checklists.plist",
            options: StoreOptions(compactionThreshold: 1 << 30)
        )
        var library = store.library
        let zones = ZoneRulesStore()
        while store.logLength < StoreOptions.defaultCompactionThreshold {
            let change = try library.makeEditItem(
                itemID: Int.random(in: 1...items),
                ItemEdit(dueDate: Date() + Double.random(in: 86_400...(365 * 86_400))),
                now: Date(),
                zones: zones
            )
            try library.apply(change)
            try store.commit([change])
        }
        let directory = (path as NSString).deletingLastPathComponent
        for file in ["Checklists.plist", "Checklists.plist.log"] {
            try FileManager.default.copyItem(atPath: building + "/" + file, toPath: directory + "/" + file)
        }
        store.close()
        try FileManager.default.removeItem(atPath: building)
    }

    /// A run's directory, `WORK/run`, made afresh with a copy of the store.
    func freshCopy(in work: String) throws -> String {
        let directory = work + "/run"
        try? FileManager.default.removeItem(atPath: directory)
        // nudged serves its socket only from a directory that is the user's alone.
        try FileManager.default.createDirectory(
            atPath: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try copy(to: directory)
        return directory
    }

    func copy(to destination: String) throws {
        for file in files {
            try FileManager.default.copyItem(atPath: directory + "/" + file, toPath: destination + "/" + file)
        }
    }
}

/// The release nudged on a run's directory, with a notify socket of its own to hear READY=1 on.
final class RunningDaemon: Sendable {
    let process: Process
    private let notify: Int32
    private let started: ContinuousClock.Instant

    init(nudged: String, directory: String, arguments: [String] = []) throws {
        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        self.notify = notify
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let notifyPath = directory + "/notify.sock"
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: notifyPath.utf8.prefix(buffer.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw BenchError("cannot bind \(notifyPath): errno \(errno)") }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(notify, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        process = Process()
        process.executableURL = URL(fileURLWithPath: nudged)
        process.arguments =
            [
                "--store", directory + "/Checklists.plist", "--socket", directory + "/nudged.sock", "--sinks", "log",
            ] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        process.environment = environment
        _ = FileManager.default.createFile(atPath: directory + "/nudged.log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + "/nudged.log")
        process.standardOutput = log
        process.standardError = log
        started = .now
        try process.run()
    }

    /// How long from the start until nudged said READY=1.
    func awaitReady() throws -> Duration {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(notify, &buffer, buffer.count, 0)
            if count <= 0 {
                // A second without a word: go on waiting while nudged runs, for up to 5 minutes.
                guard errno == EAGAIN, process.isRunning, started.duration(to: .now) < .seconds(300) else {
                    throw BenchError("nudged never said READY=1 (errno \(errno)); see its log beside the store")
                }
                continue
            }
            let message = String(decoding: buffer.prefix(count), as: UTF8.self)
            if message.split(separator: "\n").contains("READY=1") { return started.duration(to: .now) }
        }
    }

    func residentBytes() -> Int { status("VmRSS:") }
    func peakResidentBytes() -> Int { status("VmHWM:") }

    private func status(_ field: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// SIGTERM, and how long until it exited (it compacts the log first).
    /// SIGTERM; how long until it exited (it compacts the log first), and its peak RSS, that compaction included,
    /// as last read from /proc every 10 ms before it exited.
    func stop() throws -> (took: Duration, peakResidentBytes: Int) {
        let asked = ContinuousClock.now
        var peak = peakResidentBytes()
        process.terminate()
        while process.isRunning {
            peak = max(peak, peakResidentBytes())
            usleep(10_000)
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("nudged exited \(process.terminationStatus)") }
        return (asked.duration(to: .now), peak)
    }

    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        close(notify)
    }
}

/// The few API calls the bench makes, over the daemon's socket.
struct API: Sendable {
    let http: HTTPClient
    let socket: String

    struct Health: Decodable {
        var items: Int
        /// Absent from a nudged older than the change log.
        var commits: Int?
        var syncs: Int?
        var watchers: Int?
    }

    func health() async throws -> Health {
        try JSONDecoder().decode(Health.self, from: try await send("GET", "/v1/health"))
    }

    func editDueDate(of itemID: Int) async throws {
        let due = (Date() + Double.random(in: 86_400...(365 * 86_400))).formatted(.iso8601)
        _ = try await send("PATCH", "/v1/items/\(itemID)", body: #"{"dueDate":"\#(due)"}"#)
    }

    func addItem() async throws {
        let due = (Date() + Double.random(in: 86_400...(365 * 86_400))).formatted(.iso8601)
        _ = try await send("POST", "/v1/items", body: #"{"text":"added by the bench","dueDate":"\#(due)"}"#)
    }

    func timed(_ body: () async throws -> Void) async throws -> Duration {
        let started = ContinuousClock.now
        try await body()
        return started.duration(to: .now)
    }

    func send(_ method: String, _ path: String, body: String? = nil) async throws -> Data {
        guard let url = URL(httpURLWithSocketPath: socket, uri: path) else { throw BenchError("bad socket path") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await http.execute(request, timeout: .seconds(3600))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw BenchError("\(method) \(path): \(response.status) \(String(buffer: bytes))")
        }
        return Data(bytes.readableBytesView)
    }
}
