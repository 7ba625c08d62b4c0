import Foundation
import Histogram
import NudgeCalendar
import NudgeCore
import NudgeStore

/// `nudge-bench calendar`: what recurrence costs. In process, `RepeatRule.next(after:in:)` for typical expressions
/// and RFC 5545 recurrences (each call timed, from instants spread over 2027; a recurrence is counted from its
/// DTSTART at every call, so those started years before cost more); then the whole daemon's start-up to READY=1 on a
/// store of `--items` recurring items against one of as many one-shot items.
enum CalendarBench {
    static let expressions = [
        "Mon..Fri 09:30", "*-*-* 02:30", "hourly", "daily", "*-*~1", "Mon..Fri 9..17/2:00 Europe/Berlin",
        "Sat,Sun 10:00", "*-*-01 09:00", "*:0/15",
    ]

    /// Recurrences as phones and `nudge add --rrule` make them: started this year, a year, and ten years before.
    static let recurrences = [
        "DTSTART:20270105T190000 RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
        "DTSTART:20270104T120000 RRULE:FREQ=MONTHLY;BYDAY=1MO;COUNT=100",
        "DTSTART;TZID=Europe/Berlin:20260101T090000 RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
        "DTSTART:20170101T090000 RRULE:FREQ=DAILY",
        "DTSTART:20170101T000000 RRULE:FREQ=HOURLY",
    ]

    static func run(_ options: Options) async throws {
        say("nudge-bench calendar: next elapse in process, then start-up of \(options.nudged)")
        nextElapse()
        try startup(items: options.sizes.first ?? 100_000, options: options)
    }

    private static func nextElapse() {
        let zone = TimeZone(identifier: "America/New_York")!
        let zones = ZoneRulesStore()
        let start = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
        let calls = 200_000
        var all = Histogram<UInt64>(highestTrackableValue: 1_000_000_000, numberOfSignificantValueDigits: .three)
        for expression in expressions + recurrences {
            guard let rule = try? RepeatRule(expression, localZone: zone, zones: zones) else {
                say("  \(expression): not parsed")
                continue
            }
            let label =
                expression.count < 36 ? expression.padding(toLength: 36, withPad: " ", startingAt: 0) : expression
            // A recurrence costs more a call (libical, from its start or where it last stood): fewer calls.
            let calls = rule.recurrence == nil ? calls : 2_000
            var histogram = Histogram<UInt64>(
                highestTrackableValue: 1_000_000_000,
                numberOfSignificantValueDigits: .three
            )
            var checksum = 0.0
            for call in 0..<calls {
                let after = start + Double(call % 10_000) * 3_153.6  // a year in 10,000 steps
                let began = ContinuousClock.now
                let next = rule.next(after: after, in: zone)
                let took = began.duration(to: .now)
                checksum += next?.timeIntervalSince1970 ?? 0
                let nanoseconds = UInt64(took.components.attoseconds / 1_000_000_000)
                _ = histogram.record(nanoseconds)
                _ = all.record(nanoseconds)
            }
            say(
                "  next(after:) \(label) "
                    + "median \(micro(histogram.valueAtPercentile(50))) µs, p99 \(micro(histogram.valueAtPercentile(99))) µs"
                    + (checksum > 0 ? "" : " (no elapse)")
            )
        }
        say(
            "  next(after:) all rules: median \(micro(all.valueAtPercentile(50))) µs, "
                + "p99 \(micro(all.valueAtPercentile(99))) µs"
        )
    }

    private static func micro(_ nanoseconds: UInt64) -> String {
        String(format: "%.2f", Double(nanoseconds) / 1000)
    }

    /// Start-up of the whole daemon on stores of recurring and of one-shot items, the median of `--runs` each.
    private static func startup(items: Int, options: Options) throws {
        let dueDay = Date() + 30 * 86_400
        let oneShot = try StoreTemplate.prepare(
            items: items,
            layout: StoreSchema.currentVersion,
            fullLog: false,
            in: options.work,
            name: "store-\(items)-one-shot"
        )
        let recurring = try StoreTemplate.prepare(
            items: items,
            layout: StoreSchema.currentVersion,
            fullLog: false,
            in: options.work,
            name: "store-\(items)-recurring",
            dueDates: { _ in dueDay },
            repeatRules: expressions
        )
        var medians: [String: Double] = [:]
        for (name, template) in [("one-shot", oneShot), ("recurring", recurring)] {
            var seconds: [Double] = []
            for _ in 1...options.runs {
                let directory = try template.freshCopy(in: options.work)
                let daemon = try RunningDaemon(nudged: options.nudged, directory: directory)
                seconds.append(try daemon.awaitReady().seconds)
                _ = try daemon.stop()
            }
            seconds.sort()
            medians[name] = seconds[seconds.count / 2]
            say(
                "  start-up, \(items) \(name) items: median \(String(format: "%.3f", seconds[seconds.count / 2])) s "
                    + "(\(seconds.map { String(format: "%.3f", $0) }.joined(separator: ", ")))"
            )
        }
        if let recurring = medians["recurring"], let oneShot = medians["one-shot"] {
            say("  start-up ratio recurring / one-shot: \(String(format: "%.2f", recurring / oneShot))")
        }
    }
}
