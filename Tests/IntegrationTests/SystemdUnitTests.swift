import Foundation
import Testing

/// The units in units/ and the install scripts, checked with systemd's own tools against an install staged in a
/// temporary root (DESTDIR): nothing on the machine is touched. scripts/install-deps installs systemd and
/// util-linux, so the gate below never hides a missing tool on the test machine.
@Suite(
    .timeLimit(hangLimit),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
        "needs systemd-analyze (systemd) and unshare (util-linux)"
    )
)
struct SystemdUnitTests {
    static let maximumSystemScore = 2.5

    /// A temporary root holding what `DESTDIR=root scripts/install --binaries .build/release` put there.
    private struct StagedInstall {
        let root: String

        init() async throws {
            try Binaries.require(Binaries.nudged)
            try Binaries.require(Binaries.nudge)
            var template = Array("/tmp/nudge-install-XXXXXX".utf8CString)
            root = String(cString: try #require(mkdtemp(&template)))
            let installed = try await script(
                "install",
                "--binaries",
                (Binaries.nudged as NSString).deletingLastPathComponent
            )
            #expect(installed.status == 0, "\(installed)")
        }

        func script(_ name: String, _ arguments: String...) async throws -> CommandResult {
            var environment = ProcessInfo.processInfo.environment
            environment["DESTDIR"] = root
            return try await run(Binaries.packageRoot + "/scripts/" + name, arguments, environment: environment)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }

        var systemUnit: String { root + "/usr/local/lib/systemd/system/nudged-system.service" }
        var userUnit: String { root + "/usr/local/lib/systemd/user/nudged.service" }

        /// `systemd-analyze ARGUMENTS` in a private mount namespace where the staged /usr/local/bin is mounted over
        /// the real one, so the units' ExecStart=/usr/local/bin/nudged exists as on an installed machine.
        func analyze(_ arguments: [String]) async throws -> CommandResult {
            var template = Array("/tmp/nudge-xdg-XXXXXX".utf8CString)
            let runtime = String(cString: try #require(mkdtemp(&template)))
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime  // the user manager's paths need one
            return try await run(
                "/usr/bin/unshare",
                [
                    "--mount", "--map-root-user", "/bin/sh", "-c",
                    "mount --bind \"$0/usr/local/bin\" /usr/local/bin && exec systemd-analyze \"$@\"", root,
                ] + arguments,
                environment: environment
            )
        }
    }

    /// The overall exposure `systemd-analyze security` printed, like 0.4 for "… exposure level for x: 0.4 SAFE".
    private func exposure(_ output: String) -> Double? {
        // `→ Overall exposure level for nudged.service: 0.3 SAFE 😀`; without a UTF-8 locale the face is `:-}`.
        guard let line = output.split(separator: "\n").last(where: { $0.contains("Overall exposure level") }),
            let score = line.firstMatch(of: #/: ([0-9.]+) /#)?.output.1
        else { return nil }
        return Double(score)
    }

    @Test func installStagesBinariesAndUnitsWhereSystemdLooksAndUninstallRemovesThem() async throws {
        let staged = try await StagedInstall()
        defer { staged.remove() }
        let files = [
            "/usr/local/bin/nudged": 0o755, "/usr/local/bin/nudge": 0o755,
            "/usr/local/lib/systemd/user/nudged.service": 0o644,
            "/usr/local/lib/systemd/system/nudged-system.service": 0o644,
        ]
        for (path, mode) in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: staged.root + path)
            #expect(attributes[.posixPermissions] as? Int == mode, "\(path)")
        }
        // Where systemd 252 finds units of each manager.
        let systemPaths = try await run("/usr/bin/systemd-analyze", ["unit-paths"]).stdout
        #expect(systemPaths.split(separator: "\n").contains("/usr/local/lib/systemd/system"))
        let userPaths = try await staged.analyze(["--user", "unit-paths"]).stdout
        #expect(userPaths.split(separator: "\n").contains("/usr/local/lib/systemd/user"), "\(userPaths)")

        let removed = try await staged.script("uninstall")
        #expect(removed.status == 0, "\(removed)")
        for path in files.keys { #expect(!FileManager.default.fileExists(atPath: staged.root + path), "\(path)") }
    }

    @Test func bothUnitsPassSystemdAnalyzeVerifyWithTheBinaryAtExecStart() async throws {
        let staged = try await StagedInstall()
        defer { staged.remove() }
        // verify warns about unknown keys yet exits 0: any output at all fails the test. --man=no: the pages that
        // Documentation= names come with the package (scripts/test-package), not with a DESTDIR install.
        let system = try await staged.analyze(["verify", "--man=no", staged.systemUnit])
        #expect(system.status == 0 && system.stdout.isEmpty && system.stderr.isEmpty, "\(system)")
        let user = try await staged.analyze(["--user", "verify", "--man=no", staged.userUnit])
        #expect(user.status == 0 && user.stdout.isEmpty && user.stderr.isEmpty, "\(user)")
    }

    @Test func systemUnitScoresAtMostTwoPointFiveOnSystemdAnalyzeSecurity() async throws {
        let unit = Binaries.packageRoot + "/units/nudged-system.service"
        // --threshold counts tenths: exposure 2.5 is 25.
        let threshold = String(Int(Self.maximumSystemScore * 10))
        let system = try await run(
            "/usr/bin/systemd-analyze",
            ["security", "--offline=yes", "--threshold=\(threshold)", "--no-pager", unit]
        )
        let score = try #require(exposure(system.stdout), "no score in:\n\(system.stdout)\(system.stderr)")
        #expect(system.status == 0, "exposure \(score) is over \(Self.maximumSystemScore):\n\(system.stdout)")
        #expect(score <= Self.maximumSystemScore)

        var template = Array("/tmp/nudge-xdg-XXXXXX".utf8CString)
        let runtime = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime
        let user = try await run(
            "/usr/bin/systemd-analyze",
            ["security", "--user", "--offline=yes", "--no-pager", Binaries.packageRoot + "/units/nudged.service"],
            environment: environment
        )
        print(
            "systemd-analyze security: nudged-system.service \(score), nudged.service (--user) "
                + (exposure(user.stdout).map { "\($0)" } ?? "not scored: \(user.stderr)")
        )
    }

    @Test func theSystemUnitKeepsItsStoreAndSocketInTheDirectoriesSystemdMakesForIt() async throws {
        let unit = try String(contentsOfFile: Binaries.packageRoot + "/units/nudged-system.service", encoding: .utf8)
        let settings = unit.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(settings.contains("StateDirectory=nudge"))
        #expect(settings.contains("RuntimeDirectory=nudge"))
        // nudged refuses a socket directory others may enter.
        #expect(settings.contains("RuntimeDirectoryMode=0700"))
        #expect(settings.contains("UMask=0077"))
        let execStart = try #require(settings.first { $0.hasPrefix("ExecStart=") })
        #expect(execStart.contains("--store /var/lib/nudge/Checklists.plist"), "\(execStart)")
        #expect(execStart.contains("--socket /run/nudge/nudged.sock"), "\(execStart)")
    }
}
