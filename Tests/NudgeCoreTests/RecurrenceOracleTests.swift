import Foundation
import Testing

@testable import NudgeCore
@testable import NudgeRecurrence

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

    static func wallTime(_ text: String) throws -> WallTime { try #require(WallTime(text)) }

    /// `2026-09-14T09:30:00Z`, as rrule_oracle.py writes instants.
    static func utcText(_ seconds: Int) -> String {
        let days = LocalTime.floorDiv(seconds, 86_400)
        let second = seconds - days * 86_400
        let (year, month, day) = LocalTime.civil(days: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(year)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }

    /// nudge's occurrences (`Recurrence`, as an item's repeat evaluates them): libical's wall times, each placed
    /// in the zone, EXDATEs out and RDATEs in, after `after`.
    static func ours(_ test: Case, refusingMisreads: Bool = true) throws -> [String] {
        let recurrence = Recurrence(
            rule: try RecurrenceRule(test.rule, refusingMisreads: refusingMisreads),
            start: try wallTime(test.start),
            zone: .named(test.zone),
            exceptions: try test.exdates.map(wallTime),
            additions: try test.rdates.map(wallTime)
        )
        let after = try #require(try? Date(test.after, strategy: .iso8601))
        return recurrence.occurrences(after: after, limit: 10, in: .gmt).map { utcText(Int($0.timeIntervalSince1970)) }
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
        // For each kind of refusal, how many rules it refused and on how many of them libical, asked all the same,
        // differs from dateutil: a kind that never differs refuses what libical reads right.
        var refusals: [String: (rules: Int, misread: Int)] = [:]
        var bothCompared = 0
        for test in cases {
            // What libical 3.0 evaluates wrongly is refused, and said why (RecurrenceRule.init).
            if let misread = RecurrenceRule.misreadParts(test.rule) {
                #expect(throws: RecurrenceRuleError.self) { try RecurrenceRule(test.rule) }
                refused += 1
                let kind = String(misread.part.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
                let differs = (try? Self.ours(test, refusingMisreads: false)) != test.dateutil
                refusals[kind, default: (0, 0)].rules += 1
                if differs { refusals[kind, default: (0, 0)].misread += 1 }
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
        for (kind, count) in refusals.sorted(by: { $0.key < $1.key }) {
            print("rrule oracle: refused \(count.rules) for \(kind); libical, asked, differs on \(count.misread)")
            #expect(count.misread > 0, "refused \(count.rules) rules for \(kind), all of which libical reads right")
        }
        #expect(cases.count == Self.count && (bothCompared >= 5_000 || Self.count < 6_300))
        #expect(withDateutil.count == 0, "\(withDateutil.prefix(15).joined(separator: "\n"))")
        #expect(withRecurringIcalEvents.count == 0, "\(withRecurringIcalEvents.prefix(15).joined(separator: "\n"))")
    }
}
