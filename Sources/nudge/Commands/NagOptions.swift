import ArgumentParser
import Foundation
import NudgeCore

/// `--nag`, `--nag-until` and `--escalate-after`, as `add` and `edit` take them: how a fired reminder repeats until
/// it is acknowledged.
struct NagOptions: ParsableArguments {
    enum Until: String, ExpressibleByArgument, CaseIterable {
        case acknowledged, seen
    }

    @Option(
        help: ArgumentHelp(
            "Repeat a fired reminder until it is acknowledged: every INTERVAL, at most MAX times (10 unless given), "
                + "e.g. 10m or 1h,3; with edit, it replaces the item's nag whole (give --nag-until and "
                + "--escalate-after again).",
            valueName: "interval[,max]"
        ),
        transform: Nag.init(parsing:)
    )
    var nag: Nag?

    @Option(
        help: ArgumentHelp(
            "With --nag: acknowledged (the default: done, snooze, an edit or nudge ack ends the repeats) or seen "
                + "(closing the notification ends them too).",
            valueName: "until"
        )
    )
    var nagUntil: Until?

    @Option(help: ArgumentHelp("With --nag: repeats after the Nth come at high priority.", valueName: "n"))
    var escalateAfter: Int?

    /// Whether any of the three was given.
    var isGiven: Bool { nag != nil || nagUntil != nil || escalateAfter != nil }

    /// The nag asked for, refused as nudged would refuse it; nil without --nag.
    func requested() throws -> Nag? {
        guard var nag else {
            if isGiven {
                throw ValidationError(
                    "--nag-until and --escalate-after go with --nag, which says how often: --nag 10m,5"
                )
            }
            return nil
        }
        nag.untilSeen = nagUntil == .seen
        nag.escalateAfter = escalateAfter
        do {
            return try nag.validated()
        } catch {
            throw ValidationError(error.description)
        }
    }
}
