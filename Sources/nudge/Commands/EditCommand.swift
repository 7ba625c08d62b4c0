import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// `nudge edit ID [--text T] [--due WHEN | --no-due] [--repeat RULE | --repeat-after LENGTH | --no-repeat]
/// [--warn LEADS | --no-warn] [--remind|--no-remind] [--list NAME]`: PATCH /v1/items/ID.
struct EditCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change an item's text, due date, repeat rule, warnings, reminder or list.",
        discussion: """
            Fields not given stay as they are; at least one change is required. Any edit replaces the item's \
            pending reminder. Unlike 'add', --due here does not switch reminding on; add --remind for that:

              nudge edit 7 --due "tomorrow 9am" --remind
              nudge edit 7 --no-due
              nudge edit 7 --repeat "Mon,Wed,Fri 07:00"
              nudge edit 7 --repeat-after 2w
              nudge edit 7 --no-repeat

            On a recurring item, --repeat or --due restarts the series at the rule's first occurrence at or after \
            the due date (or after now); --no-repeat ends the series and keeps the next occurrence as a one-off \
            due date; --no-due ends it and removes the due date. --repeat-after takes the place of a rule, and \
            --repeat of a --repeat-after; --no-repeat ends either, and --no-due leaves a --repeat-after (the next \
            check-off sets a due date again).

            \(SharedArguments.whenDiscussion)

            \(SharedArguments.repeatDiscussion)

            \(SharedArguments.policyDiscussion) --catch-up default goes back to nudged's window.
            """
    )

    @Argument(help: "The item's ID, as 'nudge ls' shows it.")
    var id: Int

    @Option(help: ArgumentHelp("The new text.", valueName: "text"))
    var text: String?

    @Option(
        help: ArgumentHelp("The new due date (see below).", valueName: "when"),
        transform: SharedArguments.parseWhen
    )
    var due: WhenText?

    @Flag(help: "Remove the due date (and so any pending reminder, and any repeat rule).")
    var noDue = false

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp("Repeat by this calendar rule (see below).", valueName: "rule")
    )
    var repeatRule: String?

    @Option(help: ArgumentHelp("Repeat by this RFC 5545 RRULE value instead (see below).", valueName: "rrule"))
    var rrule: String?

    @Option(
        help: ArgumentHelp("Repeat this long after each check-off instead, e.g. 2w.", valueName: "length"),
        transform: RepeatAfter.parse
    )
    var repeatAfter: TimeInterval?

    @Flag(help: "End the repeating (--repeat or --repeat-after): the item no longer repeats.")
    var noRepeat = false

    @Option(
        help: ArgumentHelp("How urgent: low, normal or high.", valueName: "priority"),
        transform: Priority.init(validating:)
    )
    var priority: Priority?

    /// `--catch-up`: a rule of the item's own, or `default` for nudged's window.
    enum CatchUpChoice: Equatable {
        case own(CatchUp)
        case daemons

        var rule: CatchUp? { if case .own(let rule) = self { rule } else { nil } }
    }

    @Option(
        help: ArgumentHelp(
            "Fire when found late: always, never, within DURATION, or default (nudged's window).",
            valueName: "rule"
        ),
        transform: { text in text.lowercased() == "default" ? .daemons : .own(try CatchUp(validating: text)) }
    )
    var catchUp: CatchUpChoice?

    @Option(
        help: ArgumentHelp("Warn this long before the due date instead, e.g. 1h,10m.", valueName: "leads"),
        transform: Warnings.parse
    )
    var warn: [TimeInterval]?

    @Flag(help: "Remove the advance warnings.")
    var noWarn = false

    @Flag(inversion: .prefixedNo, help: "Whether to remind when it falls due.")
    var remind: Bool?

    @OptionGroup var nag: NagOptions

    @Flag(help: "Stop repeating its fired reminder until acknowledged.")
    var noNag = false

    @Option(help: ArgumentHelp("Move it to this list, by name, ignoring case.", valueName: "name"))
    var list: String?

    @OptionGroup var global: GlobalOptions

    mutating func validate() throws {
        // --rrule is a repeat rule too, said another way: from here on, one.
        repeatRule = try SharedArguments.repeatRule(expression: repeatRule, recurrence: rrule)
        let setAndCleared = [
            ("due", due != nil, noDue), ("repeat", repeatRule != nil, noRepeat), ("warn", warn != nil, noWarn),
        ]
        // The option the user gave, where --rrule stands for --repeat.
        func given(_ name: String) -> String { name == "repeat" && rrule != nil ? "rrule" : name }
        for (name, set, cleared) in setAndCleared where set && cleared {
            throw ValidationError("--\(given(name)) and --no-\(name) contradict each other; give one of them")
        }
        if nag.isGiven, noNag {
            throw ValidationError("--nag (with --nag-until, --escalate-after) and --no-nag contradict; give one")
        }
        _ = try nag.requested()
        if repeatAfter != nil, repeatRule != nil || noRepeat {
            let other = noRepeat ? "no-repeat" : given("repeat")
            throw ValidationError("--repeat-after and --\(other) contradict each other; give one of them")
        }
        if text == nil && due == nil && !noDue && remind == nil && list == nil && repeatRule == nil && !noRepeat
            && repeatAfter == nil && priority == nil && catchUp == nil && warn == nil && !noWarn && !nag.isGiven
            && !noNag
        {
            throw ValidationError(
                "nothing to change: give --text, --due, --no-due, --repeat, --rrule, --repeat-after, --no-repeat, "
                    + "--priority, --catch-up, --warn, --no-warn, --nag, --no-nag, --remind, --no-remind or --list"
            )
        }
        if let text, text.allSatisfy(\.isWhitespace) {
            throw ValidationError("--text is empty; say what to do")
        }
    }

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            // Dates and what is shown about them go by nudged's clock, which may be a manual one.
            let look = global.look(now: try await client.now())
            let due = try self.due?.due(now: look.now)
            let patch = ItemPatch(
                ItemEdit(
                    text: text,
                    dueDate: due?.instant,
                    dueDay: due?.day,
                    clearsDueDate: noDue,
                    shouldRemind: remind,
                    repeatRule: repeatRule,
                    repeatAfter: repeatAfter,
                    clearsRepeat: noRepeat,
                    priority: priority,
                    catchUp: catchUp?.rule,
                    clearsCatchUp: catchUp == .daemons,
                    warnings: noWarn ? [] : warn,
                    nag: try nag.requested(),
                    clearsNag: noNag
                ),
                list: list
            )
            let item = try await client.call {
                try await $0.updateItem(path: .init(id: id), body: .json(patch)).ok.body.json
            }
            if self.due != nil, let note = Render.pastDueNote(item, look: look) { Output.error(note) }
            if warn != nil || noDue, let note = Render.warningsWithoutDueNote(item) { Output.error(note) }
            if global.json { return Output.json(item) }
            Output.line(Render.itemSummary(item, look: look))
        }
    }
}
