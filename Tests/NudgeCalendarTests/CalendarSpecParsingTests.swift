import Foundation
import Testing

@testable import NudgeCalendar

/// The machine's zone database, for repeat rules.
private let zoneRules = ZoneRulesStore()

/// Parsing and normalized forms, with expected texts from `systemd-analyze calendar` (systemd 252.39).
@Suite("CalendarSpec parsing")
struct CalendarSpecParsingTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    @Test(
        "normalized forms match systemd",
        arguments: [
            ("Mon..Fri 9..17/2:00", "Mon..Fri *-*-* 09..17/2:00:00"),
            ("1:2:3.5", "*-*-* 01:02:03.500000"),
            ("*:*:0.9999995", "*-*-* *:*:01"),
            ("*:*:10..20/0.5", "*-*-* *:*:10..20/0.500000"),
            ("*:*:1.5..3", "*-*-* *:*:01.500000..02.500000"),
            ("*:*:0/1,5", "*-*-* *:*:*"),
            ("70-1-1", "1970-01-01 00:00:00"),
            ("69-1-1", "2069-01-01 00:00:00"),
            ("Mon,Tue,Wed,Fri,Sat", "Mon..Wed,Fri,Sat *-*-* 00:00:00"),
            ("Mon..Sun 12:00", "*-*-* 12:00:00"),
            ("Mon-Fri", "Mon..Fri *-*-* 00:00:00"),
            ("minutely", "*-*-* *:*:00"),
            ("hourly", "*-*-* *:00:00"),
            ("daily", "*-*-* 00:00:00"),
            ("weekly", "Mon *-*-* 00:00:00"),
            ("monthly", "*-*-01 00:00:00"),
            ("quarterly", "*-01,04,07,10-01 00:00:00"),
            ("semiannually", "*-01,07-01 00:00:00"),
            ("yearly", "*-01-01 00:00:00"),
            ("ANNUALLY utc", "*-01-01 00:00:00 UTC"),
            ("*~1", "*-*~01 00:00:00"),
            ("*-*~*", "*-*-* 00:00:00"),
            ("*-*~7/2", "*-*~07/2 00:00:00"),
            ("9..16/2:00", "*-*-* 09..15/2:00:00"),
            ("0..2:00", "*-*-* 00..02:00:00"),
            ("@1790000000", "2026-09-21 14:13:20 UTC"),
            ("@ 5", "1970-01-01 00:00:05 UTC"),
            ("@-62135596800", "2001-01-01 00:00:00 UTC"),
            ("12:00 cest", "*-*-* 12:00:00 CEST"),
            ("Mon *-*-* 12:00 Asia/Kolkata", "Mon *-*-* 12:00:00 Asia/Kolkata"),
            ("*:*:1.5..2/0.5", "*-*-* *:*:01.500000..02/0.500000"),
            ("*:0/59", "*-*-* *:00/59:00"),
            ("wEdNeSdAy", "Wed *-*-* 00:00:00"),
            ("anually", "*-01-01 00:00:00"),
            ("00000000000000000007:00", "*-*-* 07:00:00"),
            ("2026-01-01 ", "2026-01-01 00:00:00"),
        ]
    )
    func normalizedForm(expression: String, normalized: String) throws {
        let spec = try CalendarSpec(parsing: expression, localZone: Self.berlin, zones: zoneRules)
        #expect(spec.normalized == normalized)
        #expect(spec.description == normalized)
    }

    @Test(
        "systemd rejects these, and so do we",
        arguments: [
            "Sat..Mon", "today", "epoch", "now", "tomorrow", "*:50/20", "*-*-* 25:00", "*-*-*/2",
            "*-*~20,28",
            "*-*-* 00:00:00 ", "12", "", " daily", "Mond", "Mon..", "*-*-* 12:00:60", "1969-01-01",
            "2200-01-01",
            "*:0/0", "*-*-99999999999", "Europe/Berlin", "*:*:1.5..2", "*:*:*/5", "12:00  Europe/Berlin",
        ]
    )
    func rejected(expression: String) {
        #expect(throws: CalendarSpecError.self) {
            try CalendarSpec(parsing: expression, localZone: Self.berlin, zones: zoneRules)
        }
    }

    @Test("errors name the wrong part and say why")
    func errorsNameThePart() throws {
        let hour = try #require(capture("*-*-* 25:00"))
        #expect(hour.part == "25")
        #expect(hour.reason == "hour 25 is out of range 0–23")
        #expect(hour.description.contains("\"*-*-* 25:00\""))

        let weekday = try #require(capture("Mond 12:00"))
        #expect(weekday.part == "Mond")

        let backwards = try #require(capture("Fri..Mon"))
        #expect(backwards.part == "Fri..Mon")
        #expect(backwards.reason.contains("backwards"))

        let step = try #require(capture("*:0/0"))
        #expect(step.part == "0/0")

        let neverRepeats = try #require(capture("*:50/20"))
        #expect(neverRepeats.part == "50/20")
        #expect(neverRepeats.reason == "50/20 never repeats within 0–59")

        let year = try #require(capture("1969-01-01"))
        #expect(year.part == "1969")
        #expect(year.reason == "year 1969 is out of range 1970–2199")

        let trailing = try #require(capture("12:00 junk"))
        #expect(trailing.part == "junk" || trailing.part == " junk")

        let lastDays = try #require(capture("*-*~20,28"))
        #expect(lastDays.part == "28")
    }

    @Test("zones at the end: UTC, zone files, the local zone's abbreviations")
    func zones() throws {
        #expect(try CalendarSpec(parsing: "12:00 UTC", localZone: Self.berlin, zones: zoneRules).timeZoneName == "UTC")
        #expect(
            try CalendarSpec(parsing: "12:00 Asia/Tokyo", localZone: Self.berlin, zones: zoneRules).timeZoneName
                == "Asia/Tokyo"
        )
        // CET is the local standard time in Berlin, but a zone file of its own in New York.
        let inBerlin = try CalendarSpec(parsing: "12:00 CET", localZone: Self.berlin, zones: zoneRules)
        #expect(inBerlin.timeZoneName == nil)
        #expect(inBerlin.normalized == "*-*-* 12:00:00 CET")
        let inNewYork = try CalendarSpec(
            parsing: "12:00 CET",
            localZone: TimeZone(identifier: "America/New_York")!,
            zones: zoneRules
        )
        #expect(inNewYork.timeZoneName == "CET")
        // Zone names are case-sensitive file names.
        #expect(throws: CalendarSpecError.self) {
            try CalendarSpec(parsing: "12:00 europe/berlin", localZone: Self.berlin, zones: zoneRules)
        }
    }

    @Test("zone names are looked up in the zone database the spec is given, and evaluated with it")
    func zonesComeFromTheDatabaseGiven() throws {
        let directory = NSTemporaryDirectory() + "nudge-zoneinfo-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/Test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: directory + "/Test/Zone")
        let own = ZoneRulesStore(directory: directory)

        let spec = try CalendarSpec(parsing: "12:00 Test/Zone", localZone: Self.berlin, zones: own)
        #expect(spec.timeZoneName == "Test/Zone")
        // 12:00 in Tokyo (UTC+9, no DST) is 03:00 UTC: 19 hours after 2027-01-15 08:00 UTC.
        let next = spec.next(after: Date(timeIntervalSince1970: 1_800_000_000), in: Self.berlin)
        #expect(next == Date(timeIntervalSince1970: 1_800_000_000 + 19 * 3600))
        #expect(throws: CalendarSpecError.self) {
            try CalendarSpec(parsing: "12:00 Asia/Tokyo", localZone: Self.berlin, zones: own)
        }
        #expect(throws: CalendarSpecError.self) {
            try CalendarSpec(parsing: "12:00 Test/Zone", localZone: Self.berlin, zones: zoneRules)
        }
    }

    @Test("specs that mean the same are equal")
    func equality() throws {
        let daily = try CalendarSpec(parsing: "daily", localZone: Self.berlin, zones: zoneRules)
        let spelledOut = try CalendarSpec(parsing: "*-*-* 00:00:00", localZone: Self.berlin, zones: zoneRules)
        #expect(daily == spelledOut)
        #expect(daily.hashValue == spelledOut.hashValue)
        #expect(daily.expression == "daily")
    }

    private func capture(_ expression: String) -> CalendarSpecError? {
        do {
            _ = try CalendarSpec(parsing: expression, localZone: Self.berlin, zones: zoneRules)
            return nil
        } catch {
            return error
        }
    }
}
