import ArgumentParser
import Foundation
import NudgeCalendar
import NudgeCore

/// `nudge calendar EXPR... [--base-time T] [--iterations N]`: what `systemd-analyze calendar` prints, computed by
/// nudge's own calendar engine, so the two can be compared line by line. Needs no daemon.
struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Show when a repeat rule (a systemd calendar expression) next occurs.",
        discussion: """
            Prints the layout of 'systemd-analyze calendar': the original and normalized form, the next elapse \
            in local time and in UTC, and how far from now it is; --iterations shows more. Local time is $TZ's, \
            as for systemd-analyze, so 'TZ=Europe/Berlin nudge calendar ...' and \
            'TZ=Europe/Berlin systemd-analyze calendar ...' print the same lines.

              nudge calendar "Mon..Fri 09:30"
              nudge calendar --iterations 5 "*-*~1 18:00" weekly
              nudge calendar --base-time "2027-03-28 01:00:00 UTC" "*-*-* 02:30 Europe/Berlin"

            Exit status: 0 if every expression was read, 1 if any was not (each is explained on stderr).
            """
    )

    @Argument(help: ArgumentHelp("Calendar expressions, as OnCalendar= takes them.", valueName: "expression"))
    var expressions: [String]

    @Option(
        help: ArgumentHelp(
            "Count from this instant instead of now, written as systemd-analyze takes it (systemd.time(7)): "
                + "'2026-03-01 04:59:59.25 UTC', 'Sun 2026-03-01 09:00 Europe/Berlin', '2026-03-01T08:00:00+01:00', "
                + "'tomorrow', '@1772341199.5', or relative as --base-time=-2h (default: now).",
            valueName: "time"
        ),
        transform: CalendarCommand.parseBaseTime
    )
    var baseTime: Date?

    @Option(help: ArgumentHelp("How many elapses to show.", valueName: "n"))
    var iterations = 1

    func validate() throws {
        guard iterations >= 1 else { throw ValidationError("--iterations must be 1 or more, not \(iterations)") }
    }

    func run() async throws {
        let now = Date()
        let zones = ZoneRulesStore()
        var blocks: [String] = []
        var failed = false
        for expression in expressions {
            do {
                blocks.append(
                    try CalendarReport.render(
                        expression: expression,
                        localZone: .current,
                        zones: zones,
                        baseTime: baseTime ?? now,
                        iterations: iterations,
                        now: now
                    )
                )
            } catch {
                Output.error(String(describing: error))
                failed = true
            }
        }
        if !blocks.isEmpty { Output.line(blocks.joined(separator: "\n\n")) }
        if failed { throw ExitCode(1) }
    }

    /// As systemd-analyze reads it, in $TZ's zone, from this moment: a base of "-2h" and the "From now" lines count
    /// from nearly the same now.
    @Sendable static func parseBaseTime(_ text: String) throws -> Date {
        try SystemdTimestamp.parse(text, now: Date(), localZone: .current, zones: ZoneRulesStore())
    }
}
