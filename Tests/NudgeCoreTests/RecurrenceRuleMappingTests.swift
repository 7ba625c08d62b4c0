import Foundation
import NudgeRecurrence
import Testing

@testable import NudgeCalendar
@testable import NudgeCore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
private let berlin = TimeZone(identifier: "Europe/Berlin")!

@Suite struct RecurrenceRuleMappingTests {
    /// Each expression's RRULE, read back with its first occurrence as DTSTART, gives the same times again.
    @Test(arguments: [
        "Mon..Fri 09:30", "*-*-01,15 08:00", "*-02-29 12:00", "Sat,Sun 10:00,14:30", "*:0/20", "*-12-24 18:00:00 UTC",
        "Tue *-01..03-* 07:45", "*-*-* 00/6:00", "*-*-* 09:00 America/Chicago", "Mon 02:30 Europe/Berlin",
    ])
    func anExpressionsRRuleReadsBackAsTheSameExpression(_ text: String) throws {
        let spec = try CalendarSpec(parsing: text, localZone: berlin, zones: zones)
        let (rule, wallZone) = try #require(RecurrenceRuleMapping.recurrenceRule(for: spec))
        let zone: TimeZone
        switch wallZone {
        case .utc: zone = TimeZone(identifier: "UTC")!
        case .named(let name): zone = TimeZone(identifier: name)!
        case .floating: zone = berlin
        }
        let first = try #require(spec.next(after: t0, in: zone))
        let wall = LocalTime(timeZone: zone).wallClock(at: first).wall
        let (year, month, day) = LocalTime.civil(days: LocalTime.floorDiv(wall, 86_400))
        let seconds = wall - LocalTime.floorDiv(wall, 86_400) * 86_400
        let start = WallTime(
            year: year,
            month: month,
            day: day,
            hour: seconds / 3600,
            minute: seconds % 3600 / 60,
            second: seconds % 60
        )
        let back = try RecurrenceRuleMapping.expression(for: rule, start: start, zone: wallZone)
        // The same times, though maybe not the same text (`*:0/20` comes back as `*:00,20,40`): over DST changes too.
        let again = try CalendarSpec(parsing: back, localZone: berlin, zones: zones)
        var (a, b) = (t0, t0)
        for _ in 0..<300 {
            let (x, y) = (spec.next(after: a, in: berlin), again.next(after: b, in: berlin))
            #expect(x == y, "\(rule) → \(back)")
            guard let x, let y, x == y else { break }
            (a, b) = (x, y)
        }
    }

    @Test(arguments: ["*-*~01 12:00", "2027-*-* 09:00", "*-*-* 09:00 CEST", "*-*-* 09:00:00.5"])
    func anExpressionWithoutAnExactRRuleHasNone(_ text: String) throws {
        #expect(
            RecurrenceRuleMapping.recurrenceRule(for: try CalendarSpec(parsing: text, localZone: berlin, zones: zones))
                == nil
        )
    }

    @Test func anRRuleTakesWhatItLeavesOutFromDTStart() throws {
        let wednesday = WallTime(year: 2026, month: 11, day: 25, hour: 10, minute: 15, second: 0)
        func expression(_ rule: String, _ zone: RecurrenceRuleMapping.Zone = .floating) throws -> String {
            try RecurrenceRuleMapping.expression(for: rule, start: wednesday, zone: zone)
        }
        #expect(try expression("FREQ=WEEKLY") == "Wed *-*-* 10:15:00")
        #expect(try expression("FREQ=MONTHLY") == "*-*-25 10:15:00")
        #expect(try expression("FREQ=YEARLY", .utc) == "*-11-25 10:15:00 UTC")
        #expect(try expression("FREQ=DAILY;BYHOUR=8,20;BYMINUTE=0") == "*-*-* 08,20:00:00")
        #expect(try expression("FREQ=HOURLY;INTERVAL=1", .named("Asia/Tokyo")) == "*-*-* *:15:00 Asia/Tokyo")
        for (rule, reason) in [
            ("FREQ=DAILY;COUNT=3", "it ends (COUNT)"), ("FREQ=WEEKLY;INTERVAL=2", "every 2 periods"),
            ("FREQ=MONTHLY;BYDAY=1MO", "an ordinal"), ("FREQ=MONTHLY;BYMONTHDAY=-1", "not in 1…31"),
            ("FREQ=YEARLY;BYWEEKNO=20", "BYWEEKNO"), ("FREQ=SECONDLY", "FREQ=SECONDLY"),
        ] {
            let why = #expect(throws: RecurrenceRuleMapping.Unmapped.self, "\(rule) was mapped") {
                try RecurrenceRuleMapping.expression(for: rule, start: wednesday, zone: .floating)
            }
            #expect(why?.description.contains(reason) == true, "\(rule): \(String(describing: why))")
        }
    }
}
