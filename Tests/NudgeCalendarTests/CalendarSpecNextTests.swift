import Foundation
import Testing

@testable import NudgeCalendar

/// The machine's zone database, for repeat rules.
private let zoneRules = ZoneRulesStore()

/// The tricky elapse rules, with expected instants taken from `systemd-analyze calendar` (systemd 252.39,
/// tzdata 2025b) on the reference machine.
@Suite("CalendarSpec.next(after:in:)")
struct CalendarSpecNextTests {
    /// The first `count` elapses after `base` (seconds since the epoch), as UTC ISO 8601 texts.
    func elapses(_ expression: String, in zoneName: String, after base: Double, count: Int) throws
        -> [String]
    {
        let zone = try #require(TimeZone(identifier: zoneName))
        let spec = try CalendarSpec(parsing: expression, localZone: zone, zones: zoneRules)
        var instant = Date(timeIntervalSince1970: base)
        var texts: [String] = []
        for _ in 0..<count {
            guard let next = spec.next(after: instant, in: zone) else { break }
            texts.append(Self.iso(next))
            instant = next
        }
        return texts
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let whole = date.timeIntervalSince1970.rounded(.down)
        let micro = Int(((date.timeIntervalSince1970 - whole) * 1_000_000).rounded())
        let text = formatter.string(from: Date(timeIntervalSince1970: whole))
        guard micro > 0 else { return text }
        return String(text.dropLast()) + String(format: ".%06dZ", micro)
    }

    // MARK: New York

