import Foundation
import NudgeCore
import Testing

// Expected instants are worked out by hand from the zone rules (zdump -v for 2026):
//   America/New_York  EST -05:00, EDT -04:00; 2026-03-08 02:00 EST -> 03:00 EDT at 07:00Z;
//                     2026-11-01 02:00 EDT -> 01:00 EST at 06:00Z.
//   Europe/Berlin     CET +01:00, CEST +02:00; 2026-03-29 02:00 CET -> 03:00 CEST at 01:00Z;
//                     2026-10-25 03:00 CEST -> 02:00 CET at 01:00Z.
// Unless a case says otherwise, now is 2026-11-20T15:00:00Z, a Friday: 10:00 EST in New York, 16:00 CET in Berlin.

private let friday = "2026-11-20T15:00:00Z"

/// One input, the clock and zone it is read against, and the UTC instant it must name.
struct TimeInputCase: Sendable, CustomTestStringConvertible {
    let input: String
    let now: String
    let zone: String
    let expected: String

    init(_ input: String, now: String = friday, in zone: String = "UTC", is expected: String) {
        self.input = input
        self.now = now
        self.zone = zone
        self.expected = expected
    }

    var testDescription: String { "\"\(input)\" at \(now) in \(zone) is \(expected)" }
}

/// A bad input, the part of it the error must name, and what it must say about that part (at least that it is wrong).
struct BadTimeInputCase: Sendable, CustomTestStringConvertible {
    let input: String
    let unrecognized: String
    let reason: String

    init(_ input: String, names unrecognized: String, saying reason: String = "is ") {
        self.input = input
        self.unrecognized = unrecognized
        self.reason = reason
    }

    var testDescription: String { "\"\(input)\" names \"\(unrecognized)\"" }
}

private func instant(_ iso: String) throws -> Date {
    try Date(iso, strategy: .iso8601)
}

private func utc(_ date: Date) -> String {
    date.formatted(.iso8601)
}

private func parse(_ input: String, now: String = friday, in zone: String = "UTC") throws -> Date {
    let timeZone = try #require(TimeZone(identifier: zone))
    return try TimeInput(now: try instant(now), timeZone: timeZone).parse(input)
}

private func check(_ item: TimeInputCase) throws {
    #expect(utc(try parse(item.input, now: item.now, in: item.zone)) == item.expected)
}

// MARK: - Tables

private let nowAndISO: [TimeInputCase] = [
    TimeInputCase("now", is: "2026-11-20T15:00:00Z"),
    TimeInputCase("  NOW \n", in: "America/New_York", is: "2026-11-20T15:00:00Z"),
    TimeInputCase("2026-12-01T09:00", is: "2026-12-01T09:00:00Z"),
    TimeInputCase("2026-12-01T09:00", in: "America/New_York", is: "2026-12-01T14:00:00Z"),
    TimeInputCase("2026-12-01T09:00", in: "Europe/Berlin", is: "2026-12-01T08:00:00Z"),
    TimeInputCase("2026-12-01T09:00:30", in: "America/New_York", is: "2026-12-01T14:00:30Z"),
    TimeInputCase("2026-12-01 09:00", in: "Europe/Berlin", is: "2026-12-01T08:00:00Z"),
    TimeInputCase("2026-12-01 09:00:30", in: "Europe/Berlin", is: "2026-12-01T08:00:30Z"),
    TimeInputCase("2026-07-01T09:00", in: "America/New_York", is: "2026-07-01T13:00:00Z"),
    TimeInputCase("2026-07-01T09:00", in: "Europe/Berlin", is: "2026-07-01T07:00:00Z"),
    TimeInputCase("2026-12-01T09:00+01:00", in: "America/New_York", is: "2026-12-01T08:00:00Z"),
    TimeInputCase("2026-12-01T09:00Z", in: "America/New_York", is: "2026-12-01T09:00:00Z"),
    TimeInputCase("2026-12-01t09:00z", in: "Europe/Berlin", is: "2026-12-01T09:00:00Z"),
    TimeInputCase("2026-12-01T09:00-0500", in: "Europe/Berlin", is: "2026-12-01T14:00:00Z"),
    TimeInputCase("2026-12-01T09:00:30+05:30", is: "2026-12-01T03:30:30Z"),
    TimeInputCase("2026-12-01 09:00-05:00", in: "Europe/Berlin", is: "2026-12-01T14:00:00Z"),
    TimeInputCase("2026-12-01T09:00+01", is: "2026-12-01T08:00:00Z"),
    TimeInputCase("2026-12-01", in: "America/New_York", is: "2026-12-01T14:00:00Z"),
    TimeInputCase("2026-12-01", in: "Europe/Berlin", is: "2026-12-01T08:00:00Z"),
    TimeInputCase("2028-02-29", is: "2028-02-29T09:00:00Z"),
    TimeInputCase("2026-12-01 5pm", in: "America/New_York", is: "2026-12-01T22:00:00Z"),
    TimeInputCase("2025-01-01T00:00", is: "2025-01-01T00:00:00Z"),
]

