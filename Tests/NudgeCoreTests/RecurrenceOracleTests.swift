import Foundation
import NudgeRecurrence
import Testing

@testable import NudgeCore

/// RFC 5545 recurrences as libical evaluates them (`RecurrenceRule`), placed in their zone as RFC 5545 says
/// (`LocalTime.calendarInstant`), against python-dateutil's rruleset and recurring-ical-events: 6,300 generated rules
/// (`Tests/Tools/rrule_oracle.py`: every RRULE part, COUNT and UNTIL, EXDATE and RDATE, in five zones, starting
/// near their DST changes), the first ten occurrences after an instant each; over 5,000 of them (those without an
/// EXDATE, which recurring-ical-events reads differently) against both.
@Suite struct RecurrenceOracleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let python = packageRoot + "/.build/test-tools/python/bin/python3"
    /// NUDGE_RRULE_ORACLE_COUNT and NUDGE_RRULE_ORACLE_SEED widen the search when exploring.
    static let count = ProcessInfo.processInfo.environment["NUDGE_RRULE_ORACLE_COUNT"].flatMap { Int($0) } ?? 6_300
    static let seed = ProcessInfo.processInfo.environment["NUDGE_RRULE_ORACLE_SEED"] ?? "1"

    struct Case: Decodable {
        let rule: String
        let zone: String
        let start: String
        let exdates: [String]
        let rdates: [String]
        let after: String
        let dateutil: [String]
        let recurringIcalEvents: [String]?
    }

    static func wallTime(_ text: String) -> WallTime {
        let digits = Array(text.utf8).filter { $0 != UInt8(ascii: "T") }.map { Int($0) - 48 }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        return WallTime(
            year: number(0..<4),
            month: number(4..<6),
            day: number(6..<8),
            hour: number(8..<10),
            minute: number(10..<12),
            second: number(12..<14)
        )
    }

    /// Seconds since the epoch of a wall time read as UTC.
    static func wallSeconds(_ time: WallTime) -> Int {
        LocalTime.days(year: time.year, month: time.month, day: time.day) * 86_400 + time.hour * 3600 + time.minute * 60
            + time.second
    }

    /// `2026-09-14T09:30:00Z`, as rrule_oracle.py writes instants.
    static func utcText(_ seconds: Int) -> String {
        let days = LocalTime.floorDiv(seconds, 86_400)
        let second = seconds - days * 86_400
        let (year, month, day) = LocalTime.civil(days: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(year)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }

    /// nudge's occurrences: libical's wall times, each placed in the zone, EXDATEs out and RDATEs in, after `after`.
    static func ours(_ test: Case) throws -> [String] {
        let rule = try RecurrenceRule(test.rule)
        let local = LocalTime(timeZone: try #require(TimeZone(identifier: test.zone)))
        let after = Int64(try #require(try? Date(test.after, strategy: .iso8601)).timeIntervalSince1970)
        func place(_ wall: WallTime) -> Int64 { Int64(local.calendarInstant(forWall: wallSeconds(wall))) }
        let excluded = Set(test.exdates.map { place(wallTime($0)) })
        // Enough to have ten left once the exceptions are out.
        let occurrences = rule.occurrences(
            start: wallTime(test.start),
            after: after,
            limit: 10 + excluded.count,
            placing: place
        )
        let instants = Set(occurrences).subtracting(excluded).union(test.rdates.map { place(wallTime($0)) })
        return instants.filter { $0 > after }.sorted().prefix(10).map { utcText(Int($0)) }
    }

    @Test func libicalAgreesWithDateutilAndRecurringIcalEvents() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.packageRoot + "/Tests/Tools/rrule_oracle.py", Self.seed, String(Self.count)]
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nudge-rrule-\(UUID()).json")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0,
            "rrule_oracle.py failed (scripts/install-deps --tests installs dateutil and recurring-ical-events)"
        )
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: output))
        var withDateutil: [String] = []
        var withRecurringIcalEvents: [String] = []
        var refused = 0
        var bothCompared = 0
        for test in cases {
            // What libical 3.0 evaluates wrongly is refused, and said why (RecurrenceRule.init).
            if RecurrenceRule.misreadParts(test.rule) != nil {
                #expect(throws: RecurrenceRuleError.self) { try RecurrenceRule(test.rule) }
                refused += 1
                continue
            }
            let ours = try Self.ours(test)
            let label =
                "\(test.rule) from \(test.start) \(test.zone) (EXDATE \(test.exdates), RDATE \(test.rdates)) after \(test.after)"
            if ours != test.dateutil {
                withDateutil.append("\(label):\n  nudge    \(ours)\n  dateutil \(test.dateutil)")
            }
            // recurring-ical-events 3 also drops occurrences whose UTC time is an EXDATE's wall time, or whose wall
            // time is its UTC time (EXDATE;TZID=Europe/Berlin:…T140000 drops 12:00Z, as it should, and 14:00Z and
            // 10:00Z), where dateutil and RFC 5545 drop the one: with an EXDATE, dateutil alone is the oracle.
            guard let recurringIcalEvents = test.recurringIcalEvents else { continue }
            bothCompared += 1
            if ours != recurringIcalEvents {
                withRecurringIcalEvents.append("\(label):\n  nudge    \(ours)\n  r-i-e    \(recurringIcalEvents)")
            }
        }
        print(
            "rrule oracle: \(cases.count) rules (\(refused) refused for what libical misreads; \(bothCompared) without EXDATE "
                + "compared with both), "
                + "\(cases.reduce(0) { $0 + $1.dateutil.count }) occurrences; "
                + "\(withDateutil.count) disagree with dateutil, \(withRecurringIcalEvents.count) with recurring-ical-events"
        )
        #expect(cases.count == Self.count && (bothCompared >= 5_000 || Self.count < 6_300))
        #expect(withDateutil.count == 0, "\(withDateutil.prefix(15).joined(separator: "\n"))")
        #expect(withRecurringIcalEvents.count == 0, "\(withRecurringIcalEvents.prefix(15).joined(separator: "\n"))")
    }
}
