import Foundation
import Testing

/// Every file of the corpus of calendar files other programs wrote (`Tests/ICSCorpus`: Apple, Thunderbird, Nextcloud,
/// Synology, tasks.org, DAVx5, Evolution, KOrganizer, Horde, and parsers' hostile files), through the real nudged and
/// nudge, each into a store of its own: it imports, and Python's icalendar reads the export as saying what the file
/// says in the terms nudge keeps (summary, done, completion instant, priority, due instant, repeat and its next due
/// dates, alarms; `Tests/Tools/ics_tasks.py`), or what nudge does not keep is said in the import's notes; a second
/// import of the file, and an import of nudge's own export, change nothing. Or it is refused naming its line, changing nothing, and then it is one of the files its
/// own program calls invalid or a fuzzer made. nudged runs in a zone with DST, on a clock that stands still.
@Suite(.timeLimit(hangLimit)) struct CorpusTests {
    static let corpus = Binaries.packageRoot + "/Tests/ICSCorpus/files"
    static let zone = "Europe/Berlin"
    static let clock = TestClock.manual(Date(timeIntervalSince1970: 1_894_276_800))  // 2030-01-10T12:00:00Z

    /// The files refused: hostile inputs from fuzzers, and ical4j's samples of invalid files. Each is out of shape
    /// where the refusal says (a control character in a name, an END that closes the wrong component, a year
    /// before 0).
    static let refusedOnPurpose: Set<String> = [
        "hostile-icalendar-Index_Error.ics", "hostile-icalendar-Type_Error.ics",
        "hostile-icalendar-fuzz_testcase_0_char_in_component_name.ics", "ical4j-invalid-twinkle.ics",
        "ical4j-invalid-twinkle_orig.ics", "libical-fuzzusban5.ics", "libical-poc-01.ics",
    ]

    @Test func everyFileImportsMeaningWhatIcalendarReadsOrIsRefusedSayingWhereAndChangingNothing() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        try #require(names.count == 113, "the corpus has 113 files")
        let work = try Sandbox()
        defer { work.remove() }
        var manifest: [[String: String]] = []
        var refused: [String] = []
        var tasks = 0
        for name in names {
            let file = Self.corpus + "/" + name
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            let daemon = try await Daemon(sandbox, clock: Self.clock, environment: ["TZ": Self.zone])
            defer { daemon.stop() }
            let before = try await sandbox.nudge("export")
            let imported = try await sandbox.nudge("import", file, "--json")
            if imported.status != 0 {
                refused.append(name)
                #expect(imported.status == 1, "\(name): \(imported)")
                #expect(
                    imported.stderr.contains(#/line \d+: /#),
                    "\(name): the refusal names no line: \(imported.stderr)"
                )
                #expect(imported.stderr.contains("nothing was imported (fix the file"), "\(name): \(imported.stderr)")
                #expect(
                    try await sandbox.nudge("export").stdout == before.stdout,
                    "\(name): a refusal changed the store"
                )
                continue
            }
            let report = try #require(
                try JSONSerialization.jsonObject(with: imported.output) as? [String: Any],
                "\(name): \(imported)"
            )
            tasks +=
                (report["results"] as? [[String: Any]])?.filter { $0["outcome"] as? String != "skipped" }.count ?? 0
            let export = try await sandbox.nudge("export")
            #expect(export.status == 0, "\(name): \(export)")
            let again = try await sandbox.nudge("import", file, "--json")
            let second = try JSONSerialization.jsonObject(with: again.output) as? [String: Any]
            #expect(
                second?["created"] as? Int == 0 && second?["updated"] as? Int == 0,
                "\(name): a second import changed something: \(again)"
            )
            let stem = work.path + "/" + name
            try export.output.write(to: URL(fileURLWithPath: stem + ".export.ics"))
            let own = try await sandbox.nudge("import", stem + ".export.ics", "--json")
            let ownReport = try JSONSerialization.jsonObject(with: own.output) as? [String: Any]
            #expect(
                ownReport?["created"] as? Int == 0 && ownReport?["updated"] as? Int == 0,
                "\(name): importing nudge's own export changed something: \(own)"
            )
            try imported.output.write(to: URL(fileURLWithPath: stem + ".import.json"))
            manifest.append([
                "name": name, "original": file, "export": stem + ".export.ics", "import": stem + ".import.json",
            ])
        }
        #expect(Set(refused) == Self.refusedOnPurpose, "refused: \(refused.sorted())")

        let manifestPath = work.path + "/manifest.json"
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: manifestPath))
        let compared = try await run(
            CalendarFileTests.python,
            [Binaries.packageRoot + "/Tests/Tools/ics_tasks.py", Self.zone, "compare", manifestPath]
        )
        try #require(
            compared.status == 0,
            "ics_tasks.py compare failed (run scripts/install-deps --tests): \(compared)"
        )
        let summary = try #require(try JSONSerialization.jsonObject(with: compared.output) as? [String: Any])
        let problems = summary["problems"] as? [String] ?? ["no problems list: \(summary)"]
        let originalsUnread = summary["originalsUnread"] as? [String] ?? []
        let exportsUnread = summary["exportsUnread"] as? [String] ?? ["no list: \(summary)"]
        print(
            "corpus: \(names.count) files, \(manifest.count) imported (\(tasks) tasks), \(refused.count) refused; "
                + "\(summary["compared"] ?? 0) tasks compared with icalendar's reading, \(originalsUnread.count) files "
                + "icalendar cannot read (\(originalsUnread.map { $0.prefix { $0 != ":" } }.joined(separator: ", "))), "
                + "\(problems.count) disagreements"
        )
        #expect(exportsUnread.isEmpty, "icalendar cannot read these exports:\n\(exportsUnread.joined(separator: "\n"))")
        #expect(problems.isEmpty, "\(problems.count) disagreements:\n\(problems.joined(separator: "\n"))")
        #expect((summary["compared"] as? Int ?? 0) > 100, "tasks compared: \(summary["compared"] ?? "none")")
    }
}
