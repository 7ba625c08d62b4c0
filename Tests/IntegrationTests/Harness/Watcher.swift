import Foundation
import Synchronization
import Testing

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
