import Foundation
import Synchronization
import Testing

/// The built binaries, from the same build as this test bundle and beside it (`scripts/build --build-tests` puts
/// them all in .build/release; a `swift build --build-tests` of another configuration, in its own folder).
enum Binaries {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let directory = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? packageRoot
            + "/.build/release/nudgePackageTests.xctest"
    ).deletingLastPathComponent().path
    static let nudged = directory + "/nudged"
    static let nudge = directory + "/nudge"

    static func require(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failure("\(path) is not built; run scripts/build --build-tests (scripts/test does) before the tests")
        }
    }
}

/// A fresh private directory under /tmp, named for `purpose`; the caller removes it.
func temporaryDirectory(_ purpose: String) throws -> String {
    var template = Array("/tmp/nudge-\(purpose)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return String(cString: made)
}

/// What a finished command printed and returned.
struct CommandResult: Sendable, CustomStringConvertible {
    var status: Int32
    var output: Data
    var stderr: String
    var stdout: String { String(decoding: output, as: UTF8.self) }

    var description: String { "exit status \(status), stdout: \(stdout.prefix(2000)), stderr: \(stderr.prefix(2000))" }
}

/// Runs a program to completion and returns what it printed. Its output goes to files, so a chatty child never
/// blocks on a full pipe and each byte is read once; the caller suspends, holding no thread, until the child exits.
@discardableResult
func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> CommandResult {
    let directory = try temporaryDirectory("run")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (outPath, errPath) = (directory + "/stdout", directory + "/stderr")
    for file in [outPath, errPath] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    try process.run()
    let status = await process.exited()
    return CommandResult(
        status: status,
        output: FileManager.default.contents(atPath: outPath) ?? Data(),
        stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    )
}

/// Calls `body` with the socket address of `path`; nil if the path does not fit one.
func withUnixAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// A Unix socket of `type` bound at `path`; the caller closes it.
func boundUnixSocket(at path: String, type: __socket_type) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    guard withUnixAddress(path, { bind(descriptor, $0, $1) }) == 0 else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENAMETOOLONG)
        close(descriptor)
        throw error
    }
    return descriptor
}

/// Whether a stream socket accepts a connection at `path`: true while something listens there, even a stopped
/// process, since the kernel completes connections into the listen backlog.
func isListening(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return withUnixAddress(path) { connect(descriptor, $0, $1) } == 0
}

/// Where a test's nudged reads the time. A test runs nudged on a manual clock and moves it (`Sandbox.moveClock`), so no
/// result depends on how fast a request arrives; only tests *of* the wall clock (timerfd, clock steps, idle wake-ups,
/// systemd's watchdog) take `.wall`, and they run in the alone group, one at a time (scripts/test).
enum TestClock: Sendable {
    /// `--clock manual:INSTANT`: starts at the instant, moves only when told to.
    case manual(Date)
    /// The machine's clock (nudged's default).
    case wall

    /// Where a manual clock starts unless a test says otherwise: 2027-01-01T00:00:00Z.
    static let epoch = Date(timeIntervalSince1970: 1_798_761_600)

    var arguments: [String] {
        switch self {
        case .manual(let start): ["--clock", "manual:" + iso(start)]
        case .wall: []
        }
    }
}

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

/// A running `nudged` on a sandbox, its stderr (its log) collected line by line.
final class Daemon: Sendable {
    let process: Process
    let logLines: LineCollector<String>

