import Foundation
import Testing

/// What `ls`, `pending` and `show` print, on the real nudged running a manual clock (so "in 18h" is exact), with
/// output to a pipe as scripts see it: columns in display width, control characters escaped, overdue marked,
/// colour only when asked, lines cut to COLUMNS, filters and sorts.
@Suite(.timeLimit(hangLimit)) struct LsOutputTests {
    static let start = "2026-11-20T15:00:00Z"  // a Friday

    @Test func lsLinesUpWideTextEscapesControlsMarksOverdueAndFilters() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(sandbox, clock: .manual(try #require(date(Self.start))))
        defer { daemon.stop() }
        for (text, due) in [
            ("abcdef", "2026-11-21T09:00:00Z"), ("日本語", "2026-11-21T09:00:00Z"), ("tab\there", nil),
            ("pay rent", "2026-11-19T09:00:00Z"), ("milk", nil),
        ] {
            let added = try await nudge(["add", text] + (due.map { ["--due", $0] } ?? []), sandbox)
            #expect(added.status == 0, "\(added)")
        }
        #expect(try await nudge(["done", "5"], sandbox).status == 0)

        let plain = try await nudge(["ls"], sandbox)
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Inbox", "\(plain)")
        let latin = try #require(lines.first { $0.contains("abcdef") })
        let wide = try #require(lines.first { $0.contains("日本語") })
        // The due column starts at the same terminal column after three wide characters as after six narrow ones.
        #expect(latin.contains("abcdef     in 18h · Sat 21 Nov 09:00  ") && latin.hasSuffix("⏰"), "\(plain)")
        #expect(columnOf("in 18h", in: latin) == columnOf("in 18h", in: wide), "\(plain)")
        #expect(lines.contains { $0.contains(#"tab\there"#) }, "\(plain)")
        let overdue = try #require(lines.first { $0.contains("pay rent") })
        // A day before today has its year, so the line reads back as the same instant.
        #expect(overdue.hasSuffix("1d 6h ago · Thu 19 Nov 2026 09:00  overdue"), "\(plain)")
        #expect(!plain.stdout.contains("\u{1B}") && !plain.stdout.contains("milk"), "\(plain)")

        // Colour: only when asked, whatever NO_COLOR says then; never for a pipe by default.
        let coloured = try await nudge(["ls", "--color", "always"], sandbox, environment: ["NO_COLOR": "1"])
        #expect(coloured.stdout.contains("\u{1B}[31moverdue\u{1B}[0m"), "\(coloured)")
        #expect(!(try await nudge(["ls", "--color", "never"], sandbox)).stdout.contains("\u{1B}"))

        // Cut to COLUMNS, text first, whole characters only.
        let narrow = try await nudge(["ls"], sandbox, environment: ["COLUMNS": "44"])
        let narrowLines = narrow.stdout.split(separator: "\n").map(String.init)
        #expect(narrowLines.allSatisfy { displayWidth($0) <= 44 }, "\(narrow)")
        #expect(narrowLines.contains { $0.contains("…") }, "\(narrow)")

        func ids(_ arguments: [String]) async throws -> [Int] {
            let result = try await nudge(["ls"] + arguments, sandbox)
            return result.stdout.split(separator: "\n").dropFirst().compactMap {
                Int($0.split(separator: " ").first ?? "")
            }
        }
        #expect(try await ids(["--overdue"]) == [4])
        #expect(try await ids(["--checked"]) == [5])
        #expect(try await ids(["--due-before", "2026-11-20T00:00:00Z"]) == [4])
        #expect(try await ids(["--sort", "due"]) == [4, 1, 2, 3])
        #expect(try await ids(["--sort", "created"]) == [1, 2, 3, 4])
        let none = try await nudge(["ls", "--overdue", "--priority", "high"], sandbox)
        #expect(none.stdout == "no unchecked items that are overdue, high-priority\n", "\(none)")

        let shown = try await nudge(["show", "4"], sandbox)
        let due = shown.stdout.split(separator: "\n").first { $0.hasPrefix("Due:") }?.dropFirst(4)
            .trimmingCharacters(in: .whitespaces)
        #expect(due?.hasPrefix("Thu 19 Nov 2026 09:00:00 ") == true, "\(shown)")
        #expect(due?.hasSuffix(" (1d 6h ago), overdue") == true, "\(shown)")
        let pending = try await nudge(["pending"], sandbox)
        #expect(pending.stdout.hasPrefix("in 18h · Sat 21 Nov 09:00  #1  abcdef"), "\(pending)")
    }

    /// `--due` with a day and no time keeps the day: on the wire (`dueDay`, no `dueDate`), in `ls` and `show`, in
    /// the export (`DUE;VALUE=DATE`). It is overdue from the next day, sorts before that day's timed items, and has
    /// no reminder of its own (the day's digest brings it: `DigestTests`), so nudge warns of none.
    @Test func aDayWithoutATimeIsShownAsADayOverdueFromTheNextAndSortedFirst() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let daemon = try await Daemon(
            sandbox,
            clock: .manual(try #require(date(Self.start))),
            environment: ProcessInfo.processInfo.environment.merging(["TZ": "UTC"]) { $1 }
        )
        defer { daemon.stop() }
        for (text, due) in [("taxes", "sat"), ("call", "sat 08:00"), ("bills", "2026-11-19"), ("rent", "fri")] {
            #expect(try await nudge(["add", text, "--due", due], sandbox).status == 0)
        }
        let taxes = try await nudge(["show", "1", "--json"], sandbox)
        let item = try #require(try JSONSerialization.jsonObject(with: Data(taxes.stdout.utf8)) as? [String: Any])
        #expect(item["dueDay"] as? String == "2026-11-21" && item["dueDate"] == nil, "\(taxes)")
        #expect(item["pendingDue"] == nil, "\(taxes)")
        let today = try await nudge(["add", "sweep", "--due", "today"], sandbox)
        #expect(today.status == 0 && today.stderr.isEmpty, "\(today)")

        let plain = try await nudge(["ls", "--sort", "due"], sandbox)
        let lines = plain.stdout.split(separator: "\n").dropFirst().map(String.init)
        #expect(lines.compactMap { Int($0.split(separator: " ").first ?? "") } == [3, 4, 5, 1, 2], "\(plain)")
        #expect(lines[0].contains("bills  yesterday · Thu 19 Nov 2026") && lines[0].hasSuffix("overdue"), "\(plain)")
        #expect(lines[1].contains("rent   today · Fri 20 Nov") && !lines[1].contains("overdue"), "\(plain)")
        #expect(lines[3].contains("taxes  tomorrow · Sat 21 Nov") && lines[3].hasSuffix("digest"), "\(plain)")
        // Before Saturday begins: bills, rent and sweep, not Saturday's taxes (a day) nor call (08:00).
        let beforeSaturday = try await nudge(["ls", "--due-before", "sat"], sandbox)
        #expect(
            beforeSaturday.stdout.split(separator: "\n").dropFirst().compactMap {
                Int($0.split(separator: " ").first ?? "")
            } == [3, 4, 5],
            "\(beforeSaturday)"
        )
        // Said on a Friday afternoon, "fri" is next Friday, as it always was here: everything is due before it.
        let beforeFriday = try await nudge(["ls", "--due-before", "fri"], sandbox)
        #expect(beforeFriday.stdout.split(separator: "\n").dropFirst().count == 5, "\(beforeFriday)")
        let overdue = try await nudge(["ls", "--overdue"], sandbox)
        #expect(overdue.stdout.split(separator: "\n").dropFirst().count == 1 && overdue.stdout.contains("bills"))
        let shown = try await nudge(["show", "1"], sandbox)
        #expect(shown.stdout.contains("Due:            Sat 21 Nov (tomorrow), all day\n"), "\(shown)")

        // `today`: what is due today without a time and what is overdue (sweep was added too late for its reminder,
        // and is still due today); taxes, tomorrow's, and call, timed, are not in it.
        let listed = try await nudge(["today"], sandbox)
        let todayLines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(todayLines.first == "Fri 20 Nov: 2 due today, 1 overdue", "\(listed)")
        #expect(todayLines.dropFirst().compactMap { Int($0.split(separator: " ").first ?? "") } == [3, 4, 5])
        #expect(todayLines[1].contains("bills  yesterday · Thu 19 Nov 2026  overdue  (Inbox)"), "\(listed)")
        let digest = try await nudge(["today", "--json"], sandbox)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(digest.stdout.utf8)) as? [String: Any])
        #expect(parsed["day"] as? String == "2026-11-20" && parsed["count"] as? Int == 3, "\(digest)")
        #expect(parsed["summary"] as? String == "2 due today: rent, sweep; 1 overdue: bills", "\(digest)")

        let export = try await nudge(["export"], sandbox)
        #expect(export.stdout.contains("SUMMARY:taxes\r\n") && export.stdout.contains("DUE;VALUE=DATE:20261121\r\n"))
        #expect(try await nudge(["edit", "1", "--due", "sat 10:00"], sandbox).status == 0)
        let timed = try await nudge(["show", "1", "--json"], sandbox)
        #expect(timed.stdout.contains("\"dueDate\"") && !timed.stdout.contains("\"dueDay\""), "\(timed)")
    }

    /// `nudge` against the sandbox in UTC, its output to a pipe.
    private func nudge(_ arguments: [String], _ sandbox: Sandbox, environment: [String: String] = [:]) async throws
        -> CommandResult
    {
        var base = ProcessInfo.processInfo.environment
        base["TZ"] = "UTC"
        base["COLUMNS"] = nil
        base["NO_COLOR"] = nil
        return try await run(
            Binaries.nudge,
            arguments + ["--socket", sandbox.socket],
            environment: base.merging(environment) { _, new in new }
        )
    }
}

/// Terminal columns, for the characters these tests print: CJK and emoji take two, everything else one.
func displayWidth(_ text: some StringProtocol) -> Int {
    text.unicodeScalars.reduce(0) { width, scalar in
        switch scalar.value {
        case 0x2E80...0x9FFF, 0xFF00...0xFF60, 0x1F300...0x1FAFF, 0x23F0: width + 2
        case 0x300...0x36F, 0x200B...0x200D, 0xFE0F: width
        default: width + 1
        }
    }
}

/// The terminal column where `part` starts in `line`.
private func columnOf(_ part: String, in line: String) -> Int? {
    line.range(of: part).map { displayWidth(line[..<$0.lowerBound]) }
}
