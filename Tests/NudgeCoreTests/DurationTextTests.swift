import Foundation
import NudgeCore
import Testing

/// Durations as the command lines and the API write them, read and written back.
@Suite struct DurationTextTests {
    @Test(arguments: [
        ("90", 90.0), ("90s", 90), ("15m", 900), ("1h30m", 5400), ("2d", 172_800), ("1d2h3m4s", 93_784),
        ("PT1H", 3600), ("PT1H30M", 5400), ("P2D", 172_800), ("P1DT1S", 86_401), ("PT0.5S", 0.5), ("P1W", 604_800),
        ("PT0S", 0),
    ])
    func readsWhatPeopleAndProgramsWrite(_ text: String, _ seconds: TimeInterval) {
        #expect(DurationText.seconds(text) == seconds)
    }

    @Test(arguments: [
        "", "h", "1x", "-5m", "1m1h", "1h1h", "P", "PT", "P1M", "P1Y", "PT1D", "P1H", "1.5.5s", "PT1H2", "P1DT",
        "1e9s", "P1W1D",
    ])
    func refusesWhatIsNotADuration(_ text: String) {
        #expect(DurationText.seconds(text) == nil, "\(text) was read")
    }

    @Test(arguments: [0.0, 0.25, 59, 60, 3600, 5400, 86_400, 90_061, 604_800])
    func writesISO8601ThatReadsBackToTheSameLength(_ seconds: TimeInterval) {
        let text = DurationText.iso8601(seconds)
        #expect(text.hasPrefix("P"))
        #expect(DurationText.seconds(text) == seconds, "\(text)")
    }

    @Test func writesTheLargestUnitsFirst() {
        #expect(DurationText.iso8601(5400) == "PT1H30M")
        #expect(DurationText.iso8601(90_061) == "P1DT1H1M1S")
        #expect(DurationText.iso8601(0) == "PT0S")
        #expect(DurationText.iso8601(172_800) == "P2D")
    }
}
