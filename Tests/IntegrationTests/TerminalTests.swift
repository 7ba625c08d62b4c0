import Foundation
import Testing

/// `nudge ls` as a person sees it: typed into a real terminal (tmux, on a private server), the screen read back.
/// Wide characters line up and are cut on whole characters, colour is on by default and off with NO_COLOR, and a
/// narrow terminal gets lines cut to its width rather than wrapped.
@Suite(.timeLimit(hangLimit)) struct TerminalTests {
    @Test func lsOnARealTerminalWideNarrowColouredAndNot() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(try #require(date("2026-11-20T15:00:00Z"))))
        defer { daemon.stop() }
        for (text, due) in [
            ("日本語のテキストを読む", "2026-11-21T09:00:00Z"), ("family 👩‍👩‍👧 dinner", "2026-11-22T18:00:00Z"),
            ("pay rent", "2026-11-19T09:00:00Z"), ("water the plants on the balcony and in the hall", nil),
        ] {
            let arguments = ["add", text] + (due.map { ["--due", $0] } ?? []) + ["--socket", sandbox.socket]
            #expect(try await run(Binaries.nudge, arguments).status == 0)
        }

        let wide = try await Screen(sandbox, columns: 100)
        defer { wide.close() }
        let coloured = try await wide.run("nudge ls")
        #expect(coloured.contains("\u{1B}[31m"), "overdue in red:\n\(coloured)")
        let plainLines = try await wide.run("nudge ls", escapes: false).split(separator: "\n")
        let japanese = try #require(plainLines.first { $0.contains("日本語のテキストを読む") })
        let ascii = try #require(plainLines.first { $0.contains("pay rent") })
        // On the screen, the due column starts at the same cell after wide characters as after narrow ones.
        #expect(cell(of: "in 18h", in: japanese) == cell(of: "1d 6h ago", in: ascii), "\(plainLines)")
        let uncoloured = try await wide.run("NO_COLOR=1 nudge ls")
        #expect(!uncoloured.contains("\u{1B}["), "NO_COLOR:\n\(uncoloured)")

        let narrow = try await Screen(sandbox, columns: 40)
        defer { narrow.close() }
        let lines = try await narrow.run("nudge ls", escapes: false).split(separator: "\n").map(String.init)
        // One line per item under the list's name: nothing wrapped onto a second screen line.
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.allSatisfy { displayWidth($0) <= 40 }, "\(lines)")
        #expect(lines.contains { $0.contains("日本") && $0.contains("…") }, "\(lines)")
    }

    /// The screen cell where `part` starts in a captured line.
    private func cell(of part: String, in line: some StringProtocol) -> Int? {
        line.range(of: part).map { displayWidth(line[..<$0.lowerBound]) }
    }
}

/// A tmux session on a server of its own, running sh with the sandbox's nudge and socket, `columns` wide. The server
/// runs in the foreground (`-D`) as this test's child: a server tmux forks off itself would keep the descriptor
/// Foundation watches to see its client exit, and the client would never be seen to.
private final class Screen: Sendable {
    let tmux: [String]
    let server: Process

    init(_ sandbox: Sandbox, columns: Int) async throws {
        let socket = sandbox.path + "/tmux-\(columns).sock"
        tmux = ["/usr/bin/tmux", "-S", socket, "-f", "/dev/null"]
        server = Process()
        // The test process blocks most signals, and a child inherits the mask; tmux needs SIGCHLD and SIGTERM.
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["--default-signal"] + tmux + ["-D"]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        try await eventually("tmux to listen on \(socket)") { isListening(socket) }
        let binaries = URL(fileURLWithPath: Binaries.nudge).deletingLastPathComponent().path
        // The shell's environment is set by env: tmux's -e gives way to the server's own environment here.
        let started = try await tmuxRun([
            "new-session", "-d", "-x", String(columns), "-y", "40", "/usr/bin/env", "-u", "NO_COLOR", "-u", "COLUMNS",
            "PATH=\(binaries):/usr/bin:/bin", "NUDGE_SOCKET=\(sandbox.socket)", "TZ=UTC", "PS1=$ ", "/bin/sh",
        ])
        guard started.status == 0 else { throw Failure("tmux did not start a session: \(started)") }
    }

    /// Types `command` and Enter after clearing the screen, waits for it to finish, and returns what it printed on
    /// the screen (with colour escapes when `escapes`): the lines above the marker echoed after it.
    func run(_ command: String, escapes: Bool = true) async throws -> String {
        let tag = UUID().uuidString.prefix(8)
        // Typed with quotes in the middle, so only the echo's output, not the typed line, shows the marker whole.
        _ = try await tmuxRun(["send-keys", "clear; \(command); echo done-\"\"\(tag)", "Enter"])
        var screen = ""
        try await eventually("\(command) to finish on the screen", seen: { screen }) {
            screen = try await tmuxRun(["capture-pane", "-p"] + (escapes ? ["-e"] : [])).stdout
            return screen.split(separator: "\n").contains { $0.hasSuffix("done-\(tag)") }
        }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        let end = lines.firstIndex { $0.hasSuffix("done-\(tag)") } ?? lines.endIndex
        let start = lines[..<end].lastIndex { $0.contains("done-\"\"\(tag)") }.map { $0 + 1 } ?? lines.startIndex
        return lines[start..<end].joined(separator: "\n")
    }

    /// `kill-server`, not a signal to the server alone: its shells hold a descriptor Foundation watches to see the
    /// server exit, and they end only when the server closes their terminals.
    func close() {
        let kill = Process()
        kill.executableURL = URL(fileURLWithPath: tmux[0])
        kill.arguments = Array(tmux.dropFirst()) + ["kill-server"]
        if (try? kill.run()) != nil { kill.awaitExit() }
        server.awaitExit()
    }

    private func tmuxRun(_ arguments: [String]) async throws -> CommandResult {
        try await IntegrationTests.run(tmux[0], Array(tmux.dropFirst()) + arguments)
    }
}
