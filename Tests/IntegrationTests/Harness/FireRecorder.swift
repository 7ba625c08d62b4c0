import Foundation
import Synchronization
import Testing

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
