import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge add TEXT [--list NAME] [--due WHEN] [--repeat RULE | --rrule RRULE | --repeat-after LENGTH] [--warn LEADS]
/// [--remind|--no-remind]`: POST /v1/items.
struct AddCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an item to a checklist and print it.",
        discussion: """
            Prints the new item as 'nudge ls' shows it, with its list; with --quiet, its ID alone, so a script can \
            capture it:

              id=$(nudge add water the plants --due "today 17:00" --quiet)

            --due, --repeat and --repeat-after imply --remind: an item with a due date reminds you when it falls \
            due, unless --no-remind is given. Without --list the item goes to the default list (see 'nudge list \
            default'). With --repeat, --due says when the series starts (its first occurrence at or after it):

              nudge add standup --repeat "Mon..Fri 09:30"
              nudge add "pay rent" --repeat "*-*-01 09:00" --due 2027-01-01
              nudge add "change the water filter" --repeat-after 8w --due sat
              nudge add "bins out" --rrule "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" --due "tue 19:00"

            \(SharedArguments.whenDiscussion)

            \(SharedArguments.repeatDiscussion)

            \(SharedArguments.policyDiscussion)
            """
    )

    @Argument(help: "What to do; several words are joined with spaces.")
    var text: [String]

    @Option(
        help: ArgumentHelp(
            "The list to add it to, by name, ignoring case (default: the default list, Inbox unless you chose another).",
            valueName: "name"
        )
    )
    var list: String?

    @Option(
        help: ArgumentHelp("When it is due (see below); implies --remind.", valueName: "when"),
        transform: SharedArguments.parseWhen
    )
    var due: WhenText?

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp("Repeat by this calendar rule (see below); implies --remind.", valueName: "rule")
    )
    var repeatRule: String?

    @Option(
        help: ArgumentHelp(
            "Repeat by this RFC 5545 RRULE value instead (see below); implies --remind.",
            valueName: "rrule"
        )
    )
    var rrule: String?

    @Option(
        help: ArgumentHelp(
            "Repeat this long after each check-off, e.g. 2w (see below); implies --remind.",
            valueName: "length"
        ),
        transform: RepeatAfter.parse
    )
    var repeatAfter: TimeInterval?

    @Option(
        help: ArgumentHelp("How urgent: low, normal (the default) or high.", valueName: "priority"),
        transform: Priority.init(validating:)
    )
    var priority: Priority?

    @Option(
        help: ArgumentHelp("Fire when found late: always, never or within DURATION (see below).", valueName: "rule"),
        transform: CatchUp.init(validating:)
    )
    var catchUp: CatchUp?

    @Option(
        help: ArgumentHelp("Warn this long before the due date, e.g. 1h,10m (see below).", valueName: "leads"),
        transform: Warnings.parse
    )
    var warn: [TimeInterval]?

    @Flag(
        inversion: .prefixedNo,
        help: "Whether to remind when it falls due (default: --remind with --due or a repeat, else --no-remind)."
    )
    var remind: Bool?

    @OptionGroup var nag: NagOptions

    @Flag(name: .shortAndLong, help: "Print the new item's ID alone, for scripts.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    mutating func validate() throws {
        _ = try SharedArguments.text(text)
        _ = try nag.requested()
        // --rrule is a repeat rule too, said another way: from here on, one.
        repeatRule = try SharedArguments.repeatRule(expression: repeatRule, recurrence: rrule)
        if repeatRule != nil, repeatAfter != nil {
            throw ValidationError(
                "--\(rrule == nil ? "repeat" : "rrule") and --repeat-after are two ways to repeat; give one: a rule "
                    + "repeats on the calendar, a length after each check-off"
            )
        }
    }

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            // Dates and what is shown about them go by nudged's clock, which may be a manual one.
            let look = global.look(now: try await client.now())
            let due = try self.due?.due(now: look.now)
            let request = Components.Schemas.NewItem(
                text: try SharedArguments.text(text),
                list: list,
                dueDate: due?.instant.map(Instant.init),
                dueDay: due?.day,
                shouldRemind: remind ?? (due != nil || repeatRule != nil || repeatAfter != nil ? true : nil),
                _repeat: repeatRule,
                repeatAfter: repeatAfter.map(DurationText.iso8601),
                priority: priority.map { Components.Schemas.Priority(rawValue: $0.rawValue)! },
                catchUp: catchUp?.description,
                warnings: warn?.map(DurationText.iso8601),
                nag: try nag.requested()?.description
            )
            let item = try await client.call { try await $0.createItem(body: .json(request)).created.body.json }
            if let note = Render.pastDueNote(item, look: look) { Output.error(note) }
            if let note = Render.warningsWithoutDueNote(item) { Output.error(note) }
            if global.json { return Output.json(item) }
            Output.line(quiet ? String(item.itemID) : Render.itemSummary(item, look: look))
        }
    }
}
