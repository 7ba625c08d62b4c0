import Foundation

/// Runs `systemd-analyze calendar` on many expressions at once and splits its output back into one report per
/// expression.
struct SystemdAnalyzeOracle: Sendable {
    let executable: String

    /// Finds systemd-analyze in the usual places or on PATH.
    static func locate() -> SystemdAnalyzeOracle? {
        var candidates = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/systemd-analyze" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map(
            SystemdAnalyzeOracle.init
        )
    }

    /// One report per expression: its lines, or nil where systemd printed nothing (rejected, or failed).
    func reports(for expressions: [String], zone: String, baseTime: String, iterations: Int) throws
        -> [[String]?]
    {
        let directory = FileManager.default.temporaryDirectory
        let token = UUID().uuidString
        let outputURL = directory.appendingPathComponent("nudge-calendar-oracle-\(token).out")
        let errorURL = directory.appendingPathComponent("nudge-calendar-oracle-\(token).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "calendar", "--base-time=\(baseTime)", "--iterations=\(iterations)",
                "--",
            ] + expressions
        process.environment = [
            "TZ": zone, "LC_ALL": "C", "SYSTEMD_COLORS": "0", "SYSTEMD_PAGER": "cat",
            "PATH": "/usr/bin:/bin",
        ]
        // Files, not pipes: the output is larger than a pipe buffer.
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        process.waitUntilExit()

        let output = try String(contentsOf: outputURL, encoding: .utf8)
        return try Self.split(output, expressions: expressions)
    }

    struct MappingError: Error, CustomStringConvertible {
        let description: String
    }

    /// systemd prints each report (lines ending in "\n", or nothing) and an empty line between reports. A report
    /// never contains an empty line, so the empty lines delimit exactly one group per expression.
    static func split(_ output: String, expressions: [String]) throws -> [[String]?] {
        var lines = output.components(separatedBy: "\n")
        if output.hasSuffix("\n") { lines.removeLast() }
        let groups = lines.split(separator: "", omittingEmptySubsequences: false).map(Array.init)
        guard groups.count == expressions.count || (output.isEmpty && expressions.count == 1) else {
            throw MappingError(
                description:
                    "systemd-analyze printed \(groups.count) reports for \(expressions.count) expressions"
            )
        }
        var reports: [[String]?] = []
        for (index, expression) in expressions.enumerated() {
            let group = index < groups.count ? groups[index] : []
            guard let first = group.first else {
                reports.append(nil)
                continue
            }
            // The first line names the expression: "Original form: <expr>", or the normalized form if equal.
            let named = first.hasSuffix("form: " + expression)
            guard named else {
                throw MappingError(
                    description: "report \(index) starts with \"\(first)\", not expression \"\(expression)\""
                )
            }
            reports.append(group)
        }
        return reports
    }
}
