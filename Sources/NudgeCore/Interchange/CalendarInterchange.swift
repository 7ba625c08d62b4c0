import Foundation
import NudgeCalendar
import NudgeRecurrence

/// Items as iCalendar tasks (RFC 5545 VTODO) and back, for `nudge export` and `nudge import`.
///
/// An item is a VTODO: UID (`uid(of:storeID:)`), SUMMARY, DUE (a date, `DUE;VALUE=DATE`, for an item due on a day),
/// STATUS (and COMPLETED), PRIORITY, if it reminds a VALARM at the due instant (09:00 of a day: `PT9H` after its
/// start, `PT8H` or `PT10H` on a day the clocks change) and one per advance warning before it, RRULE where its repeat rule has an exact
/// one (`RecurrenceRuleMapping`), and `X-NUDGE-ONCALENDAR`, the repeat rule as nudge holds it, always. Reading
/// back, `X-NUDGE-ONCALENDAR` wins over RRULE. A repeat after completion is `X-NUDGE-REPEAT-AFTER`, an ISO 8601
/// duration, which only nudge reads.
public enum CalendarInterchange {
    /// The UID of an item nudge made: its ID and the store's, so it is the same at every export and unique
    /// across stores. An item imported with a UID of its own keeps that one.
    public static func uid(of item: ChecklistItem, storeID: String) -> String {
        item.calendarUID ?? "\(item.itemID)-\(storeID)@nudge"
    }

    /// The item ID in a UID `uid(of:storeID:)` made for this store, or nil.
    public static func itemID(fromUID uid: String, storeID: String) -> Int? {
        let suffix = "-\(storeID)@nudge"
        guard uid.hasSuffix(suffix) else { return nil }
        return Int(uid.dropLast(suffix.count)).flatMap { $0 > 0 ? $0 : nil }
    }

    // MARK: Writing

    /// A VCALENDAR of the items, in the order given. Wall times of repeat rules are in `timeZone` (the daemon's).
    /// The same items give the same bytes: DTSTAMP is the item's last change, as RFC 5545 says it is without a
    /// METHOD.
    public static func document(
        of entries: [(item: ChecklistItem, list: Checklist)],
        storeID: String,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    ) -> String {
        var tasks: [String] = []
        // Each zone a repeat's DTSTART names, in order of first use, with the earliest due date that names it: one
        // VTIMEZONE per zone, from there on, describes every repeat in it (what it says from an instant holds from any
        // later one).
        var zoneNames: [String] = []
        var earliest: [String: Date] = [:]
        for (item, list) in entries {
            let (lines, zone) = task(item, in: list, storeID: storeID, timeZone: timeZone, zones: zones)
            tasks += lines
            if let zone {
                if earliest[zone.name] == nil { zoneNames.append(zone.name) }
                earliest[zone.name] = min(earliest[zone.name] ?? zone.from, zone.from)
            }
        }
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nudge//nudge \(NudgeVersion.current)//EN"]
        for name in zoneNames {
            if let from = earliest[name], let component = timeZoneComponent(name, from: from, zones: zones) {
                lines += component
            }
        }
        lines += tasks
        lines.append("END:VCALENDAR")
        return lines.map { ICalendarText.folded($0) }.joined()
    }

