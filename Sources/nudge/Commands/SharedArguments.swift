import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// Reading the arguments several commands share: a due date as people type it, and an icon name.
enum SharedArguments {
    static let whenDiscussion = """
        WHEN is local time unless it names an offset: 2026-12-01T09:00, "2026-12-01 9:30pm", "today 17:00", \
        "tomorrow 9am", "fri at 5pm", noon, "in 10m", "in 1h30m", +2h, now. For --due, a day alone (fri, \
        "dec 1", 2026-12-01, today) is due all that day: it reminds at 09:00 and is overdue from the next day; \
        elsewhere a day alone means 09:00 that day. A time alone means its next occurrence. "now" fires at once; a time further in the past is kept, but no \
        reminder fires for it (nudge says so).
        """

    /// An `--rrule` value as the repeat the API takes: an RRULE value becomes an `RRULE:` line, which nudged counts
    /// from the due date; a whole recurrence (lines from RRULE: or DTSTART) is passed as it is.
    static func recurrence(_ value: String) -> String {
        Recurrence.isRecurrence(value) ? value : "RRULE:" + value
    }

    /// `--repeat` or `--rrule`, whichever was given, as the API's repeat; both given is refused.
    static func repeatRule(expression: String?, recurrence: String?) throws -> String? {
        if expression != nil, recurrence != nil {
            throw ValidationError(
                "--repeat and --rrule are two ways to say a repeat rule; give one: --repeat takes a calendar "
                    + "expression, --rrule an RFC 5545 RRULE value"
            )
        }
        return expression ?? recurrence.map(Self.recurrence)
    }

    static let repeatDiscussion = """
        RULE is a systemd calendar expression (systemd.time(7)), the language of OnCalendar=: "Mon..Fri 09:30", \
        daily, weekly, "*-*~1 18:00" (the last day of each month), "Sat,Sun 10:00", "*-*-* 9..17:00" (hourly in \
        working hours), "Mon 09:00 Europe/Berlin". Try one with 'nudge calendar RULE'. The item is due at the \
        rule's next occurrence; each fire schedules the one after. Occurrences must be at least a second apart.

        --rrule VALUE repeats by an RFC 5545 recurrence rule instead, as calendar programs write them, for what a \
        calendar expression cannot say: every other week, the first Monday, ten times, until a date. \
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", "FREQ=MONTHLY;BYDAY=1MO", "FREQ=DAILY;COUNT=10". The series is counted \
        from --due (or now), in nudged's zone, and libical evaluates it; at most 24 times a day (a calendar expression \
        repeats more often). A whole recurrence works too: "DTSTART;TZID=Europe/Berlin:20270105T090000 \
        RRULE:FREQ=WEEKLY;INTERVAL=2 EXDATE;TZID=Europe/Berlin:20270119T090000". Not with --repeat.

        --repeat-after LENGTH repeats after completion instead, for what comes round some time after it was last \
        done (a haircut, a filter): checking the item off leaves it open and due again LENGTH after the moment \
        ('nudge done', Done on its notification); an item due on a day, that many days after the day it was done \
        (rounded up to whole days). LENGTH is 1h to 3660d: 2w, 10d, 36h. Not with --repeat; 'done --stop' checks it \
        off for good.
        """

    static let policyDiscussion = """
        --priority low|normal|high sets how urgent the reminder is: desktop urgency low, normal or critical, the \
        journal's PRIORITY (6, 5, 2) and a command's NUDGE_PRIORITY. --catch-up always|never|DURATION says whether \
        a reminder nudged finds late (it was not running, the machine slept) still fires: always, never (only on \
        time), or if at most that late (2h); otherwise it is reported missed. Without it, nudged's \
        --catch-up-window decides. --warn 1h,10m sends advance warnings that long before the due date ("due in \
        1h"), then the reminder itself; up to 8, each at most 366 days. A warning already past when set does not \
        fire; an edit replaces the warnings with the reminder, and checking the item off cancels them.
        """

    /// `--due`: parsed when the arguments are, so a mistake is a usage error (exit 2) naming the part not understood.
    @Sendable static func parseDue(_ text: String) throws -> Date {
        try TimeInput(now: Date(), timeZone: .current).parse(text)
    }

    /// `--due` and the like, for a command that talks to nudged: checked as the arguments are read, but read as an
    /// instant only against nudged's clock (`WhenText.date(now:)`).
    @Sendable static func parseWhen(_ text: String) throws -> WhenText {
        _ = try parseDue(text)
        return WhenText(text: text)
    }

    static let iconNames = IconName.allCases.map(\.rawValue)

    static let iconDiscussion =
        "Icons: " + iconNames.joined(separator: ", ") + " (any case; quote names with spaces: \"no icon\")."

    /// The bytes of a command's input file (`-`: standard input), refused here if nudged would refuse them for their
    /// size.
    static func input(_ file: String) throws(CLIError) -> Data {
        let data: Data
        do {
            data =
                file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(filePath: file))
        } catch {
            throw .usage("cannot read \(file): \((error as NSError).localizedDescription)")
        }
        let limit = APILimits.maximumBodySize
        guard data.count <= limit else {
            throw .usage(
                "\(file) is \(data.count) bytes, and nudged takes at most \(limit) bytes (1 MiB) at a time; split it"
            )
        }
        return data
    }

    /// An item's text, from one or several words.
    static func text(_ words: [String]) throws -> String {
        let text = words.joined(separator: " ")
        guard !text.allSatisfy(\.isWhitespace) else { throw ValidationError("the text is empty; say what to do") }
        return text
    }
}
