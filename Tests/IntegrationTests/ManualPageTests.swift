import Foundation
import Testing

/// nudge(1), nudged(8) and nudge.conf(5) as `scripts/man` writes them from the built binaries: every page reads
/// without a warning from man, and the settings page has every setting nudged has, with its variable.
@Suite struct ManualPageTests {
    /// Runs scripts/man on the built binaries, into a new directory, which it returns.
    private func writePages() async throws -> String {
        let directory = try temporaryDirectory("man")
        let made = try await run(
            Binaries.packageRoot + "/scripts/man",
            ["--binaries", Binaries.directory, "--output", directory]
        )
        try #require(made.status == 0, "\(made)")
        return directory
    }

    @Test func scriptsManWritesThreePagesThatManReadsWithoutAWarning() async throws {
        let directory = try await writePages()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for page in ["nudge.1", "nudged.8", "nudge.conf.5"] {
            let path = directory + "/" + page
            #expect(FileManager.default.fileExists(atPath: path), "\(page) was not written")
            // man(1) with --warnings prints groff's and mdoc's complaints on stderr; the page itself goes to stdout.
            let read = try await run(
                "/usr/bin/man",
                ["--warnings", "-l", path],
                environment: ProcessInfo.processInfo.environment.merging(["MANWIDTH": "100"]) { $1 }
            )
            #expect(read.status == 0, "\(page): \(read)")
            #expect(read.stderr.isEmpty, "\(page): \(read.stderr)")
            #expect(read.stdout.count > 1_000, "\(page) is nearly empty: \(read.stdout)")
        }
    }

    @Test func theSettingsPageNamesEverySettingWithItsFlagAndVariable() async throws {
        let directory = try await writePages()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let page = try await run(
            "/usr/bin/man",
            ["-l", directory + "/nudge.conf.5"],
            environment: ProcessInfo.processInfo.environment.merging(["MANWIDTH": "200"]) { $1 }
        )
        let settings = try await run(
            Binaries.nudged,
            ["--print-config", "--store", directory + "/store.plist", "--socket", directory + "/s.sock"]
        )
        let keys = settings.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        #expect(keys.count >= 15, "\(settings)")
        for key in keys {
            let flag = key.replacing(/[A-Z]/) { "-" + $0.output.lowercased() }
            let variable = "NUDGE_" + flag.replacingOccurrences(of: "-", with: "_").uppercased()
            #expect(page.stdout.contains("\(key) (--\(flag)"), "\(key) is not a setting of nudge.conf(5)")
            #expect(page.stdout.contains(variable), "\(variable) is not in nudge.conf(5)")
        }
    }
}