    private static func task(
        _ item: ChecklistItem,
        in list: Checklist,
        storeID: String,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    )
        -> (lines: [String], zone: (name: String, from: Date)?)
    {
        let text = ICalendarText.escaped(item.text)
        var lines = [
            "BEGIN:VTODO",
            "UID:" + ICalendarText.escaped(uid(of: item, storeID: storeID)),
            "DTSTAMP:" + utc(item.updatedAt),
            "CREATED:" + utc(item.createdAt),
            "LAST-MODIFIED:" + utc(item.updatedAt),
            "SUMMARY:" + text,
            "CATEGORIES:" + ICalendarText.escaped(list.name),
            "PRIORITY:\(priorityNumber(item.priority))",
            "STATUS:" + (item.checked ? "COMPLETED" : "NEEDS-ACTION"),
        ]
        // An item checked off before nudge kept the moment has only its last change to say.
        if item.checked { lines.append("COMPLETED:" + utc(item.completedAt ?? item.updatedAt)) }
        let repeatRule = item.repeatRule.flatMap { try? RepeatRule($0, localZone: timeZone, zones: zones) }
        var zone: (name: String, from: Date)?
        if let due = item.dueDate {
            // The repeat, with DTSTART and DUE, where RFC 5545's lines say it. An expression's wall times are
            // floating (the reader's local time, as an expression without a zone means), UTC, or in the zone it
            // names, which the document then describes in a VTIMEZONE.
            var repeatLines: [String]?
            if let recurrence = repeatRule?.recurrence {
                (repeatLines, zone) = recurrenceLines(recurrence, dueAt: due, timeZone: timeZone)
            } else if let spec = repeatRule?.spec,
                let (rule, wallZone) = RecurrenceRuleMapping.recurrenceRule(for: spec)
            {
                var start: String?
                switch wallZone {
                case .utc: start = ":" + utc(due)
                case .floating: start = ":" + wallTime(due, in: timeZone)
                case .named(let name):
                    if let named = TimeZone(identifier: name), canDescribe(name, from: due, zones: zones) {
                        start = ";TZID=\(name):" + wallTime(due, in: named)
                        zone = (name, due)
                    }
                }
                repeatLines = start.map { ["DTSTART" + $0, "DUE" + $0, "RRULE:" + rule] }
            }
            lines += repeatLines ?? []
            if let day = item.dueDay {
                lines.append("DUE;VALUE=DATE:" + day.iso.filter(\.isNumber))
            } else if repeatLines == nil {
                lines.append("DUE:" + utc(due))
            }
        }
        // A recurrence is all in its standard lines; an expression is said exactly only here.
        if let rule = item.repeatRule, repeatRule?.recurrence == nil {
            lines.append("X-NUDGE-ONCALENDAR:" + ICalendarText.escaped(rule))
        }
        // Other programs see a one-off task; checked off there and read back, it comes round again here.
        if let length = item.repeatAfter { lines.append("X-NUDGE-REPEAT-AFTER:" + DurationText.iso8601(length)) }
        // Warnings come with the reminder: without it they never fire.
        if let due = item.dueDate, item.shouldRemind {
            lines += alarmLines(text: text, due: due, dueDay: item.dueDay, warnings: item.warnings, timeZone: timeZone)
        }
        lines.append("END:VTODO")
        return (lines, zone)
    }

    /// The VALARMs of a task (its SUMMARY, `text`, escaped) that reminds at `due` and warns `warnings` before it.
    static func alarmLines(
        text: String,
        due: Date,
        dueDay: CalendarDay?,
        warnings: [TimeInterval],
        timeZone: TimeZone
    ) -> [String] {
        // Counted from DUE; a day's DUE is its start (RFC 5545 §3.8.6.3), and nudge reminds at 09:00 of it:
        // nine hours after it, or eight or ten on a day the clocks change.
        let fromDue = dueDay.map { due.timeIntervalSince($0.start(in: timeZone)) } ?? 0
        let triggers = (warnings.map { $0.rounded() } + [0]).map { lead in
            let offset = fromDue - lead
            return (offset < 0 ? "-" : "") + DurationText.iso8601(abs(offset))
        }
        return triggers.flatMap { trigger in
            [
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + text, "TRIGGER;RELATED=END:" + trigger,
                "END:VALARM",
            ]
        }
    }

    /// A recurrence's lines: DTSTART and DUE at the occurrence due now (`Recurrence.startingAt`: other programs
    /// take DTSTART for the first due date), RRULE, EXDATE and RDATE; and the zone they name, if any, from that start.
    private static func recurrenceLines(
        _ recurrence: Recurrence,
        dueAt due: Date,
        timeZone: TimeZone
    ) -> (lines: [String], zone: (name: String, from: Date)?) {
        // An addition (RDATE) the rule does not give cannot be a start: the series is then written from its own.
        let series = recurrence.startingAt(due, in: timeZone) ?? recurrence
        let own = series.text.split(separator: " ").map(String.init)
        let start = own[0].dropFirst("DTSTART".count)
        var zone: (name: String, from: Date)?
        if case .named(let name) = series.zone, let first = series.startInstant(in: timeZone) {
            zone = (name, first)
        }
        return ([own[0], "DUE" + start] + own.dropFirst(), zone)
    }

    /// Whether `timeZoneComponent` can describe zone `name` from `instant` on, without building the component.
    private static func canDescribe(_ name: String, from instant: Date, zones: ZoneRulesStore) -> Bool {
        zones.seasons(named: name, from: instant) != nil || zones.changes(named: name, from: instant) != nil
    }

