import Foundation
import Testing

@testable import NudgeCalendar

/// The machine's zone database, for repeat rules.
private let zoneRules = ZoneRulesStore()

/// The report layout and the "From now" wording, against texts from `systemd-analyze calendar` (systemd 252.39).
@Suite("CalendarReport")
struct CalendarReportTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    @Test("the report is laid out as systemd-analyze prints it")
    func layout() throws {
        let report = try CalendarReport.render(
            expression: "Mon..Fri 9..17/2:00",
            localZone: Self.berlin,
            zones: zoneRules,
            baseTime: Date(timeIntervalSince1970: 1_774_746_000),
            iterations: 2,
            now: Date(timeIntervalSince1970: 1_774_746_000)
        )
        #expect(
            report == """
                  Original form: Mon..Fri 9..17/2:00
                Normalized form: Mon..Fri *-*-* 09..17/2:00:00
                    Next elapse: Mon 2026-03-30 09:00:00 CEST
                       (in UTC): Mon 2026-03-30 07:00:00 UTC
                       From now: 1 day 6h left
                       Iter. #2: Mon 2026-03-30 11:00:00 CEST
                       (in UTC): Mon 2026-03-30 09:00:00 UTC
                       From now: 1 day 8h left
                """
        )
    }

    @Test("no Original form when the expression is already normalized; no (in UTC) when local is UTC")
    func utcAndNormalized() throws {
        let report = try CalendarReport.render(
            expression: "*-*-* 12:00:00",
            localZone: TimeZone(identifier: "UTC")!,
            zones: zoneRules,
            baseTime: Date(timeIntervalSince1970: 1_767_225_600),
            iterations: 1,
            now: Date(timeIntervalSince1970: 1_767_225_600)
        )
        #expect(
            report == """
                Normalized form: *-*-* 12:00:00
                    Next elapse: Thu 2026-01-01 12:00:00 UTC
                       From now: 12h left
                """
        )
    }

    @Test("an expression that never elapses says so once")
    func never() throws {
        let report = try CalendarReport.render(
            expression: "2025-01-01",
            localZone: Self.berlin,
            zones: zoneRules,
            baseTime: Date(timeIntervalSince1970: 1_767_225_600),
            iterations: 3,
            now: Date()
        )
        #expect(
            report == """
                  Original form: 2025-01-01
                Normalized form: 2025-01-01 00:00:00
                    Next elapse: never
                """
        )
    }

    @Test("tzdata abbreviations, not Foundation's GMT+x")
    func abbreviations() throws {
        func firstLine(_ zone: String, _ expression: String) throws -> String {
            let report = try CalendarReport.render(
                expression: expression,
                localZone: TimeZone(identifier: zone)!,
                zones: zoneRules,
                baseTime: Date(timeIntervalSince1970: 1_767_225_600),
                iterations: 1,
                now: Date()
            )
            return report.components(separatedBy: "\n").first { $0.contains("Next elapse") } ?? ""
        }
        #expect(
            try firstLine("Australia/Sydney", "12:00") == "    Next elapse: Thu 2026-01-01 12:00:00 AEDT"
        )
        #expect(
            try firstLine("Australia/Lord_Howe", "12:00")
                == "    Next elapse: Thu 2026-01-01 12:00:00 +11"
        )
        #expect(
            try firstLine("Asia/Kolkata", "12:00") == "    Next elapse: Thu 2026-01-01 12:00:00 IST"
        )
    }

    @Test(
        "From now wording (systemd's format_timestamp_relative)",
        arguments: [
            // (seconds from now to the instant, text)
            // 7 months of 30.44 days, 25 days and an hour.
            (-20_572_200.0, "7 months 25 days ago"),
            (2_073_600, "3 weeks 3 days left"),
            (93_600, "1 day 2h left"),
            (172_800, "2 days left"),
            (21_600, "6h left"),
            (5_400, "1h 30min left"),
            (-303, "5min ago"),
            (-63, "1min 3s ago"),
            (59.5, "59s left"),
            (0.25, "250ms left"),
            (0.000_5, "500us left"),
            (0, "now"),
            (-31_557_600 * 2 - 2_629_800, "2 years 1 month ago"),
            (31_557_600, "1 year 0 months left"),
            (2_629_800, "1 month 0 days left"),
        ] as [(Double, String)]
    )
    func relative(offset: Double, text: String) {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(CalendarReport.relativeText(now.addingTimeInterval(offset), now: now) == text)
    }
}
