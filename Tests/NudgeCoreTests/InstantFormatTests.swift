import Foundation
import NudgeCore
import PropertyBased
import Testing

/// Instants as programs write them to nudge and read them back: RFC 3339, to the millisecond, years 0000 to 9999.
@Suite struct InstantFormatTests {
    /// Every millisecond of the range, written and read back, is the same instant written the same way; and what is
    /// written is what Foundation's ISO 8601 style reads as that instant.
    @Test func everyMillisecondReadsBackToItself() async {
        let range = InstantFormat.range
        let milliseconds =
            Int64(range.lowerBound.timeIntervalSince1970 * 1000)...Int64(range.upperBound.timeIntervalSince1970 * 1000)
        await propertyCheck(count: 20_000, input: Gen.int64(in: milliseconds)) { millisecond in
            let instant = Date(timeIntervalSince1970: Double(millisecond) / 1000)
            let text = InstantFormat.format(instant)
            #expect(text.count == 24, "\(text)")
            let read = InstantFormat.parse(text)
            #expect(read == instant, "\(text) read as \(String(describing: read))")
            #expect(read.map(InstantFormat.format) == text)
            if text >= "1970" {
                let foundation = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
                #expect(
                    foundation.map { abs($0.timeIntervalSince(instant)) < 0.000_5 } == true,
                    "\(text): Foundation reads \(String(describing: foundation))"
                )
            }
        }
    }

    /// Found by generated requests: a due date sent as .010 was answered as .009, because the nearest double is a
    /// hair below it and the old writer cut the fraction rather than rounding it.
    @Test func aFractionIsAnsweredAsItWasSent() throws {
        for text in ["2030-01-01T00:00:00.010Z", "2030-01-01T00:00:00.001Z", "2099-12-31T23:59:59.999Z"] {
            #expect(InstantFormat.parse(text).map(InstantFormat.format) == text)
        }
    }

    @Test(arguments: [
        ("2026-12-01T09:00:00Z", "2026-12-01T09:00:00.000Z"),
        ("2026-12-01t09:00:00z", "2026-12-01T09:00:00.000Z"),
        ("2026-12-01T10:00:00.25+01:00", "2026-12-01T09:00:00.250Z"),
        ("2031-01-01T00:00:00-23:53", "2031-01-01T23:53:00.000Z"),
        ("2031-01-01T00:00:00.1234567891Z", "2031-01-01T00:00:00.123Z"),
        ("2031-01-01T00:00:00.0005Z", "2031-01-01T00:00:00.001Z"),
        ("2031-01-01T00:00:00.9996Z", "2031-01-01T00:00:01.000Z"),
        ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00.000Z"),
        ("2024-02-29T12:00:00+00:00", "2024-02-29T12:00:00.000Z"),
        ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("1969-07-20T20:17:40Z", "1969-07-20T20:17:40.000Z"),
    ])
    func readsEveryFormOfRFC3339(_ text: String, _ answered: String) {
        #expect(InstantFormat.parse(text).map(InstantFormat.format) == answered)
    }

    @Test(arguments: [
        "", "2026-12-01", "2026-12-01T09:00:00", "2026-12-01 09:00:00Z", "2026-12-01T09:00Z", "2026-13-01T09:00:00Z",
        "2026-02-29T09:00:00Z", "2026-04-31T09:00:00Z", "2026-12-00T09:00:00Z", "2026-12-01T24:00:00Z",
        "2026-12-01T09:60:00Z", "2026-12-01T09:00:61Z", "2026-12-01T09:00:00.Z", "2026-12-01T09:00:00+24:00",
        "2026-12-01T09:00:00+01:60", "2026-12-01T09:00:00+0100", "+2026-12-01T09:00:00Z", "20261-12-01T09:00:00Z",
        "2026-12-01T09:00:00ZZ", "２０２６-12-01T09:00:00Z",
        // Past what a four-digit year can say, once the offset is applied.
        "9999-12-31T23:59:59-00:01", "0000-01-01T00:00:00+00:01",
    ])
    func refusesWhatIsNotAnRFC3339InstantInRange(_ text: String) {
        #expect(InstantFormat.parse(text) == nil, "\(text) was read")
    }

    @Test func anInstantPastTheRangeIsWrittenAsItsEnd() {
        #expect(InstantFormat.format(.distantFuture.addingTimeInterval(1e15)) == "9999-12-31T23:59:59.999Z")
        #expect(InstantFormat.format(.distantPast.addingTimeInterval(-1e15)) == "0000-01-01T00:00:00.000Z")
    }
}