    @Test("New York spring-forward: 02:30 does not exist on 2026-03-08, so that day is skipped")
    func newYorkGapSkipsDay() throws {
        // Base: Sat 2026-03-07 12:00 EST.
        #expect(
            try elapses("*-*-* 02:30", in: "America/New_York", after: 1_772_902_800, count: 2) == [
                "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z",
            ]
        )
    }

    @Test("New York spring-forward: *:30 jumps from 01:30 EST to 03:30 EDT")
    func newYorkGapHalfHours() throws {
        // Base: Sun 2026-03-08 01:00 EST.
        #expect(
            try elapses("*:30", in: "America/New_York", after: 1_772_949_600, count: 3) == [
                "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", "2026-03-08T08:30:00Z",
            ]
        )
        #expect(
            try elapses("hourly", in: "America/New_York", after: 1_772_949_600, count: 2) == [
                "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z",
            ]
        )
    }

    @Test("New York fall-back: the repeated hour fires once, in EDT")
    func newYorkOverlap() throws {
        // Base: Sun 2026-11-01 00:00 EDT. 01:30 EDT (05:30Z) fires, 01:30 EST (06:30Z) does not.
        #expect(
            try elapses("*-*-* 01:30", in: "America/New_York", after: 1_793_505_600, count: 2) == [
                "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z",
            ]
        )
        // hourly: 01:00 EDT, then 02:00 EST; 01:00 EST (06:00Z) is skipped.
        #expect(
            try elapses("hourly", in: "America/New_York", after: 1_793_505_600, count: 3) == [
                "2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z", "2026-11-01T08:00:00Z",
            ]
        )
    }

    @Test("A match before the start in an overlap moves on (systemd 252.39 behaviour)")
    func overlapWithForcedDaylightTime() throws {
        // "01:30 EDT" from 01:30:00 EDT on 2027-11-07: the next is 01:30 the following day (in EST).
        #expect(
            try elapses("*-*-* 01:30 EDT", in: "America/New_York", after: 1_825_565_400, count: 1) == [
                "2027-11-08T06:30:00Z"
            ]
        )
    }

    // MARK: Lord Howe (half-hour DST)

    @Test("Lord Howe spring-forward: 02:00–02:30 is missing on 2026-10-04")
    func lordHoweGap() throws {
        // Base: Sat 2026-10-03 14:00Z = Sun 00:30 +1030.
        #expect(
            try elapses("*-*-* 02:15", in: "Australia/Lord_Howe", after: 1_791_036_000, count: 1) == [
                "2026-10-04T15:15:00Z"
            ]
        )
        #expect(
            try elapses("*-*-* 02:45", in: "Australia/Lord_Howe", after: 1_791_036_000, count: 1) == [
                "2026-10-03T15:45:00Z"
            ]
        )
        // *:0/15 runs 01:45 +1030 (15:15Z), then 02:30 +11 (15:30Z).
        let quarterHours = try elapses(
            "*:0/15",
            in: "Australia/Lord_Howe",
            after: 1_791_036_000,
            count: 7
        )
        #expect(
            quarterHours.suffix(3) == [
                "2026-10-03T15:15:00Z", "2026-10-03T15:30:00Z", "2026-10-03T15:45:00Z",
            ]
        )
    }

    @Test("Lord Howe fall-back: 01:30–02:00 repeats on 2026-04-05 and fires once")
    func lordHoweOverlap() throws {
        // Base: Sat 2026-04-04 14:00Z = Sun 01:00 +11.
        #expect(
            try elapses("*-*-* 01:45", in: "Australia/Lord_Howe", after: 1_775_311_200, count: 2) == [
                "2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z",
            ]
        )
        #expect(
            try elapses("*:0/15", in: "Australia/Lord_Howe", after: 1_775_311_200, count: 5) == [
                "2026-04-04T14:15:00Z", "2026-04-04T14:30:00Z", "2026-04-04T14:45:00Z",
                "2026-04-04T15:30:00Z",
                "2026-04-04T15:45:00Z",
            ]
        )
    }

    // MARK: Month ends, leap days, years

    @Test("~ counts back from the month's end; a step then counts forward again")
    func lastDays() throws {
        let newYear2026 = 1_767_225_600.0
        #expect(
            try elapses("*-*~1", in: "UTC", after: newYear2026, count: 3) == [
                "2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z",
            ]
        )
        // ~07 is the 25th in January; /2 adds 2 days at a time: 25, 27, 29, 31.
        #expect(
            try elapses("*-*~7/2", in: "UTC", after: newYear2026, count: 4) == [
                "2026-01-25T00:00:00Z", "2026-01-27T00:00:00Z", "2026-01-29T00:00:00Z",
                "2026-01-31T00:00:00Z",
            ]
        )
        #expect(
            try elapses("*-02~1..3", in: "UTC", after: newYear2026, count: 3) == [
                "2026-02-26T00:00:00Z", "2026-02-27T00:00:00Z", "2026-02-28T00:00:00Z",
            ]
        )
    }

    @Test("Feb 29 fires only in leap years")
    func leapDay() throws {
        #expect(
            try elapses("*-02-29 00:00", in: "UTC", after: 1_767_225_600, count: 3) == [
                "2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z",
            ]
        )
    }

    @Test("No elapse: a past year, a day that never exists, 1970")
    func never() throws {
        let spec = { (text: String) in
            try CalendarSpec(parsing: text, localZone: TimeZone(identifier: "UTC")!, zones: zoneRules)
        }
        let base = Date(timeIntervalSince1970: 1_767_225_600)
        let utc = TimeZone(identifier: "UTC")!
        #expect(try spec("2025-01-01").next(after: base, in: utc) == nil)
        #expect(try spec("*-02-30").next(after: base, in: utc) == nil)
        #expect(try spec("*-04-31").next(after: base, in: utc) == nil)
        #expect(try spec("70-1-1").next(after: base, in: utc) == nil)
        #expect(
            try spec("2199-12-31 23:59:59").next(after: base, in: utc).map(Self.iso)
                == "2199-12-31T23:59:59Z"
        )
    }

    // MARK: Zones and seconds

    @Test("A zone at the end wins over the caller's zone")
    func zoneAtTheEnd() throws {
        // Base 2026-07-01 10:00Z; local zone Berlin.
        #expect(
            try elapses("*-*-* 09:00 Asia/Tokyo", in: "Europe/Berlin", after: 1_782_900_000, count: 2)
                == [
                    "2026-07-02T00:00:00Z", "2026-07-03T00:00:00Z",
                ]
        )
        #expect(
            try elapses("annually utc", in: "Europe/Berlin", after: 1_782_900_000, count: 1) == [
                "2027-01-01T00:00:00Z"
            ]
        )
        let spec = try CalendarSpec(
            parsing: "Mon 12:00 Asia/Kolkata",
            localZone: TimeZone(identifier: "UTC")!,
            zones: zoneRules
        )
        #expect(spec.timeZone?.identifier == "Asia/Kolkata")
        #expect(spec.timeZoneName == "Asia/Kolkata")
    }

    @Test("The local zone's abbreviation forces standard or daylight time")
    func localAbbreviation() throws {
        // In Berlin summer, "12:00 CET" never fires (systemd gives up), "12:00 CEST" fires at 12:00 CEST.
        #expect(try elapses("12:00 CET", in: "Europe/Berlin", after: 1_782_900_000, count: 1) == [])
        #expect(
            try elapses("12:00 cest", in: "Europe/Berlin", after: 1_782_900_000, count: 1) == [
                "2026-07-02T10:00:00Z"
            ]
        )
    }

    @Test("Fractional seconds are matched to the microsecond")
    func fractionalSeconds() throws {
        #expect(
            try elapses("*:*:10..11/0.25", in: "UTC", after: 1_767_225_600, count: 6) == [
                "2026-01-01T00:00:10Z", "2026-01-01T00:00:10.250000Z", "2026-01-01T00:00:10.500000Z",
                "2026-01-01T00:00:10.750000Z", "2026-01-01T00:00:11Z", "2026-01-01T00:01:10Z",
            ]
        )
        // "*" in the seconds matches whole seconds only.
        #expect(
            try elapses("*:*:*", in: "UTC", after: 1_767_225_600.5, count: 1) == ["2026-01-01T00:00:01Z"]
        )
    }

    @Test("concurrent use gives the same answers as sequential use")
    func concurrentUse() throws {
        let zone = try #require(TimeZone(identifier: "Australia/Lord_Howe"))
        let spec = try CalendarSpec(parsing: "Mon..Fri *:0/15", localZone: zone, zones: zoneRules)
        let bases = (0..<400).map { Date(timeIntervalSince1970: 1_775_000_000 + Double($0) * 7_919) }
        let expected = bases.map { spec.next(after: $0, in: zone) }
        let results = ConcurrentResults(count: bases.count)
        DispatchQueue.concurrentPerform(iterations: bases.count) { index in
            results.set(index, spec.next(after: bases[index], in: zone))
        }
        #expect(results.values == expected)
    }
}

/// Collects results written from several threads.
private final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Date?]

    init(count: Int) { storage = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Date?) {
        lock.lock()
        storage[index] = value
        lock.unlock()
    }

    var values: [Date?] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
