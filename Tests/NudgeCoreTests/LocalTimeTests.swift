import Foundation
import NudgeCore
import Testing

/// Wall-clock arithmetic on its own, in zones with DST: the gap, the overlap, calendar days across both, and the
/// civil-date helpers at their edges.
@Suite struct LocalTimeTests {
    let newYork = LocalTime(timeZone: TimeZone(identifier: "America/New_York")!)
    let lordHowe = LocalTime(timeZone: TimeZone(identifier: "Australia/Lord_Howe")!)

    private func wall(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Int {
        LocalTime.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
    }

    private func utc(_ text: String) throws -> Int {
        Int(try Date.ISO8601FormatStyle().parse(text).timeIntervalSince1970)
    }

    @Test func aTimeInTheSpringGapIsTheFirstInstantAfterIt() throws {
        let resolved = newYork.instant(forWall: wall(2026, 3, 8, 2, 30))
        #expect(resolved.seconds == (try utc("2026-03-08T07:00:00Z")))  // 03:00 EDT
        #expect(resolved.existed == false)
        // Lord Howe springs forward by half an hour: 02:15 does not exist, 02:30 is the first that does.
        let half = lordHowe.instant(forWall: wall(2026, 10, 4, 2, 15))
        #expect(half.seconds == (try utc("2026-10-03T15:30:00Z")))
        #expect(half.existed == false)
    }

    @Test func aTimeInTheFallOverlapIsItsFirstOccurrence() throws {
        let resolved = newYork.instant(forWall: wall(2026, 11, 1, 1, 30))
        #expect(resolved.seconds == (try utc("2026-11-01T05:30:00Z")))  // 01:30 EDT, not EST
        #expect(resolved.existed)
    }

    @Test func addingDaysKeepsTheWallTimeAcrossBothTransitions() throws {
        let beforeSpring = try Date.ISO8601FormatStyle().parse("2026-03-07T14:00:00Z")  // 09:00 EST
        let afterSpring = try #require(newYork.adding(days: 1, to: beforeSpring))
        #expect(afterSpring == (try Date.ISO8601FormatStyle().parse("2026-03-08T13:00:00Z")))  // 09:00 EDT
        let backAgain = try #require(newYork.adding(days: -1, to: afterSpring))
        #expect(backAgain == beforeSpring)
        // A day later than 02:30 on the day before the gap lands in the gap: the first instant after it, no fraction.
        let beforeGap = try Date.ISO8601FormatStyle().parse("2026-03-07T07:30:00Z") + 0.25  // 02:30:00.25 EST
        #expect(newYork.adding(days: 1, to: beforeGap) == (try Date.ISO8601FormatStyle().parse("2026-03-08T07:00:00Z")))
        #expect(newYork.adding(days: 3_000_000, to: beforeSpring) == nil, "past year 9999")
    }

    @Test func civilDatesRoundTripAndKnowTheirMonthsAndWeekdays() {
        for days in stride(from: -800_000, through: 2_900_000, by: 997) {
            let date = LocalTime.civil(days: days)
            #expect(LocalTime.days(year: date.year, month: date.month, day: date.day) == days)
        }
        #expect(LocalTime.civil(days: 0) == (1970, 1, 1))
        #expect(LocalTime.daysInMonth(year: 2024, month: 2) == 29)
        #expect(LocalTime.daysInMonth(year: 2100, month: 2) == 28)
        #expect(LocalTime.daysInMonth(year: 2000, month: 2) == 29)
        #expect(LocalTime.weekday(ofDays: 0) == 4)  // Thursday
        #expect(LocalTime.weekday(ofDays: LocalTime.days(year: 2026, month: 11, day: 23)) == 1)  // a Monday
        #expect(LocalTime.floorDiv(-1, 86_400) == -1)
    }
}
