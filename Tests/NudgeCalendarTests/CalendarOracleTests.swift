import Foundation
import NudgeTestSupport
import Testing

@testable import NudgeCalendar

/// The machine's zone database, which systemd reads too.
private let zoneRules = ZoneRulesStore()

/// Compares nudge's calendar engine with `systemd-analyze calendar` on this machine: thousands of generated
/// expressions (valid and invalid), six zones, base times around DST transitions and month ends. Agreement must
/// be complete on rejection, the normalized form and the next five elapses (the whole report except the
/// "From now" lines, which depend on the wall clock).
@Suite("Calendar oracle: systemd-analyze")
struct CalendarOracleTests {
    static let iterations = 5
    /// NUDGE_CALENDAR_ORACLE_COUNT and NUDGE_CALENDAR_ORACLE_SEED widen the search when exploring; the defaults are what
    /// `swift test` checks.
    static let generatedExpressionCount =
        ProcessInfo.processInfo.environment["NUDGE_CALENDAR_ORACLE_COUNT"].flatMap { Int($0) } ?? 2_400
    static let seed =
        ProcessInfo.processInfo.environment["NUDGE_CALENDAR_ORACLE_SEED"].flatMap { UInt64($0) } ?? 0
    /// Each generated expression is checked in this many (zone, base time) situations.
    static let situationsPerExpression = 3

    struct Situation: Hashable, Sendable {
        let zone: String
        let baseTime: Double

        /// The base as both sides are given it: a systemd.time(7) timestamp in UTC with six digits of fraction,
        /// "2026-12-31 23:59:59.750000 UTC", which nudge reads with `SystemdTimestamp` as systemd-analyze does.
        var baseText: String {
            let (seconds, fraction) = CivilCalendar.floorDivide(Int64((baseTime * 1_000_000).rounded()), 1_000_000)
            let time = BrokenDownTime(wallSeconds: seconds, dstFlag: 0, utcOffset: 0)
            func digits(_ value: Int, _ width: Int) -> String {
                String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
            }
            return "\(time.year)-\(digits(time.month0 + 1, 2))-\(digits(time.day, 2)) "
                + "\(digits(time.hour, 2)):\(digits(time.minute, 2)):\(digits(time.second, 2)).\(digits(Int(fraction), 6)) UTC"
        }
    }

    /// DST transitions in 2026 and 2027 (seconds since the epoch), from the tzdata on this machine.
    static let transitions: [String: [Double]] = [
        "America/New_York": [1_772_953_200, 1_793_512_800, 1_805_007_600, 1_825_567_200],
        "Europe/Berlin": [1_774_746_000, 1_792_890_000, 1_806_195_600, 1_824_944_400],
        "Australia/Sydney": [1_775_318_400, 1_791_043_200, 1_806_768_000, 1_822_492_800],
        // Lord Howe shifts by half an hour.
        "Australia/Lord_Howe": [1_775_314_800, 1_791_041_400, 1_806_764_400, 1_822_491_000],
    ]

    /// Month ends and leap days: 2026-01-31 13:00, 2026-12-31 23:59:59.75, 2027-02-28 20:00, 2027-06-30 23:00,
    /// 2028-02-28 12:00, 2028-02-29 23:30 (UTC).
    static let monthEnds: [Double] = [
        1_769_864_400, 1_798_761_599.75, 1_803_844_800, 1_814_396_400, 1_835_352_000, 1_835_479_800,
    ]

    /// NUDGE_CALENDAR_ORACLE_ZONES (comma-separated) replaces these when exploring other zones.
    static let zones =
        ProcessInfo.processInfo.environment["NUDGE_CALENDAR_ORACLE_ZONES"].map {
            $0.split(separator: ",").map(String.init)
        }
        ?? ["UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Australia/Lord_Howe", "Asia/Kolkata"]

