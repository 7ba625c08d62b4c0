import Foundation
import Logging
import NudgeCore

/// Runs the user's program for every fired reminder (`nudged --on-fire PROGRAM [ARG...]`), by argument vector and
/// never through a shell, with the reminder in its environment: NUDGE_ITEM_ID, NUDGE_TEXT, NUDGE_LIST, NUDGE_DUE
/// (ISO 8601, UTC), NUDGE_LATE (whole seconds after the due instant; 0 when on time) and NUDGE_PRIORITY (low,
/// normal or high); for a recurring item, NUDGE_REPEAT (its rule) and, when one late fire stands for several
/// occurrences, NUDGE_COALESCED (how many); for an advance warning, NUDGE_WARNING (how long before NUDGE_DUE, ISO
/// 8601; NUDGE_LATE then counts from the warning's instant); for a repeat of a fire not acknowledged (`Nag`),
/// NUDGE_REPEAT_COUNT (which repeat: 1, 2, …; NUDGE_DUE is the due instant that fired, NUDGE_LATE counts from the
/// repeat's instant, and NUDGE_COALESCED says how many repeats one late repeat stands for). For the day's digest of
/// items due on a day (or a follow-up to it), it runs with NUDGE_DIGEST (the day, YYYY-MM-DD), NUDGE_ITEM_IDS (those
/// it brings, separated by spaces; at most 1,000), NUDGE_TEXT (what it brings, as one line), NUDGE_DUE (the digest
/// instant) and NUDGE_LATE, and no NUDGE_ITEM_ID. Its output goes to nudged's stderr; its exit status is logged.
public struct CommandSink: ReminderSink {
    public let name = "command"
    public let program: [String]
    public let timeout: Duration
    private let runner: any ProcessRunner
    private let logger: Logger

    public init(program: [String], timeout: Duration, runner: any ProcessRunner = SpawningRunner(), logger: Logger) {
        precondition(!program.isEmpty, "a command sink needs a program")
        self.program = program
        self.timeout = timeout
        self.runner = runner
        self.logger = logger
    }

    public func deliver(_ delivery: Delivery) async {
        let outcome = await runner.run(command(for: delivery))
        let itemID = delivery.reminder.itemID
        let line: Logger.Message = "on-fire \(program[0]) for item \(itemID) \(outcome.describe(timeout: timeout))"
        if outcome.succeeded { logger.info(line) } else { logger.warning(line) }
    }

    public func deliver(digest: DigestDelivery) async {
        let outcome = await runner.run(command(for: digest))
        let line: Logger.Message =
            "on-fire \(program[0]) for the digest of \(digest.digest.day) \(outcome.describe(timeout: timeout))"
        if outcome.succeeded { logger.info(line) } else { logger.warning(line) }
    }

    func command(for digest: DigestDelivery) -> ProcessCommand {
        let environment = [
            "NUDGE_DIGEST": digest.digest.day.iso,
            // At most `itemIDLimit`: Linux refuses a variable over 128 KiB, and a program that needs all reads the API.
            "NUDGE_ITEM_IDS": digest.itemIDs.map(String.init).joined(separator: " "),
            "NUDGE_TEXT": digest.summary,
            "NUDGE_DUE": InstantFormat.format(digest.instant),
            "NUDGE_LATE": String(Int(max(digest.lateBy, 0).rounded(.down))),
        ]
        return ProcessCommand(program[0], Array(program.dropFirst()), environment: environment, timeout: timeout)
    }

    func command(for delivery: Delivery) -> ProcessCommand {
        let reminder = delivery.reminder
        var environment = [
            "NUDGE_ITEM_ID": String(reminder.itemID),
            "NUDGE_TEXT": reminder.text,
            "NUDGE_LIST": reminder.listName,
            "NUDGE_DUE": InstantFormat.format(reminder.due),
            "NUDGE_LATE": String(Int(max(delivery.lateBy, 0).rounded(.down))),
        ]
        environment["NUDGE_REPEAT_COUNT"] = reminder.repeating.map { String($0.number) }
        environment["NUDGE_PRIORITY"] = reminder.priority.rawValue
        environment["NUDGE_REPEAT"] = reminder.rule?.expression
        environment["NUDGE_COALESCED"] = delivery.coalesced.map(String.init)
        environment["NUDGE_WARNING"] = delivery.warning.map(DurationText.iso8601)
        return ProcessCommand(
            program[0],
            Array(program.dropFirst()),
            environment: environment,
            timeout: timeout
        )
    }
}
