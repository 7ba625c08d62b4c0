import Foundation
import Testing

/// Reads back what a process wrote to the real journal, with journalctl, in both of its lossless forms.
enum JournalReader {
    static let socket = "/run/systemd/journal/socket"

    /// Fails the test, naming the fix, if no journald runs here (scripts/test starts one).
    static func requireJournald() throws {
        guard FileManager.default.fileExists(atPath: socket) else {
            throw Failure("no journald at \(socket); scripts/test starts /lib/systemd/systemd-journald")
        }
    }

    /// The entries matching `matches` (`FIELD=value`), each field's value as raw bytes, parsed from
    /// `journalctl -o json --all` (text as a string, binary as an array of bytes); waits for `count` of them, since
    /// journald stores asynchronously.
    static func jsonEntries(_ matches: [String], count: Int = 1) async throws -> [[String: [[UInt8]]]] {
        try await poll(matches, count: count) {
            let output = try await journalctl(["-o", "json", "--all"] + matches)
            return output.split(separator: UInt8(ascii: "\n")).compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                    return nil
                }
                return object.mapValues { value -> [[UInt8]] in
                    // A field given more than once is an array of values; each value is a string or an array of
                    // bytes.
                    if let values = value as? [Any], values.first is [Any] || values.first is String {
                        return values.map(bytes)
                    }
                    return [bytes(value)]
                }
            }
        }
    }

    /// The same entries from `journalctl -o export`, where a value holding a newline or other binary data is
    /// framed by its 64-bit length.
    static func exportEntries(_ matches: [String], count: Int = 1) async throws -> [[String: [[UInt8]]]] {
        try await poll(matches, count: count) { parseExport(try await journalctl(["-o", "export"] + matches)) }
    }

    /// The fields an application sent: journald's own (`_PID`, `__CURSOR`, …) start with an underscore.
    static func sentFields(_ entry: [String: [[UInt8]]]) -> [String: [[UInt8]]] {
        entry.filter { !$0.key.hasPrefix("_") }
    }

    private static func bytes(_ value: Any) -> [UInt8] {
        if let text = value as? String { return Array(text.utf8) }
        return (value as? [Any])?.compactMap { ($0 as? NSNumber)?.uint8Value } ?? []
    }

    private static func parseExport(_ data: [UInt8]) -> [[String: [[UInt8]]]] {
        var entries: [[String: [[UInt8]]]] = []
        var entry: [String: [[UInt8]]] = [:]
        var index = 0
        while index < data.count {
            guard let lineEnd = data[index...].firstIndex(of: UInt8(ascii: "\n")) else { break }
            let line = data[index..<lineEnd]
            if line.isEmpty {
                if !entry.isEmpty { entries.append(entry) }
                entry = [:]
                index = lineEnd + 1
            } else if let equals = line.firstIndex(of: UInt8(ascii: "=")) {
                entry[String(decoding: line[..<equals], as: UTF8.self), default: []].append(
                    Array(line[(equals + 1)...])
                )
                index = lineEnd + 1
            } else {
                // NAME\n, then the value's length as 64-bit little-endian, the value, and \n.
                let sizeStart = lineEnd + 1
                var size = 0
                for offset in 0..<8 { size |= Int(data[sizeStart + offset]) << (8 * offset) }
                let valueStart = sizeStart + 8
                entry[String(decoding: line, as: UTF8.self), default: []].append(
                    Array(data[valueStart..<valueStart + size])
                )
                index = valueStart + size + 1
            }
        }
        if !entry.isEmpty { entries.append(entry) }
        return entries
    }

    private static func journalctl(_ arguments: [String]) async throws -> [UInt8] {
        Array(try await run("/usr/bin/journalctl", ["--no-pager"] + arguments).output)
    }

    /// Reads until at least `count` entries match; the entries read last.
    private static func poll<Entry>(_ matches: [String], count: Int, _ read: () async throws -> [Entry])
        async throws -> [Entry]
    {
        var entries: [Entry] = []
        try await eventually("\(count) journal entries matching \(matches)", seen: { "\(entries.count) entries" }) {
            entries = try await read()
            return entries.count >= count
        }
        return entries
    }
}