private let daysAndTimes: [TimeInputCase] = [
    TimeInputCase("today 17:00", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("today 17:00", in: "America/New_York", is: "2026-11-20T22:00:00Z"),
    TimeInputCase("today 17:00", in: "Europe/Berlin", is: "2026-11-20T16:00:00Z"),
    TimeInputCase("Today 5 PM", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("today 9am", is: "2026-11-20T09:00:00Z"),
    TimeInputCase("today", is: "2026-11-20T09:00:00Z"),
    TimeInputCase("tomorrow 9am", in: "America/New_York", is: "2026-11-21T14:00:00Z"),
    TimeInputCase("tomorrow 9 am", in: "Europe/Berlin", is: "2026-11-21T08:00:00Z"),
    TimeInputCase("tomorrow 9:30pm", in: "America/New_York", is: "2026-11-22T02:30:00Z"),
    TimeInputCase("tomorrow 9:30 pm", is: "2026-11-21T21:30:00Z"),
    TimeInputCase("tomorrow 7:05", is: "2026-11-21T07:05:00Z"),
    TimeInputCase("tomorrow 07:05:09", is: "2026-11-21T07:05:09Z"),
    TimeInputCase("Tomorrow", in: "America/New_York", is: "2026-11-21T14:00:00Z"),
    TimeInputCase("tomorrow at 6pm", is: "2026-11-21T18:00:00Z"),
    TimeInputCase("6pm tomorrow", is: "2026-11-21T18:00:00Z"),
    TimeInputCase("tomorrow 12am", is: "2026-11-21T00:00:00Z"),
    TimeInputCase("tomorrow 12pm", is: "2026-11-21T12:00:00Z"),
    TimeInputCase("tomorrow 12:30am", is: "2026-11-21T00:30:00Z"),
    TimeInputCase("tomorrow 12:30pm", is: "2026-11-21T12:30:00Z"),
    TimeInputCase("tomorrow 11pm", is: "2026-11-21T23:00:00Z"),
    TimeInputCase("tomorrow noon", is: "2026-11-21T12:00:00Z"),
    TimeInputCase("tomorrow midnight", is: "2026-11-21T00:00:00Z"),
    TimeInputCase("today midnight", is: "2026-11-20T00:00:00Z"),
    TimeInputCase("tomorrow 0:00", is: "2026-11-21T00:00:00Z"),
    TimeInputCase("tomorrow 23:59", is: "2026-11-21T23:59:00Z"),
    // A bare hour after a day is on the 24-hour clock.
    TimeInputCase("tomorrow 9", is: "2026-11-21T09:00:00Z"),
    TimeInputCase("today 17", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("fri 17", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("tomorrow at 0", is: "2026-11-21T00:00:00Z"),
    // Tonight, end of day.
    TimeInputCase("tonight", is: "2026-11-20T20:00:00Z"),
    TimeInputCase("tonight", in: "Europe/Berlin", is: "2026-11-20T19:00:00Z"),
    TimeInputCase("tonight 10pm", is: "2026-11-20T22:00:00Z"),
    TimeInputCase("eod", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("eod", now: "2026-11-20T18:00:00Z", is: "2026-11-21T17:00:00Z"),
    TimeInputCase("tomorrow eod", is: "2026-11-21T17:00:00Z"),
    // Days of a month: this year's unless already before today, then next year's.
    TimeInputCase("dec 1", is: "2026-12-01T09:00:00Z"),
    TimeInputCase("Dec 1", in: "America/New_York", is: "2026-12-01T14:00:00Z"),
    TimeInputCase("1 dec 9:30", is: "2026-12-01T09:30:00Z"),
    TimeInputCase("december 1st at 5pm", is: "2026-12-01T17:00:00Z"),
    TimeInputCase("dec 1 9", is: "2026-12-01T09:00:00Z"),
    TimeInputCase("dec 1 2030", is: "2030-12-01T09:00:00Z"),
    TimeInputCase("1 jan 2027 8am", is: "2027-01-01T08:00:00Z"),
    TimeInputCase("nov 20", is: "2026-11-20T09:00:00Z"),
    TimeInputCase("nov 19", is: "2027-11-19T09:00:00Z"),
    TimeInputCase("sept 3rd", is: "2027-09-03T09:00:00Z"),
    TimeInputCase("feb 29", is: "2028-02-29T09:00:00Z"),
    TimeInputCase("22nd nov noon", is: "2026-11-22T12:00:00Z"),
    // As `nudge ls` prints an instant: a weekday checking the date, the year when not this one, an offset for a
    // repeated hour's second occurrence.
    TimeInputCase("Sat 21 Nov 17:00", is: "2026-11-21T17:00:00Z"),
    TimeInputCase("Mon 4 Jan 2027 09:00", is: "2027-01-04T09:00:00Z"),
    TimeInputCase("fri 17:00 +01:00", is: "2026-11-20T16:00:00Z"),
    TimeInputCase("tomorrow 9:00 Z", in: "Europe/Berlin", is: "2026-11-21T09:00:00Z"),
    TimeInputCase("dec 1 9:00 -0500", is: "2026-12-01T14:00:00Z"),
    TimeInputCase(
        "Sun 1 Nov 01:30 -05:00",
        now: "2026-10-30T12:00:00Z",
        in: "America/New_York",
        is: "2026-11-01T06:30:00Z"
    ),
    TimeInputCase("Sun 1 Nov 01:30", now: "2026-10-30T12:00:00Z", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    // Next: a weekday, never today.
    TimeInputCase("next monday 10:00", is: "2026-11-23T10:00:00Z"),
    TimeInputCase("next fri 17:00", is: "2026-11-27T17:00:00Z"),
    TimeInputCase("next sat", is: "2026-11-21T09:00:00Z"),
    // Bare times: the next occurrence, today while still ahead of now, else tomorrow.
    TimeInputCase("17:00", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("5pm", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("14:00", is: "2026-11-21T14:00:00Z"),
    TimeInputCase("15:00", is: "2026-11-21T15:00:00Z"),
    TimeInputCase("15:00:01", is: "2026-11-20T15:00:01Z"),
    TimeInputCase("5pm", in: "America/New_York", is: "2026-11-20T22:00:00Z"),
    TimeInputCase("9am", in: "America/New_York", is: "2026-11-21T14:00:00Z"),
    TimeInputCase("at 11am", in: "America/New_York", is: "2026-11-20T16:00:00Z"),
    TimeInputCase("12am", is: "2026-11-21T00:00:00Z"),
    TimeInputCase("12pm", is: "2026-11-21T12:00:00Z"),
    TimeInputCase("12pm", in: "America/New_York", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("noon", is: "2026-11-21T12:00:00Z"),
    TimeInputCase("midnight", is: "2026-11-21T00:00:00Z"),
    TimeInputCase("midnight", in: "America/New_York", is: "2026-11-21T05:00:00Z"),
    // Weekdays: the next one; today only while the time is still ahead, else a week later.
    TimeInputCase("fri 17:00", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("fri 14:00", is: "2026-11-27T14:00:00Z"),
    TimeInputCase("friday", is: "2026-11-27T09:00:00Z"),
    TimeInputCase("fri 17:00", in: "America/New_York", is: "2026-11-20T22:00:00Z"),
    TimeInputCase("fri 9am", in: "America/New_York", is: "2026-11-27T14:00:00Z"),
    TimeInputCase("fri", in: "America/New_York", is: "2026-11-27T14:00:00Z"),
    TimeInputCase("Fri 17:00", in: "Europe/Berlin", is: "2026-11-20T16:00:00Z"),
    TimeInputCase("fri 15:00", in: "Europe/Berlin", is: "2026-11-27T14:00:00Z"),
    TimeInputCase("sat", is: "2026-11-21T09:00:00Z"),
    TimeInputCase("saturday 8pm", is: "2026-11-21T20:00:00Z"),
    TimeInputCase("sun 18:00", is: "2026-11-22T18:00:00Z"),
    TimeInputCase("Sunday", is: "2026-11-22T09:00:00Z"),
    TimeInputCase("mon 8:15", is: "2026-11-23T08:15:00Z"),
    TimeInputCase("monday", in: "America/New_York", is: "2026-11-23T14:00:00Z"),
    TimeInputCase("tue", is: "2026-11-24T09:00:00Z"),
    TimeInputCase("tues 10am", is: "2026-11-24T10:00:00Z"),
    TimeInputCase("tuesday", is: "2026-11-24T09:00:00Z"),
    TimeInputCase("wed noon", is: "2026-11-25T12:00:00Z"),
    TimeInputCase("wednesday", is: "2026-11-25T09:00:00Z"),
    TimeInputCase("thu", is: "2026-11-26T09:00:00Z"),
    TimeInputCase("thurs 6pm", is: "2026-11-26T18:00:00Z"),
    TimeInputCase("thursday at 6 pm", is: "2026-11-26T18:00:00Z"),
    TimeInputCase("9am sat", is: "2026-11-21T09:00:00Z"),
    // The weekday is the local one: 03:00Z Saturday is still Friday 22:00 in New York.
    TimeInputCase("sat 9am", now: "2026-11-21T03:00:00Z", in: "America/New_York", is: "2026-11-21T14:00:00Z"),
    TimeInputCase("fri 23:00", now: "2026-11-21T03:00:00Z", in: "America/New_York", is: "2026-11-21T04:00:00Z"),
    TimeInputCase("fri 21:00", now: "2026-11-21T03:00:00Z", in: "America/New_York", is: "2026-11-28T02:00:00Z"),
]

private let relatives: [TimeInputCase] = [
    TimeInputCase("1h", is: "2026-11-20T16:00:00Z"),
    TimeInputCase("90m", is: "2026-11-20T16:30:00Z"),
    TimeInputCase("1h30m", is: "2026-11-20T16:30:00Z"),
    TimeInputCase("2 days", is: "2026-11-22T15:00:00Z"),
    TimeInputCase("10 min", is: "2026-11-20T15:10:00Z"),
    TimeInputCase("in 10m", is: "2026-11-20T15:10:00Z"),
    TimeInputCase("in 10 min", is: "2026-11-20T15:10:00Z"),
    TimeInputCase("in 10 mins", is: "2026-11-20T15:10:00Z"),
    TimeInputCase("in 1 minute", is: "2026-11-20T15:01:00Z"),
    TimeInputCase("in 2 hours", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("IN 2 HRS", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("in 1 hr", is: "2026-11-20T16:00:00Z"),
    TimeInputCase("in 3 days", is: "2026-11-23T15:00:00Z"),
    TimeInputCase("in 1 day", in: "America/New_York", is: "2026-11-21T15:00:00Z"),
    TimeInputCase("in 1 week", is: "2026-11-27T15:00:00Z"),
    TimeInputCase("in 2 weeks", is: "2026-12-04T15:00:00Z"),
    TimeInputCase("in 90s", is: "2026-11-20T15:01:30Z"),
    TimeInputCase("in 45 sec", is: "2026-11-20T15:00:45Z"),
    TimeInputCase("in 1 second", is: "2026-11-20T15:00:01Z"),
    TimeInputCase("in 0m", is: "2026-11-20T15:00:00Z"),
    TimeInputCase("+2h", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("+10m", is: "2026-11-20T15:10:00Z"),
    TimeInputCase("+1d", is: "2026-11-21T15:00:00Z"),
    TimeInputCase("+30s", is: "2026-11-20T15:00:30Z"),
    TimeInputCase("+1w", is: "2026-11-27T15:00:00Z"),
    TimeInputCase("+ 2h", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("+2 hours", is: "2026-11-20T17:00:00Z"),
    TimeInputCase("in 1h30m", is: "2026-11-20T16:30:00Z"),
    TimeInputCase("+1h30m", is: "2026-11-20T16:30:00Z"),
    TimeInputCase("in 1h 30m", is: "2026-11-20T16:30:00Z"),
    TimeInputCase("in 1 hour and 30 minutes", is: "2026-11-20T16:30:00Z"),
    TimeInputCase("in 1d2h", is: "2026-11-21T17:00:00Z"),
    TimeInputCase("+1w1d1h1m1s", is: "2026-11-28T16:01:01Z"),
    TimeInputCase("in 100 days", is: "2027-02-28T15:00:00Z"),
    // Month ends and leap days come from plain day counting.
    TimeInputCase("in 1 day", now: "2028-02-28T12:00:00Z", is: "2028-02-29T12:00:00Z"),
    TimeInputCase("in 1 day", now: "2026-12-31T23:30:00Z", is: "2027-01-01T23:30:00Z"),
]

/// Today, tomorrow, ISO and `in 1 day` onto the missing hour all land on the instant the gap ends.
private let springForward: [TimeInputCase] = [
    TimeInputCase("2026-03-08T02:30", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("2026-03-08T02:00", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("2026-03-08T02:59:59", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("2026-03-08 02:30", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("2026-03-08T01:59:59", in: "America/New_York", is: "2026-03-08T06:59:59Z"),
    TimeInputCase("2026-03-08T03:00", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("2026-03-08T03:30", in: "America/New_York", is: "2026-03-08T07:30:00Z"),
    TimeInputCase("2026-03-08T02:30-05:00", in: "America/New_York", is: "2026-03-08T07:30:00Z"),
    TimeInputCase("today 2:30am", now: "2026-03-08T06:00:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("today 02:30", now: "2026-03-08T06:00:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("2:30am", now: "2026-03-08T06:00:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("today 12pm", now: "2026-03-08T06:00:00Z", in: "America/New_York", is: "2026-03-08T16:00:00Z"),
    TimeInputCase("tomorrow 2:30am", now: "2026-03-07T17:00:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("tomorrow 02:30", now: "2026-03-07T17:00:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("sun 2:30am", now: "2026-03-07T17:00:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("in 1 day", now: "2026-03-07T07:30:00Z", in: "America/New_York", is: "2026-03-08T07:00:00Z"),
    TimeInputCase("in 1 day", now: "2026-03-07T17:00:00Z", in: "America/New_York", is: "2026-03-08T16:00:00Z"),
    TimeInputCase("in 24h", now: "2026-03-07T17:00:00Z", in: "America/New_York", is: "2026-03-08T17:00:00Z"),
    TimeInputCase("in 2h", now: "2026-03-08T06:30:00Z", in: "America/New_York", is: "2026-03-08T08:30:00Z"),
    TimeInputCase("2026-03-29T02:30", in: "Europe/Berlin", is: "2026-03-29T01:00:00Z"),
    TimeInputCase("2026-03-29 02:00", in: "Europe/Berlin", is: "2026-03-29T01:00:00Z"),
    TimeInputCase("2026-03-29T01:59", in: "Europe/Berlin", is: "2026-03-29T00:59:00Z"),
    TimeInputCase("2026-03-29T03:00", in: "Europe/Berlin", is: "2026-03-29T01:00:00Z"),
    TimeInputCase("today 02:30", now: "2026-03-28T23:30:00Z", in: "Europe/Berlin", is: "2026-03-29T01:00:00Z"),
    TimeInputCase("tomorrow 2:30am", now: "2026-03-28T12:00:00Z", in: "Europe/Berlin", is: "2026-03-29T01:00:00Z"),
    TimeInputCase("in 1 day", now: "2026-03-28T01:30:00Z", in: "Europe/Berlin", is: "2026-03-29T01:00:00Z"),
    TimeInputCase("in 1 day", now: "2026-03-28T11:00:00Z", in: "Europe/Berlin", is: "2026-03-29T10:00:00Z"),
    // Lord Howe springs forward by half an hour: 02:00 +10:30 -> 02:30 +11 at 2026-10-03T15:30Z.
    TimeInputCase("2026-10-04T02:15", in: "Australia/Lord_Howe", is: "2026-10-03T15:30:00Z"),
    TimeInputCase("2026-10-04T02:30", in: "Australia/Lord_Howe", is: "2026-10-03T15:30:00Z"),
    TimeInputCase("2026-10-04T01:59", in: "Australia/Lord_Howe", is: "2026-10-03T15:29:00Z"),
    // Samoa skipped 2011-12-30 entirely (-10 -> +14 at 2011-12-30T10:00Z): any time that day is the gap's end.
    TimeInputCase("2011-12-30T12:00", in: "Pacific/Apia", is: "2011-12-30T10:00:00Z"),
    TimeInputCase("2011-12-30", in: "Pacific/Apia", is: "2011-12-30T10:00:00Z"),
    TimeInputCase("2011-12-29T23:59", in: "Pacific/Apia", is: "2011-12-30T09:59:00Z"),
    TimeInputCase("2011-12-31T00:00", in: "Pacific/Apia", is: "2011-12-30T10:00:00Z"),
    TimeInputCase("in 1 day", now: "2011-12-29T22:00:00Z", in: "Pacific/Apia", is: "2011-12-30T10:00:00Z"),
]

/// Today, tomorrow, ISO and `in 1 day` onto the repeated hour all land on its first occurrence.
private let fallBack: [TimeInputCase] = [
    TimeInputCase("2026-11-01T01:30", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    TimeInputCase("2026-11-01T01:00", in: "America/New_York", is: "2026-11-01T05:00:00Z"),
    TimeInputCase("2026-11-01T01:59:59", in: "America/New_York", is: "2026-11-01T05:59:59Z"),
    TimeInputCase("2026-11-01T00:59", in: "America/New_York", is: "2026-11-01T04:59:00Z"),
    TimeInputCase("2026-11-01T02:00", in: "America/New_York", is: "2026-11-01T07:00:00Z"),
    TimeInputCase("2026-11-01 01:30-05:00", in: "America/New_York", is: "2026-11-01T06:30:00Z"),
    TimeInputCase("today 1:30am", now: "2026-11-01T04:00:00Z", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    TimeInputCase("today 01:30", now: "2026-11-01T04:00:00Z", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    TimeInputCase("tomorrow 1:30am", now: "2026-10-31T16:00:00Z", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    TimeInputCase("tomorrow 01:30", now: "2026-10-31T16:00:00Z", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    TimeInputCase("in 1 day", now: "2026-10-31T05:30:00Z", in: "America/New_York", is: "2026-11-01T05:30:00Z"),
    TimeInputCase("in 1 day", now: "2026-10-31T16:00:00Z", in: "America/New_York", is: "2026-11-01T17:00:00Z"),
    TimeInputCase("in 1 week", now: "2026-10-28T16:00:00Z", in: "America/New_York", is: "2026-11-04T17:00:00Z"),
    // From the second 01:30, a day on is the next day's only 01:30; zero days stays put.
    TimeInputCase("in 1 day", now: "2026-11-01T06:30:00Z", in: "America/New_York", is: "2026-11-02T06:30:00Z"),
    TimeInputCase("in 0d", now: "2026-11-01T06:30:00Z", in: "America/New_York", is: "2026-11-01T06:30:00Z"),
    TimeInputCase("+0d1m", now: "2026-11-01T06:30:00Z", in: "America/New_York", is: "2026-11-01T06:31:00Z"),
    // The first 01:30 has passed, so the next 01:30 by the first-occurrence rule is tomorrow's.
    TimeInputCase("1:30am", now: "2026-11-01T05:45:00Z", in: "America/New_York", is: "2026-11-02T06:30:00Z"),
    TimeInputCase("2026-10-25T02:30", in: "Europe/Berlin", is: "2026-10-25T00:30:00Z"),
    TimeInputCase("2026-10-25T02:00", in: "Europe/Berlin", is: "2026-10-25T00:00:00Z"),
    TimeInputCase("2026-10-25T03:00", in: "Europe/Berlin", is: "2026-10-25T02:00:00Z"),
    TimeInputCase("today 2:30am", now: "2026-10-24T23:00:00Z", in: "Europe/Berlin", is: "2026-10-25T00:30:00Z"),
    TimeInputCase("tomorrow 02:30", now: "2026-10-24T10:00:00Z", in: "Europe/Berlin", is: "2026-10-25T00:30:00Z"),
    TimeInputCase("in 1 day", now: "2026-10-24T00:30:00Z", in: "Europe/Berlin", is: "2026-10-25T00:30:00Z"),
    TimeInputCase("in 1 day", now: "2026-10-24T10:00:00Z", in: "Europe/Berlin", is: "2026-10-25T11:00:00Z"),
    TimeInputCase("+2h", now: "2026-10-24T23:30:00Z", in: "Europe/Berlin", is: "2026-10-25T01:30:00Z"),
    // Lord Howe falls back by half an hour: 02:00 +11 -> 01:30 +10:30 at 2026-04-04T15:00Z.
    TimeInputCase("2026-04-05T01:45", in: "Australia/Lord_Howe", is: "2026-04-04T14:45:00Z"),
    TimeInputCase("2026-04-05T02:00", in: "Australia/Lord_Howe", is: "2026-04-04T15:30:00Z"),
]

private let badInputs: [BadTimeInputCase] = [
    BadTimeInputCase("", names: ""),
    BadTimeInputCase("   ", names: "   "),
    BadTimeInputCase("tomorow 9am", names: "tomorow"),
    BadTimeInputCase("Tomorow 9am", names: "Tomorow"),
    BadTimeInputCase("tomorrow 25:00", names: "25:00"),
    BadTimeInputCase("tomorrow 9:60", names: "9:60"),
    BadTimeInputCase("tomorrow 9:5", names: "9:5"),
    BadTimeInputCase("tomorrow 9am please", names: "please"),
    BadTimeInputCase("tomorrow today", names: "today"),
    BadTimeInputCase("tomorrow at", names: "at"),
    BadTimeInputCase("at", names: "at"),
    BadTimeInputCase("fridya", names: "fridya"),
    BadTimeInputCase("fri 17:00 sat", names: "sat"),
    BadTimeInputCase("5pm 6pm", names: "6pm"),
    BadTimeInputCase("9", names: "9"),
    BadTimeInputCase("tomorrow 24", names: "24", saying: "is out of range: hours run 0 to 23"),
    BadTimeInputCase("25:00", names: "25:00", saying: "is out of range: hours run 0 to 23"),
    BadTimeInputCase(
        "tomorrow 9:61",
        names: "9:61",
        saying: "is out of range: hours run 0 to 23, minutes and seconds 00 to 59, like 17:30"
    ),
    BadTimeInputCase("dec 32", names: "dec 32", saying: "is out of range: December has days 1 to 31"),
    BadTimeInputCase("30 feb", names: "30 feb", saying: "is out of range: February has days 1 to 29"),
    BadTimeInputCase("31 apr 2027", names: "31 apr", saying: "is out of range: April 2027 has days 1 to 30"),
    BadTimeInputCase("29 feb 2027", names: "29 feb", saying: "is out of range: February 2027 has days 1 to 28"),
    BadTimeInputCase("1 jan 0000", names: "0000", saying: "is out of range: years run 1 to 9999"),
    BadTimeInputCase("Fri 21 Nov 17:00", names: "Fri", saying: "does not match the date after it, a Saturday"),
    BadTimeInputCase("fri sat", names: "sat"),
    BadTimeInputCase(
        "next",
        names: "next",
        saying: "is not understood: next is followed by a weekday, like next monday"
    ),
    BadTimeInputCase("next week", names: "next week", saying: "is not understood: next is followed by a weekday"),
    BadTimeInputCase("tomorow", names: "tomorow", saying: "is not understood; did you mean \"tomorrow\"?"),
    BadTimeInputCase("next fridya", names: "next fridya", saying: "is not understood: next is followed by a weekday"),
    BadTimeInputCase("decmber 1", names: "decmber", saying: "is not understood; did you mean \"december\"?"),
    BadTimeInputCase("in 5 mintues", names: "mintues", saying: "is not understood; did you mean \"minutes\"?"),
    BadTimeInputCase("13pm", names: "13pm", saying: "is out of range: with am or pm the hour is 1 to 12, like 9pm"),
    BadTimeInputCase("2026-13-01", names: "2026-13-01", saying: "is out of range: months run 01 to 12"),
    BadTimeInputCase("2026-02-29", names: "2026-02-29", saying: "is out of range: February 2026 has days 01 to 28"),
    BadTimeInputCase("in 10", names: "10", saying: "has no unit: add s, m, h, d or w"),
    BadTimeInputCase("+3000000d", names: "+3000000d", saying: "is too far ahead: a due date is at most 9999-12-31"),
    BadTimeInputCase("tomorrow 9:00 +25:00", names: "+25:00"),
    BadTimeInputCase("+01:00 9:00", names: "+01:00"),
    BadTimeInputCase("13pm", names: "13pm"),
    BadTimeInputCase("0am", names: "0am"),
    BadTimeInputCase("17:00 pm", names: "17:00 pm"),
    BadTimeInputCase("9xm", names: "9xm"),
    BadTimeInputCase("now please", names: "please"),
    BadTimeInputCase("in 10 parsecs", names: "parsecs"),
    BadTimeInputCase("in 10parsecs", names: "10parsecs"),
    BadTimeInputCase("in 2 months", names: "months"),
    BadTimeInputCase("in -5m", names: "-5m"),
    BadTimeInputCase("-5m", names: "-5m"),
    BadTimeInputCase("+-5m", names: "+-5m"),
    BadTimeInputCase("in 1.5h", names: "1.5h"),
    BadTimeInputCase("in 1h30", names: "1h30"),
    BadTimeInputCase("in", names: "in", saying: "needs an amount after it, like in 10m"),
    BadTimeInputCase("in and", names: "and"),
    BadTimeInputCase("+", names: "+", saying: "needs an amount after it"),
    BadTimeInputCase("+2x", names: "+2x"),
    BadTimeInputCase("in 9999999999 weeks", names: "9999999999"),
    BadTimeInputCase("in 999999999 weeks", names: "999999999", saying: "is too far ahead"),
    BadTimeInputCase("+999999999w", names: "+999999999w", saying: "is too far ahead"),
    BadTimeInputCase("in 3000000 days", names: "3000000 days", saying: "is too far ahead"),
    BadTimeInputCase("2026-02-30T10:00", names: "2026-02-30T10:00"),
    BadTimeInputCase("2026-02-29T10:00", names: "2026-02-29T10:00"),
    BadTimeInputCase("2026-02-30", names: "2026-02-30"),
    BadTimeInputCase("2026-02-30 10:00", names: "2026-02-30"),
    BadTimeInputCase("2026-13-01T10:00", names: "2026-13-01T10:00"),
    BadTimeInputCase("2026-04-31", names: "2026-04-31"),
    BadTimeInputCase("2026-12-01T24:00", names: "2026-12-01T24:00"),
    BadTimeInputCase("2026-12-01T09:00+25:00", names: "2026-12-01T09:00+25:00"),
    BadTimeInputCase("2026-12-01T09:00 tomorrow", names: "tomorrow"),
    BadTimeInputCase("2026-12-01T09:00 5pm", names: "5pm"),
    BadTimeInputCase("2026-12-01T25:00 5pm", names: "2026-12-01T25:00"),
    BadTimeInputCase("2026-12-01T9:00", names: "2026-12-01T9:00"),
    BadTimeInputCase("2026-12-01 25:00", names: "25:00"),
    BadTimeInputCase("2026-12-01T09:00-05000", names: "2026-12-01T09:00-05000"),
    BadTimeInputCase("2026-12-01T09:000", names: "2026-12-01T09:000"),
    BadTimeInputCase("20261-12-01", names: "20261-12-01"),
    BadTimeInputCase("tomorrow 09:000", names: "09:000"),
    BadTimeInputCase("tomorrow 123am", names: "123am"),
    BadTimeInputCase("0000-01-01", names: "0000-01-01"),
    BadTimeInputCase("tomorrow ９am", names: "９am"),
]

// MARK: - Tests

@Suite("Reading typed due dates")
struct TimeInputTests {
    @Test(arguments: nowAndISO)
    func nowAndISOInputNameTheirInstant(_ item: TimeInputCase) throws { try check(item) }

    @Test(arguments: daysAndTimes)
    func daysTimesAndWeekdaysNameTheirNextInstant(_ item: TimeInputCase) throws { try check(item) }

    @Test(arguments: relatives)
    func relativeAmountsCountFromNow(_ item: TimeInputCase) throws { try check(item) }

    @Test(arguments: springForward)
    func missingLocalTimesResolveToTheEndOfTheGap(_ item: TimeInputCase) throws { try check(item) }

    @Test(arguments: fallBack)
    func repeatedLocalTimesResolveToTheirFirstOccurrence(_ item: TimeInputCase) throws { try check(item) }

    @Test(arguments: badInputs)
    func badInputNamesThePartNotUnderstood(_ item: BadTimeInputCase) throws {
        let error = #expect(throws: ModelError.self) { try parse(item.input) }
        #expect(error?.code == .timeNotUnderstood)
        #expect(error?.description.hasPrefix("cannot read \"\(item.input)\" as a time: ") == true)
        if !item.unrecognized.allSatisfy(\.isWhitespace) {
            #expect(error?.description.contains("\"\(item.unrecognized)\" \(item.reason)") == true)
        }
    }

    @Test func tomorrowNineAmJustBeforeMidnightIsTheNextMorning() throws {
        // 23:30 EST Friday is already Saturday in UTC; tomorrow is still Saturday.
        #expect(
            utc(try parse("tomorrow 9am", now: "2026-11-21T04:30:00Z", in: "America/New_York"))
                == "2026-11-21T14:00:00Z"
        )
        // 23:30 CET Friday.
        #expect(
            utc(try parse("tomorrow 9am", now: "2026-11-20T22:30:00Z", in: "Europe/Berlin"))
                == "2026-11-21T08:00:00Z"
        )
    }

    @Test func tomorrowNineAmAfterMidnightIsNextDay() throws {
        // 00:30 EST Saturday: tomorrow is Sunday, even though Saturday 09:00 is still ahead.
        #expect(
            utc(try parse("tomorrow 9am", now: "2026-11-21T05:30:00Z", in: "America/New_York"))
                == "2026-11-22T14:00:00Z"
        )
        #expect(
            utc(try parse("today 9am", now: "2026-11-21T05:30:00Z", in: "America/New_York"))
                == "2026-11-21T14:00:00Z"
        )
    }

    @Test func fridayAtFivePmOnAFridayIsTodayBeforeFiveAndNextWeekAfter() throws {
        #expect(utc(try parse("fri 17:00", now: "2026-11-20T16:59:59Z")) == "2026-11-20T17:00:00Z")
        #expect(utc(try parse("fri 17:00", now: "2026-11-20T17:00:00Z")) == "2026-11-27T17:00:00Z")
        #expect(utc(try parse("fri 17:00", now: "2026-11-20T17:00:01Z")) == "2026-11-27T17:00:00Z")
    }

    @Test func twelveAmIsMidnightAndTwelvePmIsNoon() throws {
        #expect(utc(try parse("today 12am")) == "2026-11-20T00:00:00Z")
        #expect(utc(try parse("today 12pm")) == "2026-11-20T12:00:00Z")
        #expect(try parse("tomorrow 12am") == (try parse("tomorrow midnight")))
        #expect(try parse("tomorrow 12pm") == (try parse("tomorrow noon")))
    }

    @Test func relativeAmountsKeepTheFractionOfASecondInNow() throws {
        let now = try instant("2026-11-20T15:00:00Z").addingTimeInterval(0.25)
        let reader = TimeInput(now: now, timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        #expect(try reader.parse("in 10m") == now.addingTimeInterval(600))
        #expect(try reader.parse("in 1 day") == now.addingTimeInterval(86_400))
        #expect(try reader.parse("now") == now)
    }

    @Test func isoFractionalSecondsAreKept() throws {
        let parsed = try parse("2026-12-01T09:00:30.5Z")
        #expect(parsed == (try instant("2026-12-01T09:00:30Z")).addingTimeInterval(0.5))
    }

    @Test func fixedOffsetZonesNeedNoTransitions() throws {
        let zone = try #require(TimeZone(secondsFromGMT: 5 * 3600 + 1800))
        let reader = TimeInput(now: try instant(friday), timeZone: zone)
        #expect(utc(try reader.parse("tomorrow 9am")) == "2026-11-21T03:30:00Z")
        #expect(utc(try reader.parse("2026-12-01")) == "2026-12-01T03:30:00Z")
    }

    @Test func errorDescriptionQuotesInputAndPartAndGivesExamples() throws {
        let error = #expect(throws: ModelError.self) { try parse("tomorow 9am") }
        #expect(error?.code == .timeNotUnderstood)
        #expect(
            error?.description == """
                cannot read "tomorow 9am" as a time: "tomorow" is not understood; did you mean "tomorrow"?; \
                try tomorrow 9, fri 17:00, next monday 10:00, dec 1, 1 dec 9:30, tonight, noon, eod, in 10m, 1h30m, \
                2026-12-01T09:00+01:00 or now
                """
        )
    }

    @Test func anInputLongerThanAnyTimeIsRefusedWithoutQuotingIt() throws {
        #expect(throws: Never.self) { try parse("  tomorrow" + String(repeating: " ", count: 180) + "9am") }
        let error = #expect(throws: ModelError.self) { try parse(String(repeating: "9", count: 201)) }
        #expect(error?.code == .timeNotUnderstood)
        #expect(error?.description.hasPrefix("cannot read a time of 201 bytes: a time is at most 200;") == true)
    }

    @Test func emptyInputSaysItIsEmpty() throws {
        let error = #expect(throws: ModelError.self) { try parse("") }
        #expect(error?.description.hasPrefix("cannot read \"\" as a time: it is empty; try ") == true)
    }

    /// `parseDue`: a day named without a time stays a day; a time, an offset or `tonight` makes an instant. A weekday
    /// said on that weekday is today (a day item is due all day), `next` skips it.
    @Test func aDueDateWithoutATimeIsADay() throws {
        let reader = TimeInput(
            now: try instant(friday),
            timeZone: try #require(TimeZone(identifier: "America/New_York"))
        )
        func day(_ text: String) throws -> String? { try reader.parseDue(text).day?.iso }
        #expect(try day("fri") == "2026-11-20")
        #expect(try day("next fri") == "2026-11-27")
        #expect(try day("mon") == "2026-11-23")
        #expect(try day("today") == "2026-11-20")
        #expect(try day("tomorrow") == "2026-11-21")
        #expect(try day("dec 1") == "2026-12-01")
        #expect(try day("2026-12-01") == "2026-12-01")
        #expect(try day("Sat 21 Nov") == "2026-11-21")
        for timed in ["fri 9", "tonight", "today at noon", "in 2d", "now", "2026-12-01T09:00", "17:00", "dec 1 9:30"] {
            #expect(try reader.parseDue(timed).instant != nil, "\(timed)")
        }
        // `parse` still reads a day as 09:00 of it (a snooze, a --due-before).
        #expect(utc(try reader.parse("dec 1")) == "2026-12-01T14:00:00Z")
    }
}
