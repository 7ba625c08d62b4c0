import Foundation
import NudgeCore
import PropertyBased
import Testing

/// Zones with the shapes of offset change people live with: none, whole hours, half an hour of DST (Lord Howe),
/// a 45-minute offset (Chatham), a southern-hemisphere summer, and a zone that moved across the date line (Apia).
private let zones = [
    "UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Kolkata",
    "America/Sao_Paulo", "Pacific/Apia", "Europe/London",
]

/// 1970-01-01 to 2400-01-01, in minutes.
private let instantMinutes = 0...(LocalTime.days(year: 2400, month: 1, day: 1) * 1440)
/// 2000-01-01 to 2100-01-01, in seconds: "now" decides whether the year is printed and what a date without one
/// means.
private let nowSeconds = secondsSinceEpoch(year: 2000)...secondsSinceEpoch(year: 2100)

private func secondsSinceEpoch(year: Int) -> Int { LocalTime.days(year: year, month: 1, day: 1) * 86_400 }

@Suite("Formatting instants for people")
struct LocalTimeFormatTests {
    /// Half the instants are within two hours of a change of offset, where the wall clock skips or repeats, so
    /// every run meets gaps and repeated hours, not only the ordinary minutes that make up almost all of time.
    @Test func everyInstantAsLsPrintsItReadsBackToItself() async throws {
        await propertyCheck(
            count: 4_000,
            input: Gen.int(in: instantMinutes),
            Gen.bool,
            Gen.int(in: -120...120),
            Gen.int(in: nowSeconds),
            Gen.int(in: 0...(zones.count - 1))
        ) { minutes, nearChange, shift, nowSecond, zoneIndex in
            let zone = TimeZone(identifier: zones[zoneIndex])!
            var instant = Date(timeIntervalSince1970: TimeInterval(minutes * 60))
            if nearChange, let change = zone.nextDaylightSavingTimeTransition(after: instant) {
                instant = change.addingTimeInterval(TimeInterval(shift * 60))
            }
            let now = Date(timeIntervalSince1970: TimeInterval(nowSecond))
            let printed = LocalTimeFormat(timeZone: zone, now: now).short(instant)
            let read = try? TimeInput(now: now, timeZone: zone).parse(printed)
            #expect(read == instant, "\(printed) in \(zones[zoneIndex]) at \(now)")
        }
    }

    @Test func aRepeatedHoursSecondOccurrenceCarriesItsOffset() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let format = LocalTimeFormat(timeZone: zone, now: try Date("2026-10-30T12:00:00Z", strategy: .iso8601))
        #expect(format.short(try Date("2026-11-01T05:30:00Z", strategy: .iso8601)) == "Sun 1 Nov 01:30")
        #expect(format.short(try Date("2026-11-01T06:30:00Z", strategy: .iso8601)) == "Sun 1 Nov 01:30 -05:00")
    }

    @Test func theYearShowsUnlessTheDayIsThisYearAndNotPast() throws {
        let format = LocalTimeFormat(timeZone: .gmt, now: try Date("2026-11-20T15:00:00Z", strategy: .iso8601))
        #expect(format.short(try Date("2026-11-20T09:00:00Z", strategy: .iso8601)) == "Fri 20 Nov 09:00")
        #expect(format.short(try Date("2026-12-31T23:59:00Z", strategy: .iso8601)) == "Thu 31 Dec 23:59")
        #expect(format.short(try Date("2026-11-19T09:00:00Z", strategy: .iso8601)) == "Thu 19 Nov 2026 09:00")
        #expect(format.short(try Date("2027-01-04T09:00:00Z", strategy: .iso8601)) == "Mon 4 Jan 2027 09:00")
    }

    @Test func relativeTimesCountWholeMinutesFromNow() throws {
        let now = try Date("2026-11-20T15:00:00Z", strategy: .iso8601)
        let format = LocalTimeFormat(timeZone: .gmt, now: now)
        #expect(format.relative(now.addingTimeInterval(2 * 3600 + 5 * 60 + 59)) == "in 2h 5m")
        #expect(format.relative(now.addingTimeInterval(40)) == "in 40s")
        #expect(format.relative(now.addingTimeInterval(0.4)) == "now")
        #expect(format.relative(now.addingTimeInterval(-(3 * 86_400 + 4 * 3600))) == "3d 4h ago")
        #expect(
            format.relativeAndShort(now.addingTimeInterval(18 * 3600)) == "in 18h · Sat 21 Nov 09:00"
        )
    }
}