    /// Just before (1.5 h and 1 s), at, and just after each transition.
    static func around(_ transition: Double) -> [Double] {
        [transition - 5_400.5, transition - 1, transition, transition + 1_800.25]
    }

    static func situations(for zone: String) -> [Situation] {
        var bases = monthEnds
        // Zones without DST still get transition instants (of Berlin and New York) as base times.
        let dstTransitions =
            transitions[zone] ?? foundationTransitions(zone)
            ?? transitions["Europe/Berlin"]! + transitions["America/New_York"]!
        bases += dstTransitions.flatMap(around)
        return bases.map { Situation(zone: zone, baseTime: $0) }
    }

    /// Transitions in 2026 and 2027 as Foundation sees them, for zones explored through NUDGE_CALENDAR_ORACLE_ZONES.
    static func foundationTransitions(_ zone: String) -> [Double]? {
        guard let timeZone = TimeZone(identifier: zone) else { return nil }
        var found: [Double] = []
        var instant = Date(timeIntervalSince1970: 1_767_225_600)
        while let next = timeZone.nextDaylightSavingTimeTransition(after: instant),
            next.timeIntervalSince1970 < 1_830_297_600
        {
            found.append(next.timeIntervalSince1970)
            instant = next
        }
        return found.isEmpty ? nil : found
    }

    /// Expressions aimed at DST gaps and overlaps, checked against every transition of every zone.
    static let dstExpressions = [
        "*-*-* 02:30", "*-*-* 01:30", "*-*-* 02:00", "*-*-* 03:00", "*-*-* 01:59:59",
        "*-*-* 02:30:00.5", "hourly",
        "*:0/15", "*:0/20:30", "*-*-* 1..3:00", "*-*-* 1..3:*:00", "*-*-* 0/2:00", "*-*-* 02,03:30",
        "Sun 02:30",
        "Sun *-*-* 1:30", "*-*-* 01:45", "*-*-* 02:15", "*:15,45", "minutely", "*-*-* *:30:00", "daily",
        "*-*-* 2:30 Europe/Berlin", "*-*-* 2:15 Australia/Lord_Howe", "*-*-* 1:30 America/New_York",
        "*-*-* 12:00 CET", "*-*-* 12:00 CEST", "*-*-* 02:30 EST", "*-*-* 01:30 EDT", "*-*-* 02:30 AEDT",
        "*-*-* 02:15 +11", "*-*-* 02:15 +1030", "*-*~1 02:30", "*-*-* 00:00:00 UTC",
    ]

    @Test("nudge agrees with systemd-analyze on rejection, normalized form and the next 5 elapses")
    func agreesWithSystemdAnalyze() throws {
        guard let oracle = SystemdAnalyzeOracle.locate() else {
            Issue.record(
                "systemd-analyze was not found: install systemd (e.g. apt-get install systemd) to run this test"
            )
            return
        }

        // Assign work: every DST expression in every situation of its zone; each generated expression in a few
        // situations chosen deterministically.
        var work: [Situation: [String]] = [:]
        for zone in Self.zones {
            for situation in Self.situations(for: zone)
            where Self.transitions[zone] != nil || Self.foundationTransitions(zone) != nil {
                work[situation, default: []] += Self.dstExpressions
            }
        }
        var picker = SplitMix64(seed: 0x0C41_E4DA_5EED &+ Self.seed)
        var generatedCount = 0
        for (zoneIndex, zone) in Self.zones.enumerated() {
            let localNames = zoneRules.rules(named: zone)!.localNames
            var generator = CalendarExpressionGenerator(
                seed: 0x5EED_0000 &+ UInt64(zoneIndex) &+ Self.seed << 8,
                localAbbreviations: Array(Set([localNames.standard, localNames.daylight]))
            )
            let situations = Self.situations(for: zone)
            for _ in 0..<(Self.generatedExpressionCount / Self.zones.count) {
                let expression = generator.expression()
                generatedCount += 1
                for _ in 0..<Self.situationsPerExpression {
                    let situation = situations[Int.random(in: 0..<situations.count, using: &picker)]
                    work[situation, default: []].append(expression)
                }
            }
        }

        let jobs = work.sorted { ($0.key.zone, $0.key.baseTime) < ($1.key.zone, $1.key.baseTime) }
        let results = OracleResults()
        let started = Date()
        // Two at a time: the machine has two cores, and systemd-analyze is the slow side.
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (situation, expressions) = jobs[index]
            do {
                let reports = try oracle.reports(
                    for: expressions,
                    zone: situation.zone,
                    baseTime: situation.baseText,
                    iterations: Self.iterations
                )
                for (expression, systemd) in zip(expressions, reports) {
                    let ours = Self.ourReport(expression, situation: situation)
                    results.record(expression: expression, situation: situation, ours: ours, systemd: systemd)
                }
            } catch {
                results.recordFailure("\(situation.zone) \"\(situation.baseText)\": \(error)")
            }
        }
        let elapsed = Date().timeIntervalSince(started)

