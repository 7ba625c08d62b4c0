import Foundation
import Testing

/// The day's digest of items due on a day, from the real nudged on its manual clock, in Berlin across the night the
/// clocks spring forward (2027-03-28): one journal entry a delivery, read back with journalctl, and one desktop
/// notification that the follow-up and the next day's digest replace, shown by dunst.
@Suite(.timeLimit(hangLimit)) struct DigestTests {
    static let digestMessageID = "8ebfc08e841a4a42af242776147f4ffb"
    /// Sat 2027-03-27 08:00 in Berlin (CET).
    static let saturdayEight = Date(timeIntervalSince1970: 1_806_130_800)
    /// 09:00 in Berlin on Saturday (08:00Z) and on Sunday, in summer time (07:00Z).
    static let saturdayNine = Date(timeIntervalSince1970: 1_806_134_400)
    static let sundayNine = Date(timeIntervalSince1970: 1_806_217_200)

    private static func berlin(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String:
        String]
    {
        environment.merging(["TZ": "Europe/Berlin"]) { $1 }
    }

    /// Waits until `nudge watch` has seen `count` digests, and returns them.
    private func digests(_ watcher: Watcher, count: Int) async throws -> [WatchedEvent] {
        try await eventually("\(count) digest events", seen: { "events: \(watcher.events)" }) {
            let seen = watcher.events(kind: "digest", item: 0)
            return seen.count >= count ? seen : nil
        }
    }

    @Test func eachDigestIsOneJournalEntryAtNineInNudgedsZoneAndAFollowUpComesAtOnce() async throws {
        try JournalReader.requireJournald()
        let nudged = try await WatchedDaemon(
            sinks: "journal",
            clock: .manual(Self.saturdayEight),
            environment: Self.berlin()
        )
        defer { nudged.stop() }
        let (sandbox, daemon, watcher) = (nudged.sandbox, nudged.daemon, nudged.watcher)
        for (text, day) in [("taxes", "2027-03-27"), ("rent", "2027-03-28")] {
            let added = try await sandbox.nudge("add", text, "--due", day)
            #expect(added.status == 0, "\(added)")
        }
        try await sandbox.moveClock(to: Self.saturdayNine)
        let saturday = try #require(try await digests(watcher, count: 1).first)
        #expect(saturday.due == Self.saturdayNine && saturday.at == Self.saturdayNine, "\(saturday)")
        try await sandbox.moveClock(to: Self.saturdayNine + 1800)
        let sweep = try await sandbox.nudge("add", "sweep", "--due", "2027-03-27")
        #expect(sweep.status == 0, "\(sweep)")
        let followUp = try await digests(watcher, count: 2)[1]
        #expect(followUp.at == Self.saturdayNine + 1800 && followUp.due == Self.saturdayNine, "\(followUp)")
        // 09:00 on Sunday is 23 hours after Saturday's: the clock moved straight there fires it there.
        try await sandbox.moveClock(to: Self.sundayNine + 3600)
        let sunday = try await digests(watcher, count: 3)[2]
        #expect(sunday.due == Self.sundayNine && sunday.at == Self.sundayNine, "\(sunday)")

        let pid = daemon.process.processIdentifier
        let entries = try await JournalReader.jsonEntries(["_PID=\(pid)", "NUDGE_EVENT=digest"], count: 3)
        try #require(entries.count == 3, "\(entries.count) digest entries")
        func field(_ entry: [String: [[UInt8]]], _ name: String) -> String? {
            entry[name]?.first.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(
            entries.map { field($0, "MESSAGE") } == [
                "digest of 2027-03-27: 1 due today: taxes",
                "added to the digest of 2027-03-27: sweep",
                "digest of 2027-03-28: 1 due today: rent; 2 overdue: taxes, sweep",
            ]
        )
        #expect(entries.map { field($0, "NUDGE_ITEM_IDS") } == ["1", "3", "1 2 3"])
        #expect(entries.map { field($0, "NUDGE_DAY") } == ["2027-03-27", "2027-03-27", "2027-03-28"])
        #expect(entries.allSatisfy { field($0, "MESSAGE_ID") == Self.digestMessageID && field($0, "PRIORITY") == "5" })
        #expect(entries.allSatisfy { field($0, "NUDGE_ITEM_ID") == nil })
        // No item fired on its own.
        #expect(watcher.events.filter { $0.kind == "fired" }.isEmpty, "\(watcher.events)")

        // A list's own time: shown, set, refused when it is no time, and back to nudged's.
        let shown = try await sandbox.nudge("list", "digest", "inbox")
        #expect(shown.stdout == "the digest brings the items of \"Inbox\" due on a day at nudged's --digest-time\n")
        let set = try await sandbox.nudge("list", "digest", "Inbox", "07:30", "--json")
        let list = try JSONSerialization.jsonObject(with: Data(set.stdout.utf8)) as? [String: Any]
        #expect(set.status == 0 && list?["digestTime"] as? String == "07:30", "\(set)")
        let bad = try await sandbox.nudge("list", "digest", "Inbox", "7:30")
        #expect(bad.status == 2 && bad.stderr.contains("\"7:30\" is not a time of day; use HH:MM"), "\(bad)")
        let api = try await sandbox.curl("PATCH", "/v1/lists/1", body: #"{"digestTime": "24:00"}"#)
        #expect(api.status == 400 && api.body.contains("invalid_body"), "\(api.body)")
        #expect(try await sandbox.nudge("list", "digest", "Inbox", "default").status == 0)
        let lists = try await sandbox.curl("GET", "/v1/lists")
        #expect(!lists.body.contains("digestTime"), "\(lists.body)")
    }

    @Test func theDaysDigestIsOneNotificationThatTheFollowUpAndTheNextDayReplace() async throws {
        let clock = TestClock.manual(Self.saturdayEight)
        try await DesktopTests.withDesktopDaemon(clock: clock, timeZone: "Europe/Berlin") { desktop, sandbox, daemon in
            #expect(try await sandbox.nudge("add", "taxes", "--due", "2027-03-27").status == 0)
            try await sandbox.moveClock(to: Self.saturdayNine)
            try await daemon.awaitLog("the digest shows as notification")
            try await sandbox.moveClock(to: Self.saturdayNine + 600)
            #expect(try await sandbox.nudge("add", "sweep <the hall>", "--due", "2027-03-27").status == 0)
            try await daemon.awaitLog("the digest shows as notification", times: 2)
            try await sandbox.moveClock(to: Self.sundayNine)
            try await daemon.awaitLog("the digest shows as notification", times: 3)
            #expect(await desktop.displayedCount() == 1)

            let calls = desktop.notifyCalls()
            #expect(calls.map(\.summary) == ["Today: 1 due", "Also today: sweep <the hall>", "Today: 2 overdue"])
            #expect(
                calls.map(\.body) == [
                    "Due today:\n• taxes  #1", "Due today:\n• taxes  #1\n• sweep <the hall>  #2",
                    "Overdue:\n• taxes  #1\n• sweep <the hall>  #2",
                ]
            )
            #expect(calls.allSatisfy { $0.actions.isEmpty })
            let first = try await daemon.awaitLog("the digest shows as notification")
            #expect(calls.first?.replacesID == 0)
            let replaced = calls.dropFirst().map(\.replacesID)
            #expect(replaced.count == 2 && replaced.allSatisfy { $0 != 0 && first.hasSuffix("notification \($0)") })
        }
    }
}
