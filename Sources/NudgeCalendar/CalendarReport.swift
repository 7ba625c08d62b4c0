import Foundation

/// The text `systemd-analyze calendar` prints for one expression.
public enum CalendarReport {
    /// The report for one expression, line for line as `systemd-analyze calendar --base-time=… --iterations=N`
    /// prints it with `TZ` set to `localZone`: "Original form" (only if it differs from the normalized form),
    /// "Normalized form", then per elapse "Next elapse"/"Iter. #n", "(in UTC)" (left out when the local zone is
    /// UTC) and "From now" (relative to `now`), or "Next elapse: never".
    ///
    /// Lines are separated by "\n", without a newline at the end; systemd separates the reports of several
    /// expressions by an empty line (join them with "\n\n").
    ///
    /// Throws for an expression systemd rejects, and also where systemd parses the expression but fails to
    /// compute an elapse (it then prints no report at all).
    public static func render(
        expression: String,
        localZone: TimeZone,
        zones: ZoneRulesStore,
        baseTime: Date,
        iterations: Int,
        now: Date
    ) throws(CalendarSpecError) -> String {
        let spec = try CalendarSpec(parsing: expression, localZone: localZone, zones: zones)
        let localRules = zones.rules(for: localZone)
        var rows: [(label: String, value: String)] = []
        if spec.normalized != expression { rows.append(("Original form:", expression)) }
        rows.append(("Normalized form:", spec.normalized))

        var search = ElapseSearch(pattern: spec.pattern, clock: spec.clock(localZone: localZone))
        var base = CalendarSpec.microseconds(baseTime)
        let nowMicroseconds = CalendarSpec.microseconds(now)
        for iteration in 0..<max(iterations, 0) {
            switch search.next(after: base) {
            case .never:
                if iteration == 0 { rows.append(("Next elapse:", "never")) }
            case .failed:
                throw CalendarSpecError(
                    expression: expression,
                    part: expression,
                    reason:
                        "systemd cannot compute its next elapse (its search gives up, or the time is before 1970)"
                )
            case .elapse(let next):
                let label = iteration == 0 ? "Next elapse:" : "Iter. #\(iteration + 1):"
                rows.append((label, TimestampText.local(next, rules: localRules)))
                if !localRules.isUTC(at: CivilCalendar.floorDivide(next, 1_000_000).quotient) {
                    rows.append(("(in UTC):", TimestampText.utc(next)))
                }
                rows.append(("From now:", TimestampText.relative(next, now: nowMicroseconds)))
                base = next
                continue
            }
            break
        }

        let width = rows.map(\.label.count).max() ?? 0
        return rows.map {
            String(repeating: " ", count: width - $0.label.count) + $0.label + " " + $0.value
        }
        .joined(separator: "\n")
    }

    /// How far `instant` is from `now`, as systemd words it (format_timestamp_relative): "7 months 25 days ago",
    /// "3 weeks 3 days left", "1 day 2h left", "5min 3s ago", "now".
    public static func relativeText(_ instant: Date, now: Date) -> String {
        TimestampText.relative(CalendarSpec.microseconds(instant), now: CalendarSpec.microseconds(now))
    }
}
