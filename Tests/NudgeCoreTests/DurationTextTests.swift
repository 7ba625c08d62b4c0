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

    /// The API reads durations with `iso8601Seconds`, and its contract (docs/openapi.yaml, `Duration`) says which with a
    /// pattern: the two agree on every form, so a client the contract generated is never refused, nor a request the
    /// pattern refuses taken. (Schemathesis sends both kinds.)
    @Test func theAPIReadsExactlyWhatTheContractsPatternAllows() throws {
        let document = try String(
            contentsOf: URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/openapi.yaml"),
            encoding: .utf8
        )
        let schema = try #require(document.range(of: "    Duration:\n"))
        let line = try #require(
            document[schema.upperBound...].split(separator: "\n").first { $0.contains("pattern: '") }
        )
        let pattern = try Regex(String(line.split(separator: "'")[1]))
        var texts = [
            "P", "PT", "P1DT", "PT.5S", "P.5W", "P1.W", "PT1..5S", "PT1.5.5S", " PT1H", "PT1H ", "p1d", "P1dT1h",
            "1h", "90", "P1Y", "P1M", "P1WT1H", "P1W1D", "PT1M1H", "PT1S1M", "P1D1H", "PTH", "P-1D", "P+1D", "P1,5D",
        ]
        // Every choice of units in order, with whole and fractional amounts.
        for weeks in ["", "2W", "1.5W"] {
            for days in ["", "3D", "0.5D", "1.D"] {
                for time in ["", "T", "T4H", "T4H5M", "T4H5M6S", "T5M", "T5M6.25S", "T6S", "T4H6S", "T0S"] {
                    texts.append("P" + weeks + days + time)
                }
            }
        }
        for text in texts {
            let matches = (try? pattern.wholeMatch(in: text)) != nil
            #expect(matches == (DurationText.iso8601Seconds(text) != nil), "\"\(text)\": pattern \(matches)")
        }
    }
}