    /// Starts nudged (through `launcher`, e.g. prlimit, if given) and waits until its socket listens; fails, with
    /// its log, if it exits first. Reminders go to `sinks` (`--sinks`; nil for nudged's default), the log sink unless
    /// told; it runs on a manual clock at `TestClock.epoch` unless told.
    init(
        _ sandbox: Sandbox,
        sinks: String? = "log",
        clock: TestClock = .manual(TestClock.epoch),
        arguments: [String] = [],
        launcher: [String] = [],
        environment: [String: String]? = nil
    ) async throws {
        try Binaries.require(Binaries.nudged)
        logLines = try LineCollector(path: sandbox.path + "/nudged-\(UUID().uuidString.prefix(8)).log")
        process = Process()
        let command =
            launcher + [Binaries.nudged, "--store", sandbox.store, "--socket", sandbox.socket]
            + (sinks.map { ["--sinks", $0] } ?? []) + clock.arguments + arguments
        if let environment { process.environment = environment }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardError = try logLines.writer()
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        do {
            try await IntegrationTests.eventually(
                "nudged to listen on \(sandbox.socket)",
                seen: { "its log:\n\(logLines.tail())" }
            ) {
                if let status = process.exitStatus {
                    throw Failure(
                        "nudged exited with \(status) before it listened; its log:\n"
                            + logLines.text
                    )
                }
                return isListening(sandbox.socket)
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Everything nudged has logged so far.
    var log: String { logLines.text }

    /// Waits until nudged has logged `times` lines containing `text`; returns the last of them. Each line is looked
    /// at once, however long the wait. Each new such line restarts the wait: a long run of them is progress, however
    /// slowly it comes, and only `limit` without one is a hang.
    @discardableResult
    func awaitLog(
        _ text: String,
        times: Int = 1,
        within limit: Duration = patience,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var looked = 0
        var found: [String] = []
        while true {
            let foundBefore = found.count
            let last: String? = try await IntegrationTests.eventually(
                "nudged to log \"\(text)\"" + (times == 1 ? "" : " \(times) times"),
                within: limit,
                seen: { "\(found.count) such lines; nudged's log ends:\n\(logLines.tail())" },
                sourceLocation: sourceLocation
            ) { () -> String?? in
                let lines = logLines.lines(from: looked)
                looked += lines.count
                found += lines.filter { $0.contains(text) }
                if found.count >= times { return .some(found.last) }
                return found.count > foundBefore ? .some(nil) : nil
            }
            if let last { return last }
        }
    }

    /// `eventually`, saying on failure what nudged logged last.
    func eventually(
        _ awaited: @autoclosure () -> String,
        within limit: Duration = patience,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        try await IntegrationTests.eventually(
            awaited(),
            within: limit,
            seen: { "nudged's log ends:\n\(logLines.tail())" },
            sourceLocation: sourceLocation,
            condition
        )
    }

    /// SIGTERM, then waits for nudged to exit; returns the exit status. nudged stops within about a second: one still
    /// running `patience` after SIGTERM is a fault, recorded with its log and its threads' states, then killed, so a
    /// hang is reported where it happened instead of as some test's time limit.
    @discardableResult
    func stop() -> Int32 {
        if let status = process.exitStatus { return status }
        process.terminate()
        if let status = process.awaitExit() { return status }
        let pid = process.processIdentifier
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let threads = tasks.sorted().map { task in
            let file = { (name: String) in
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/\(name)", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            }
            return "\(task) \(file("comm")) waits in \(file("wchan"))"
        }
        let said = "nudged (pid \(pid)) did not stop within \(patience) of SIGTERM; its threads: "
        Issue.record("\(said)\(threads.joined(separator: "; "))\nits log ends:\n\(logLines.tail())")
        kill(pid, SIGKILL)
        return process.awaitExit() ?? SIGKILL
    }
}

/// One event as `nudge watch --json` prints it.
struct WatchedEvent: Decodable, Sendable, CustomStringConvertible {
    var id: Int
    var kind: String
    var itemID: Int
    var due: Date
    var at: Date
    var text: String?
    var lateBy: Double?

    var description: String {
        "\(id): \(kind) #\(itemID) due \(preciseISO(due)) at \(preciseISO(at))"
            + (lateBy.map { " late \($0)s" } ?? "")
    }
}

/// `nudge watch --json` attached to a daemon, each event parsed once, as it arrives.
final class Watcher: Sendable {
    private let process: Process
    private let output: LineCollector<Result<WatchedEvent, LineNotUnderstood>>

    struct LineNotUnderstood: Error {
        let line: String
    }

    /// Starts the watcher and returns once nudged counts it among its watchers: from then on it sees every event,
    /// and with `since`, every event after that one first.
    init(_ sandbox: Sandbox, since: Int? = nil) async throws {
        try Binaries.require(Binaries.nudge)
        let watchersBefore = try await sandbox.health()["watchers"] as? Int ?? 0
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let instant = date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an instant: \(text)")
            }
            return instant
        }
        output = try LineCollector(path: sandbox.path + "/watch-\(UUID().uuidString.prefix(8)).jsonl") { line in
            Result { try decoder.decode(WatchedEvent.self, from: Data(line)) }
                .mapError { _ in LineNotUnderstood(line: String(decoding: line.prefix(300), as: UTF8.self)) }
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nudge)
        process.arguments =
            ["watch", "--json", "--socket", sandbox.socket] + (since.map { ["--since", "\($0)"] } ?? [])
        process.standardOutput = try output.writer()
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let process = process
        do {
            try await IntegrationTests.eventually("nudged to count `nudge watch` among its watchers") {
                if let status = process.exitStatus { throw Failure("nudge watch exited with \(status)") }
                return try await sandbox.health()["watchers"] as? Int ?? 0 > watchersBefore
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Every event so far, in the order nudged published them.
    var events: [WatchedEvent] { output.lines.compactMap { try? $0.get() } }

    /// Lines `nudge watch` printed that are no event (there should be none).
    var linesNotUnderstood: [String] {
        output.lines.compactMap {
            guard case .failure(let failure) = $0 else { return nil }
            return failure.line
        }
    }

    func events(kind: String, item: Int) -> [WatchedEvent] {
        events.filter { $0.kind == kind && $0.itemID == item }
    }

    /// Waits for the first `kind` event of `item` and returns it.
    @discardableResult
    func awaitEvent(
        _ kind: String,
        item: Int,
        within limit: Duration = patience,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> WatchedEvent {
        try await IntegrationTests.eventually(
            "a \(kind) event of item \(item)",
            within: limit,
            seen: { "events: \(events)" + (linesNotUnderstood.isEmpty ? "" : "; not events: \(linesNotUnderstood)") },
            sourceLocation: sourceLocation
        ) { events(kind: kind, item: item).first }
    }

    func stop() {
        guard process.exitStatus == nil else { return }
        process.terminate()
        if process.awaitExit() == nil {
            kill(process.processIdentifier, SIGKILL)
            process.awaitExit()
        }
    }
}

/// An instant as the CLI's --due takes it.
func iso(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

/// As nudged writes instants: with fractional seconds.
func preciseISO(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }

/// An instant as nudged writes it, or as a test wrote it (with or without fractional seconds).
func date(_ text: Any?) -> Date? {
    guard let text = text as? String else { return nil }
    return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
        ?? (try? Date.ISO8601FormatStyle().parse(text))
}

/// The next whole second at least `seconds` ahead, so due instants survive the CLI's whole-second ISO form.
func wholeSecond(after seconds: TimeInterval) -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
}

/// An --on-fire command that records each run, for item N, in fired-N.time (when, seconds since 1970),
/// fired-N.args (its arguments) and fired-N.env (its environment), NUL-separated so any text survives.
///
/// The command is `/bin/sh SCRIPT`: the shell reads the script rather than the kernel exec'ing it. Tests run side by
/// side in one process, and a child another test starts while this one writes the script can inherit the script's
/// open descriptor; exec'ing a file open for writing fails with ETXTBSY ("Text file busy"), reading it never does.
struct FireRecorder {
    let directory: String
    private var script: String { directory + "/record-fire" }
    /// nudged's arguments that make it run the recorder.
    var onFire: [String] { ["--on-fire", "/bin/sh", script] }

    init(in sandbox: Sandbox) throws {
        directory = sandbox.path + "/fired"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            dir=$(dirname "$0")
            printf '%s\\0' "$@" > "$dir/fired-$NUDGE_ITEM_ID.args"
            env -0 > "$dir/fired-$NUDGE_ITEM_ID.env"
            date +%s.%N > "$dir/fired-$NUDGE_ITEM_ID.time.part"
            mv "$dir/fired-$NUDGE_ITEM_ID.time.part" "$dir/fired-$NUDGE_ITEM_ID.time"
            """
        _ = FileManager.default.createFile(atPath: self.script, contents: Data(script.utf8))
    }

    /// When the program ran for `itemID`, once it has.
    func firedAt(_ itemID: Int) -> Date? {
        (try? String(contentsOfFile: "\(directory)/fired-\(itemID).time", encoding: .utf8))
            .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            .map(Date.init(timeIntervalSince1970:))
    }

    /// Waits until the program has run for every one of `itemIDs`.
    func awaitRuns(of itemIDs: [Int], daemon: Daemon, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        try await daemon.eventually(
            "the --on-fire program to run for items \(itemIDs)",
            sourceLocation: sourceLocation
        ) { itemIDs.allSatisfy { firedAt($0) != nil } }
    }

    func arguments(_ itemID: Int) -> [String] { fields("\(directory)/fired-\(itemID).args") }

    func environment(_ itemID: Int) -> [String: String] {
        var environment: [String: String] = [:]
        for entry in fields("\(directory)/fired-\(itemID).env") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            environment[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return environment
    }

    private func fields(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

/// The `code` of an answer in the API's error shape, if it is one.
func errorCode(_ body: String) -> String? {
    let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    return (json?["error"] as? [String: Any])?["code"] as? String
}