        let summary = results.summary
        print(
            "calendar oracle: \(generatedCount) generated + \(Self.dstExpressions.count) DST expressions, "
                + "\(Self.zones.count) zones, \(jobs.count) (zone, base time) situations, "
                + "\(summary.comparisons) comparisons (\(summary.rejected) rejected by systemd), "
                + "\(summary.disagreements) disagreements, \(String(format: "%.1f", elapsed)) s"
        )
        #expect(summary.failures.isEmpty, "\(summary.failures.joined(separator: "\n"))")
        #expect(generatedCount >= 2_000)
        #expect(
            summary.disagreements == 0,
            "\(summary.disagreements) of \(summary.comparisons) disagree; first ones:\n\(summary.firstDiffs.joined(separator: "\n\n"))"
        )
    }

    /// Our report without the "From now" lines, or nil where we reject the expression.
    static func ourReport(_ expression: String, situation: Situation) -> [String]? {
        let zone = TimeZone(identifier: situation.zone)!
        do {
            let text = try CalendarReport.render(
                expression: expression,
                localZone: zone,
                zones: zoneRules,
                baseTime: try SystemdTimestamp.parse(
                    situation.baseText,
                    now: Date(),
                    localZone: zone,
                    zones: zoneRules
                ),
                iterations: iterations,
                now: Date()
            )
            return text.components(separatedBy: "\n").filter { !$0.hasPrefix("       From now:") }
        } catch {
            return nil
        }
    }
}

/// Collects comparison results from concurrent jobs.
private final class OracleResults: @unchecked Sendable {
    private let lock = NSLock()
    private var comparisons = 0
    private var rejected = 0
    private var disagreements = 0
    private var firstDiffs: [String] = []
    private var failures: [String] = []

    func record(
        expression: String,
        situation: CalendarOracleTests.Situation,
        ours: [String]?,
        systemd: [String]?
    ) {
        let systemdLines = systemd?.filter { !$0.hasPrefix("       From now:") }
        lock.lock()
        defer { lock.unlock() }
        comparisons += 1
        if systemd == nil { rejected += 1 }
        guard ours != systemdLines else { return }
        disagreements += 1
        if firstDiffs.count < 8 {
            firstDiffs.append(
                "expression \"\(expression)\" in \(situation.zone), base \"\(situation.baseText)\"\n"
                    + "  ours:    \(ours?.joined(separator: "\n           ") ?? "(rejected)")\n"
                    + "  systemd: \(systemdLines?.joined(separator: "\n           ") ?? "(rejected)")"
            )
        }
    }

    func recordFailure(_ message: String) {
        lock.lock()
        failures.append(message)
        lock.unlock()
    }

    var summary: (comparisons: Int, rejected: Int, disagreements: Int, firstDiffs: [String], failures: [String]) {
        lock.lock()
        defer { lock.unlock() }
        return (comparisons, rejected, disagreements, firstDiffs, failures)
    }
}