    /// A VTIMEZONE for zone `name` as its rules stand from `instant` (a repeat's first due date) on (`ZoneSeasons`):
    /// one yearly season, or a standard and a daylight one, each from its first onset in 1970, as calendar programs
    /// commonly describe a zone; or, for a zone whose file lists changes its closing rule does not make
    /// (`ZoneChanges`: Africa/Casablanca, Asia/Gaza), each change from the one in force at `instant` on, as a DTSTART
    /// and RDATEs per observance, then the closing rule's seasons from their first onsets after the last. Readers
    /// that know the zone by name use their own rules; the others need this. Nil if the rules cannot be said so: the
    /// repeat is then exported as one in another zone is, without RRULE.
    private static func timeZoneComponent(_ name: String, from instant: Date, zones: ZoneRulesStore) -> [String]? {
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + name]
        if let seasons = zones.seasons(named: name, from: instant) {
            lines += observances(of: seasons, after: nil)
        } else if let listed = zones.changes(named: name, from: instant) {
            lines += observances(of: listed.changes)
            if let closing = listed.closingSeasons, let last = listed.changes.last {
                lines += observances(of: closing, after: last.at)
            }
        } else {
            return nil
        }
        return lines + ["END:VTIMEZONE"]
    }

    /// `+0130`: a VTIMEZONE's offset.
    private static func utcOffsetText(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + String(format: "%02d%02d", minutes / 60, minutes % 60)
    }

    /// Listed changes as observances: one per kind of change, in the order they first come, each change at its wall
    /// time before.
    private static func observances(of changes: [ZoneChanges.Change]) -> [String] {
        var observances: [(key: [Int], name: String, onsets: [String])] = []
        for change in changes {
            let key = [change.utcOffsetBefore, change.utcOffset]
            let onset = wallTime(
                Date(timeIntervalSince1970: TimeInterval(change.at + Int64(change.utcOffsetBefore))),
                in: .gmt
            )
            if let index = observances.firstIndex(where: { $0.key == key && $0.name == change.name }) {
                observances[index].onsets.append(onset)
            } else {
                observances.append((key, change.name, [onset]))
            }
        }
        var lines: [String] = []
        for observance in observances {
            // As with seasons: the change to the larger offset starts DAYLIGHT.
            let kind = observance.key[1] > observance.key[0] ? "DAYLIGHT" : "STANDARD"
            lines += [
                "BEGIN:" + kind, "TZOFFSETFROM:" + utcOffsetText(observance.key[0]),
                "TZOFFSETTO:" + utcOffsetText(observance.key[1]), "TZNAME:" + ICalendarText.escaped(observance.name),
                "DTSTART:" + observance.onsets[0],
            ]
            if observance.onsets.count > 1 {
                lines.append("RDATE:" + observance.onsets.dropFirst().joined(separator: ","))
            }
            lines.append("END:" + kind)
        }
        return lines
    }

    /// A zone's seasons as observances, each from its first onset after `after` (seconds since the epoch), or in
    /// 1970: one per season, or per month a shifted onset can start in.
    private static func observances(of seasons: ZoneSeasons, after: Int64?) -> [String] {
        func observances(_ kind: String, _ season: ZoneSeasons.Season) -> [String] {
            let head = [
                "BEGIN:" + kind, "TZOFFSETFROM:" + utcOffsetText(season.utcOffsetBefore),
                "TZOFFSETTO:" + utcOffsetText(season.utcOffset), "TZNAME:" + ICalendarText.escaped(season.name),
            ]
            guard let onset = season.start else { return head + ["DTSTART:19700101T000000", "END:" + kind] }
            let firstYear = after.map { Int(CivilCalendar.date(daysSinceEpoch: $0 / 86_400).year) } ?? 1970
            var lines: [String] = []
            for (month, rule) in RecurrenceRuleMapping.yearlyRules(onset) {
                // Every month a rule names has an onset within 28 years, as weekdays and leap years repeat.
                let first = (firstYear...(firstYear + 29)).lazy.map { onset.date(in: $0) }.first { date in
                    let day = CivilCalendar.daysSinceEpoch(
                        year: Int64(date.year),
                        month: Int64(date.month),
                        day: Int64(date.day)
                    )
                    let at = day * 86_400 + Int64(onset.secondsAfterMidnight - season.utcOffsetBefore)
                    return date.month == month && at > (after ?? .min)
                }
                guard let first else { continue }
                let time = onset.secondsAfterMidnight
                lines +=
                    head + [
                        String(
                            format: "DTSTART:%04d%02d%02dT%02d%02d%02d",
                            first.year,
                            first.month,
                            first.day,
                            time / 3600,
                            time / 60 % 60,
                            time % 60
                        ),
                        "RRULE:" + rule,
                        "END:" + kind,
                    ]
            }
            return lines
        }
        guard let daylight = seasons.daylight else { return observances("STANDARD", seasons.standard) }
        // Readers take DAYLIGHT for the season of the larger offset, as summer time mostly is (Python's icalendar
        // moves Dublin's spring change an hour otherwise). tzdata gives Dublin a negative saving, IST standard and
        // GMT its winter "daylight"; written as readers expect, the winter is STANDARD.
        let (winter, summer) =
            daylight.utcOffset >= seasons.standard.utcOffset
            ? (seasons.standard, daylight) : (daylight, seasons.standard)
        return observances("STANDARD", winter) + observances("DAYLIGHT", summer)
    }

    /// RFC 5545: 1 is the highest, 5 medium, 9 the lowest.
    static func priorityNumber(_ priority: Priority) -> Int {
        switch priority {
        case .high: 1
        case .normal: 5
        case .low: 9
        }
    }

    static func utc(_ date: Date) -> String {
        wallTime(date, in: .gmt) + "Z"
    }

    /// `20261201T090000`: the wall time of `date` in `zone`, to the second.
    private static func wallTime(_ date: Date, in zone: TimeZone) -> String {
        let wall = LocalTime(timeZone: zone).wallClock(at: date).wall
        let t = BrokenDownTime(wallSeconds: Int64(wall), dstFlag: 0, utcOffset: 0)
        return String(format: "%04d%02d%02dT%02d%02d%02d", t.year, t.month0 + 1, t.day, t.hour, t.minute, t.second)
    }

    // MARK: Reading

    /// The tasks of a document, and what was skipped (events, journals, tasks without a summary, a UID seen
    /// before). Floating and date-only times are read in `timeZone`; a task due on a day, without a time, is due on
    /// that day (reminding at 09:00 of it), and alarms count from the day's start. A component outside any VCALENDAR is read as if inside one. Anything out of shape is an
    /// error naming the line, and nothing is read.
    public static func tasks(in text: String, timeZone: TimeZone, zones: ZoneRulesStore) throws(ModelError) -> (
        tasks: [CalendarTask], skipped: [CalendarImportResult]
    ) {
        let topLevel = try ICalendarText.components(of: text)
        guard !topLevel.isEmpty else {
            throw ICalendarText.error(1, "there is no BEGIN:VCALENDAR (nor a BEGIN:VTODO)")
        }
        // Evolution writes a lone VTODO.
        let components = topLevel.flatMap { $0.name == "VCALENDAR" ? $0.components : [$0] }
        var tasks: [CalendarTask] = []
        var skipped: [CalendarImportResult] = []
        var seen: [String: Int] = [:]
        for component in components {
            let uid = component.property("UID")?.text
            let summary = component.property("SUMMARY")?.text
            func skip(_ reason: String) {
                skipped.append(
                    CalendarImportResult(
                        line: component.line,
                        uid: uid,
                        summary: summary,
                        outcome: .skipped,
                        notes: [reason],
                        component: component.name
                    )
                )
            }
            switch component.name {
            case "VTODO": break
            case "VTIMEZONE": continue
            case "VEVENT": skip("an event (VEVENT): nudge imports tasks (VTODO) only")
            default: skip("a \(component.name): nudge imports tasks (VTODO) only")
            }
            guard component.name == "VTODO" else { continue }
            if component.property("RECURRENCE-ID") != nil {
                skip("it changes one occurrence of a recurring task (RECURRENCE-ID), which nudge does not keep")
                continue
            }
            guard let summary, !summary.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                skip("it has no SUMMARY, and an item needs a text")
                continue
            }
            if let uid, let first = seen[uid] {
                skip("its UID was already imported from line \(first)")
                continue
            }
            if let uid { seen[uid] = component.line }
            tasks.append(try task(component, summary: summary, timeZone: timeZone, zones: zones))
        }
        return (tasks, skipped)
    }

    private static func task(
        _ component: ICalendarComponent,
        summary: String,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    )
        throws(ModelError) -> CalendarTask
    {
        var notes: [String] = []
        let dueProperty = try component.property("DUE").map { property throws(ModelError) in
            try dateTime(property, timeZone: timeZone, zones: zones, notes: &notes)
        }
        // nudge keeps no start, and reads one only to place a repeat, an alarm or a DURATION: a start it cannot read
        // is left out, as a program that wrote such a file reads the rest (ical4android's test files).
        // What depends on the start (a repeat, alarms counted from it) is then left out too, and said.
        var start: (instant: Date, start: WallTime, zone: RecurrenceRuleMapping.Zone)?
        var startUnreadable = false
        if let property = component.property("DTSTART") {
            do throws(ModelError) {
                start = try dateTime(property, timeZone: timeZone, zones: zones, notes: &notes)
            } catch {
                startUnreadable = true
                notes.append("\(error.description): left out, and the task read without a start")
            }
        }
        // A day without a time: a due day, and the start alarms count from (RFC 5545 §3.8.6.3).
        let dueDay = component.property("DUE").flatMap(day(of:))
        let startDay = start == nil ? nil : component.property("DTSTART").flatMap(day(of:))
        // A task may give its due instant as a duration from its start instead (RFC 5545 §3.6.2).
        var due = dueProperty
        if due == nil, let start, let duration = component.property("DURATION") {
            guard let seconds = signedDuration(duration.value) else {
                throw ICalendarText.error(
                    duration.line,
                    "DURATION \(ICalendarText.quoted(duration.value)) is not a duration like PT1H"
                )
            }
            due = (start.instant + seconds, start.start, start.zone)
        }
        let status = component.property("STATUS")?.value.uppercased()
        let checked =
            status == "COMPLETED" || status == "CANCELLED"
            || (status == nil && component.property("COMPLETED") != nil)
            || component.property("PERCENT-COMPLETE")?.value == "100"
        // When it was actually completed (RFC 5545 §3.8.2.1): the item keeps it, and an export gives it back.
        var completedAt: Date?
        if checked, let property = component.property("COMPLETED") {
            do throws(ModelError) {
                completedAt = try dateTime(property, timeZone: timeZone, zones: zones, notes: &notes).instant
            } catch {
                notes.append("\(error.description): left out, so it counts as completed when imported")
            }
        }
        var task = CalendarTask(
            line: component.line,
            uid: component.property("UID")?.text,
            text: summary,
            dueDate: due?.instant,
            checked: checked,
            completedAt: completedAt,
            priority: try priority(component.property("PRIORITY")),
            shouldRemind: false,
            warnings: [],
            repeatRule: nil,
            repeatLeftOut: nil,
            notes: []
        )
        if status == "CANCELLED" { notes.append("it was cancelled: imported checked off") }
        notes += component.notes
        for property in component.properties {
            notes += property.readPast.map { "line \(property.line): \($0)" }
        }
        try readAlarms(
            component,
            into: &task,
            dueStart: dueDay?.start(in: timeZone),
            start: startDay?.start(in: timeZone) ?? start?.instant,
            startUnreadable: startUnreadable,
            timeZone: timeZone,
            zones: zones,
            notes: &notes
        )
        readRepeat(
            component,
            into: &task,
            start: startUnreadable ? .unreadable : start.map(TaskStart.read) ?? .none,
            due: dueProperty,
            timeZone: timeZone,
            zones: zones,
            notes: &notes
        )
        if let property = component.property("X-NUDGE-REPEAT-AFTER") {
            if task.repeatRule != nil {
                notes.append("line \(property.line): X-NUDGE-REPEAT-AFTER was left out: the task repeats by a rule")
            } else if status == "CANCELLED" {
                notes.append("line \(property.line): X-NUDGE-REPEAT-AFTER was left out: the task was cancelled")
            } else {
                do throws(ModelError) {
                    task.repeatAfter = try RepeatAfter.parseISO8601(property.text)
                } catch {
                    notes.append("line \(property.line): X-NUDGE-REPEAT-AFTER was left out: \(error.description)")
                }
            }
        }
        if let dueDay {
            if task.repeatRule == nil {
                task.dueDay = dueDay
            } else {
                notes.append("DUE is a day without a time: the repeat is due at 09:00 on its days")
            }
        }
        task.notes = notes
        return task
    }

    /// The day a DATE value names (`20270115`, RFC 5545 §3.3.4); nil for a date-time or a value out of shape.
    private static func day(of property: ICalendarProperty) -> CalendarDay? {
        let value = property.value.trimmingCharacters(in: .whitespaces)
        guard value.utf8.count == 8, value.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return CalendarDay(iso: "\(value.prefix(4))-\(value.dropFirst(4).prefix(2))-\(value.suffix(2))")
    }

    /// A DATE-TIME or DATE value: UTC (`Z`), in the zone TZID names, or floating (read in `timeZone`); its wall-time
    /// fields and zone, for a recurrence rule.
    private static func dateTime(
        _ property: ICalendarProperty,
        timeZone: TimeZone,
        zones: ZoneRulesStore,
        notes: inout [String]
    )
        throws(ModelError) -> (instant: Date, start: WallTime, zone: RecurrenceRuleMapping.Zone)
    {
        let value = property.value.trimmingCharacters(in: .whitespaces)
        let digits = Array(value.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= digits.count else { return nil }
            var result = 0
            for byte in digits[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                result = result * 10 + Int(byte - 48)
            }
            return result
        }
        let dateOnly = digits.count == 8
        let isUTC = digits.count == 16 && digits[15] == UInt8(ascii: "Z")
        guard dateOnly || ((digits.count == 15 || isUTC) && digits[8] == UInt8(ascii: "T")),
            let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), (1...12).contains(month),
            (1...LocalTime.daysInMonth(year: year, month: month)).contains(day)
        else {
            throw ICalendarText.error(
                property.line,
                "\(property.name) \(ICalendarText.quoted(value)) is not a date-time like 20261201T090000Z or a date like "
                    + "20261201"
            )
        }
        var (hour, minute, second) = (
            ChecklistItem.dayReminderTime / 3600, ChecklistItem.dayReminderTime % 3600 / 60, 0
        )
        if dateOnly {
            // A due day is kept as a day (`task`); any other date is read as its time for reminding.
            if property.name != "DUE" {
                notes.append("\(property.name) is a day without a time: taken as 09:00 that day")
            }
        } else {
            guard let h = number(9..<11), let m = number(11..<13), let s = number(13..<15), h < 24, m < 60, s < 61
            else {
                throw ICalendarText.error(
                    property.line,
                    "\(property.name) \(ICalendarText.quoted(value)) has no valid time of day (hours 00 to 23, minutes and seconds 00 "
                        + "to 59)"
                )
            }
            (hour, minute, second) = (h, m, min(s, 59))
        }
        var zone = RecurrenceRuleMapping.Zone.floating
        var wallZone = timeZone
        if isUTC {
            zone = .utc
            wallZone = .gmt
        } else if let tzid = property.parameters["TZID"] {
            let name = tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid
            if let named = TimeZone(identifier: name), zones.hasRules(named: name) {
                zone = .named(name)
                wallZone = named
            } else {
                notes.append(
                    "\(property.name)'s zone \(ICalendarText.quoted(tzid)) is not a zone name nudge knows: read as local time"
                )
            }
        }
        let wall = LocalTime.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        let instant = LocalTime(timeZone: wallZone).calendarInstant(forWall: wall)
        return (
            LocalTime.date(instant, fraction: 0),
            WallTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second),
            zone
        )
    }

    /// `-PT15M`, `+P1D`, `PT0S`: seconds, negative before.
    private static func signedDuration(_ value: String) -> TimeInterval? {
        var text = Substring(value.trimmingCharacters(in: .whitespaces))
        let sign: TimeInterval = text.first == "-" ? -1 : 1
        if text.first == "-" || text.first == "+" { text = text.dropFirst() }
        guard text.hasPrefix("P"), let seconds = DurationText.seconds(String(text)) else { return nil }
        return sign * seconds
    }

    /// RFC 5545 §3.8.1.9: 1 to 4 high, 5 (or 0, undefined) normal, 6 to 9 low.
    private static func priority(_ property: ICalendarProperty?) throws(ModelError) -> Priority {
        // Empty, as DAVx5 once wrote it: no priority given, as 0 says.
        guard let property else { return .normal }
        let value = property.value.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { return .normal }
        guard let number = Int(value), (0...9).contains(number) else {
            throw ICalendarText.error(property.line, "PRIORITY \(ICalendarText.quoted(property.value)) is not 0 to 9")
        }
        switch number {
        case 1...4: return .high
        case 6...9: return .low
        default: return .normal
        }
    }

    /// Any alarm at or before the due instant switches reminding on; those before it are advance warnings (nudge
    /// reminds at the due instant as well). Each alarm's trigger is a duration from the due instant (RELATED=END) or
    /// the start (the default; the due instant if the task has none, and left out if its start was unreadable), or
    /// an instant.
    private static func readAlarms(
        _ component: ICalendarComponent,
        into task: inout CalendarTask,
        dueStart: Date?,
        start: Date?,
        startUnreadable: Bool,
        timeZone: TimeZone,
        zones: ZoneRulesStore,
        notes: inout [String]
    ) throws(ModelError) {
        let alarms = component.components.filter { $0.name == "VALARM" }
        guard !alarms.isEmpty else { return }
        guard let due = task.dueDate else {
            notes.append("its alarms were left out: nudge's reminders count from a due date, and it has none")
            return
        }
        var leads: [TimeInterval] = []
        for alarm in alarms {
            guard let trigger = alarm.property("TRIGGER") else {
                throw ICalendarText.error(alarm.line, "this VALARM has no TRIGGER")
            }
            let instant: Date
            if trigger.parameters["VALUE"]?.uppercased() == "DATE-TIME" || trigger.value.first?.isNumber == true {
                // RFC 5545 asks for UTC here; a time without a zone is read as every floating time is, local.
                let read = try dateTime(trigger, timeZone: timeZone, zones: zones, notes: &notes)
                if read.zone == .floating {
                    notes.append(
                        "line \(trigger.line): the alarm's TRIGGER has no zone, where RFC 5545 asks for UTC: read as local time"
                    )
                }
                instant = read.instant
            } else {
                guard let seconds = signedDuration(trigger.value) else {
                    throw ICalendarText.error(
                        trigger.line,
                        "TRIGGER \(ICalendarText.quoted(trigger.value)) is not a duration like -PT15M or a date-time"
                    )
                }
                let fromEnd = trigger.parameters["RELATED"]?.uppercased() == "END"
                guard fromEnd || !startUnreadable else {
                    notes.append("line \(trigger.line): an alarm counted from the start nudge cannot read: left out")
                    continue
                }
                let end = dueStart ?? due
                instant = (fromEnd ? end : start ?? end) + seconds
            }
            leads.append(due.timeIntervalSince(instant))
        }
        let late = leads.filter { $0 < 0 }
        if !late.isEmpty {
            notes.append(
                "\(late.count == 1 ? "an alarm" : "\(late.count) alarms") after the due date left out: nudge reminds "
                    + "at the due date and warns before it"
            )
        }
        // A task with an alarm wants reminding: nudge reminds at the due instant, and warns at the alarms before it.
        task.shouldRemind = leads.contains { $0 >= 0 }
        var warnings = Set(leads.filter { $0 > 0 && $0 <= Warnings.maximumLead }).sorted(by: >)
        if leads.contains(where: { $0 > Warnings.maximumLead }) {
            notes.append("alarms more than \(Int(Warnings.maximumLead / 86_400)) days before the due date left out")
        }
        if warnings.count > Warnings.maximumCount {
            notes.append("only the \(Warnings.maximumCount) alarms nearest the due date kept")
            warnings = Array(warnings.suffix(Warnings.maximumCount))
        }
        task.warnings = warnings
    }

    /// `X-NUDGE-ONCALENDAR` if it reads, else the RRULE's exact calendar expression, else no repeat (said in a
    /// note).
    /// A task's DTSTART as the repeat needs it: absent, read, or there but unreadable.
    private enum TaskStart {
        case none
        case read((instant: Date, start: WallTime, zone: RecurrenceRuleMapping.Zone))
        case unreadable
    }

    private static func readRepeat(
        _ component: ICalendarComponent,
        into task: inout CalendarTask,
        start taskStart: TaskStart,
        due: (instant: Date, start: WallTime, zone: RecurrenceRuleMapping.Zone)?,
        timeZone: TimeZone,
        zones: ZoneRulesStore,
        notes: inout [String]
    ) {
        /// The RRULE is not taken: the task is read as one occurrence, and says why.
        func withoutRepeat(_ why: String) {
            notes.append("imported without repeat: " + why)
            task.repeatLeftOut = why
        }
        let recurrence = component.property("RRULE")
        if let own = component.property("X-NUDGE-ONCALENDAR") {
            do {
                let rule = try RepeatRule(own.text, localZone: timeZone, zones: zones)
                // Another program may have changed the RRULE and kept nudge's property as it was: the RRULE says
                // what the task is now.
                let written = rule.spec.flatMap { RecurrenceRuleMapping.recurrenceRule(for: $0)?.rule }
                if let recurrence, written.map({ !RecurrenceRuleMapping.sameRule($0, recurrence.value) }) ?? true {
                    notes.append("its RRULE is not the one X-NUDGE-ONCALENDAR was written with: the RRULE is used")
                } else if recurrence != nil, component.property("EXDATE") ?? component.property("RDATE") != nil {
                    notes.append("it has EXDATE or RDATE, which X-NUDGE-ONCALENDAR cannot say: the RRULE is used")
                } else {
                    task.repeatRule = rule.expression
                    return
                }
            } catch {
                notes.append("X-NUDGE-ONCALENDAR was left out: \(error.description)")
            }
        }
        guard let rule = recurrence else { return }
        var start: (instant: Date, start: WallTime, zone: RecurrenceRuleMapping.Zone)?
        switch taskStart {
        case .none: break
        case .read(let read): start = read
        case .unreadable:
            return withoutRepeat("its RRULE repeats its start (DTSTART), which nudge cannot read")
        }
        // RFC 5545 §3.8.5.3: the rule gives a to-do's starts, and each occurrence is due as long after its start as
        // DUE is after DTSTART. nudge repeats due dates, so it reads the rule from DUE: exact when the two are the
        // same instant, or when no BY part ties the occurrences to fields of the start.
        guard let anchor = due ?? start.flatMap({ $0.instant == task.dueDate ? $0 : nil }) else {
            let why =
                task.dueDate == nil
                ? "it has no due date (DUE) for nudge to repeat" : "its due date is a DURATION after its start"
            return withoutRepeat("its RRULE repeats its start (DTSTART), and \(why)")
        }
        if let start, start.instant != anchor.instant {
            let placed = RecurrenceRuleMapping.byParts(of: rule.value)
            guard placed.isEmpty else {
                return withoutRepeat(
                    "its RRULE places its starts (\(placed.joined(separator: ";"))), and its "
                        + "due date is \(DurationText.short(abs(anchor.instant.timeIntervalSince(start.instant)))) "
                        + "away from its start, which no calendar expression of due dates says"
                )
            }
        }
        // A rule a calendar expression says exactly stays one, as nudge writes its own; any other, and one with
        // occurrences taken out or added, is kept as the recurrence it is.
        let exceptions = component.properties.filter { $0.name == "EXDATE" }
        let additions = component.properties.filter { $0.name == "RDATE" }
        if exceptions.isEmpty, additions.isEmpty,
            let expression = try? RecurrenceRuleMapping.expression(
                for: rule.value,
                start: anchor.start,
                zone: anchor.zone
            ),
            let repeatRule = try? RepeatRule(expression, localZone: timeZone, zones: zones)
        {
            task.repeatRule = repeatRule.expression
            return
        }
        do throws(ModelError) {
            // The rule runs from DUE: an exception or addition, which names a start, moves with it.
            let shift = anchor.instant.timeIntervalSince(start?.instant ?? anchor.instant)
            let anchorStart = anchor.start
            let anchorZone: TimeZone =
                switch anchor.zone {
                case .utc: .gmt
                case .floating: timeZone
                case .named(let name): TimeZone(identifier: name) ?? timeZone
                }
            func walls(_ properties: [ICalendarProperty]) throws(ModelError) -> [WallTime] {
                var found: [WallTime] = []
                for property in properties {
                    guard (property.parameters["VALUE"]?.uppercased() ?? "DATE-TIME") != "PERIOD" else {
                        notes.append(
                            "line \(property.line): \(property.name) of periods left out: nudge repeats instants"
                        )
                        continue
                    }
                    for value in property.value.split(separator: ",") {
                        var one = property
                        one.value = String(value)
                        if let day = day(of: one) {
                            // A day: the occurrence that day.
                            let (year, month, dayOfMonth) = LocalTime.civil(days: day.days)
                            found.append(
                                WallTime(
                                    year: year,
                                    month: month,
                                    day: dayOfMonth,
                                    hour: anchorStart.hour,
                                    minute: anchorStart.minute,
                                    second: anchorStart.second
                                )
                            )
                        } else {
                            let instant = try dateTime(one, timeZone: timeZone, zones: zones, notes: &notes).instant
                            found.append(Recurrence.wallTime(of: instant + shift, in: anchorZone))
                        }
                    }
                }
                return found
            }
            let recurrence = Recurrence(
                rule: try Recurrence.rule(rule.value),
                start: anchorStart,
                zone: anchor.zone,
                // Those before DUE fall before the first occurrence nudge counts: left out.
                exceptions: try walls(exceptions).filter { $0 >= anchorStart },
                additions: try walls(additions).filter { $0 >= anchorStart }
            )
            task.repeatRule = try RepeatRule(recurrence.text, localZone: timeZone, zones: zones).expression
        } catch {
            withoutRepeat(error.description)
        }
    }
}
