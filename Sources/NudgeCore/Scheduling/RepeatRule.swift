import Foundation
import NudgeCalendar

/// How an item recurs: a systemd calendar expression (systemd.time(7)), or an RFC 5545 recurrence (`Recurrence`,
/// `RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU` with its DTSTART), and the occurrences it gives.
///
/// An expression that names a zone (`Mon..Fri 09:00 Europe/Berlin`), or a recurrence whose start does, is evaluated
/// there; otherwise in the zone the caller passes, the daemon's.
public struct RepeatRule: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case calendar(CalendarSpec)
        case recurrence(Recurrence)
    }

    /// Held by reference: every pending reminder carries an optional rule, and one-shot reminders, the most, should
    /// pay a pointer for it, not a parsed expression.
    private final class Storage: Sendable {
        let kind: Kind
        init(_ kind: Kind) { self.kind = kind }
    }

    private let storage: Storage
    public var kind: Kind { storage.kind }

    /// The calendar expression, if it is one.
    public var spec: CalendarSpec? {
        if case .calendar(let spec) = kind { spec } else { nil }
    }

    /// The RFC 5545 recurrence, if it is one.
    public var recurrence: Recurrence? {
        if case .recurrence(let recurrence) = kind { recurrence } else { nil }
    }

    /// Reads a repeat: a recurrence if it starts with RRULE: or DTSTART (`Recurrence.isRecurrence`), starting at
    /// `start` in `localZone` (floating) if it gives no DTSTART; else a calendar expression, read as systemd would,
    /// in `localZone` (whose abbreviations systemd accepts), with the zone rules of `zones`.
    public init(_ text: String, localZone: TimeZone, zones: ZoneRulesStore, start: Date? = nil) throws(ModelError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw .invalidRepeat(
                CalendarSpecError(
                    expression: String(text.prefix(40)) + "…",
                    part: "",
                    reason: "a repeat rule is at most \(Self.maximumLength) bytes, this one is \(text.utf8.count)"
                )
            )
        }
        if Recurrence.isRecurrence(text) {
            let defaultStart = start.map { Recurrence.wallTime(of: $0, in: localZone) }
            let recurrence = try Recurrence(parsing: text, defaultStart: defaultStart)
            // As kept: with its DTSTART, and its lines as nudge writes them.
            guard recurrence.text.utf8.count <= Self.maximumLength else {
                throw .invalidRecurrence(
                    String(text.prefix(60)) + "…",
                    "with its DTSTART it is \(recurrence.text.utf8.count) bytes, and a repeat at most "
                        + "\(Self.maximumLength): give fewer EXDATE or RDATE values"
                )
            }
            storage = Storage(.recurrence(recurrence))
            return
        }
        let spec: CalendarSpec
        do {
            spec = try CalendarSpec(parsing: text, localZone: localZone, zones: zones)
        } catch {
            throw .invalidRepeat(error)
        }
        guard !Self.hasOccurrencesCloserThanTheFloor(spec.pattern.seconds) else {
            throw .invalidRepeat(
                CalendarSpecError(
                    expression: text,
                    part: "",
                    reason: "its occurrences come less than \(Int(Self.shortestInterval)) second apart, and a reminder "
                        + "repeats at most once a second; give seconds a second or more apart, like *:*:00/10"
                )
            )
        }
        storage = Storage(.calendar(spec))
    }

    /// The least time between two occurrences of a rule: each is a decision, an event and a delivery, so a rule that
    /// came faster would flood the sinks and the history (and one of `*:*:0/0.000001` would take nudged a minute per
    /// tenth of a second of clock). `nudge calendar` still reads such expressions, as systemd does.
    public static let shortestInterval: TimeInterval = 1

    /// Whether two of the seconds `components` match (in microseconds, within a minute) come closer than
    /// `shortestInterval`, counting from a minute's last to the next minute's first as though every minute matched.
    private static func hasOccurrencesCloserThanTheFloor(_ components: [CalendarComponent]?) -> Bool {
        let floor = Int(shortestInterval * 1_000_000)
        let lastOfMinute = 60 * CalendarPattern.microsecondsPerSecond - 1
        var values: [Int] = []
        for component in components ?? [CalendarComponent(start: 0, step: CalendarPattern.microsecondsPerSecond)] {
            guard component.step > 0 else {
                values.append(component.start)
                continue
            }
            let stop = component.stop < 0 ? lastOfMinute : min(component.stop, lastOfMinute)
            // A step under the floor with room for a second value is too close; a step at or above it gives at
            // most 60 values.
            if component.step < floor, component.start + component.step <= stop { return true }
            values += stride(from: component.start, through: stop, by: max(component.step, floor))
        }
        values = Array(Set(values)).sorted()
        guard let first = values.first, let last = values.last else { return false }
        let gaps = zip(values, values.dropFirst()).map { $1 - $0 } + [first + lastOfMinute + 1 - last]
        return gaps.contains { $0 < floor }
    }

    public static func == (a: RepeatRule, b: RepeatRule) -> Bool { a.kind == b.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// The normalized form, what the store and the API hold: an expression as `systemd-analyze calendar` prints
    /// it, a recurrence as its lines (`Recurrence.text`).
    public var expression: String {
        switch kind {
        case .calendar(let spec): spec.normalized
        case .recurrence(let recurrence): recurrence.text
        }
    }

    public var description: String { expression }

    /// Whether `other` says this rule as a file gives it back: the same rule; this recurrence counted from a later
    /// occurrence of its own, as an export writes it (`Recurrence.startingAt`); or the calendar expression an import
    /// makes of this recurrence's RRULE where one says exactly the same (`RecurrenceRuleMapping`).
    public func isSameSeries(as other: RepeatRule, in zone: TimeZone, zones: ZoneRulesStore) -> Bool {
        guard self != other, let recurrence else { return self == other }
        if let later = other.recurrence, let start = later.startInstant(in: zone) {
            return recurrence.startingAt(start, in: zone) == later
        }
        guard recurrence.exceptions.isEmpty, recurrence.additions.isEmpty,
            let expression = try? RecurrenceRuleMapping.expression(
                for: recurrence.rule.text,
                start: recurrence.start,
                zone: recurrence.zone
            )
        else { return false }
        return (try? RepeatRule(expression, localZone: zone, zones: zones)) == other
    }

    /// The first occurrence strictly after `instant`.
    public func next(after instant: Date, in zone: TimeZone) -> Date? {
        switch kind {
        case .calendar(let spec): spec.next(after: instant, in: zone)
        case .recurrence(let recurrence): recurrence.occurrences(after: instant, limit: 1, in: zone).first
        }
    }

    /// The first occurrence at `instant` or after it.
    public func first(atOrAfter instant: Date, in zone: TimeZone) -> Date? {
        next(after: instant.addingTimeInterval(-Self.resolution), in: zone)
    }

    /// Every item carries its rule in the store and in each change: a rule is a line, not a document.
    public static let maximumLength = 1_000

    /// At most this many passed occurrences are counted; a longer run is reported as this many.
    public static let countLimit = 100_000

    /// The occurrences from `first` (itself an occurrence) up to `now`: the latest of them and how many there are
    /// (at least 1: `first`), counting at most `countLimit`. Nil if `first` is after `now`.
    public func passed(from first: Date, upTo now: Date, in zone: TimeZone) -> (latest: Date, count: Int)? {
        guard first <= now else { return nil }
        if let recurrence {
            // One pass of libical's, rather than one per occurrence.
            let passed = recurrence.occurrences(
                after: first.addingTimeInterval(-Self.resolution),
                through: now,
                limit: Self.countLimit,
                in: zone
            )
            // `first` counts even where it is no occurrence of the rule (a floating series whose zone changed since).
            let count = min(passed.count + (passed.first == first ? 0 : 1), Self.countLimit)
            guard var latest = passed.last else { return (first, 1) }
            guard passed.count == Self.countLimit else { return (latest, count) }
            // A run too long to count: its latest, a chunk at a time, each resumed where the last one ended.
            while let later = recurrence.occurrences(after: latest, through: now, limit: Self.countLimit, in: zone).last
            {
                latest = later
            }
            return (latest, count)
        }
        guard let spec else { return nil }
        var latest = first
        var count = 1
        while count < Self.countLimit, let next = spec.next(after: latest, in: zone), next <= now {
            latest = next
            count += 1
        }
        guard count == Self.countLimit else { return (latest, count) }
        // A run too long to walk: find the last occurrence up to `now` by looking back ever further from it.
        var lookBack: TimeInterval = 60
        while lookBack < now.timeIntervalSince(latest) {
            if let candidate = spec.next(after: now.addingTimeInterval(-lookBack), in: zone), candidate <= now {
                latest = candidate
                break
            }
            lookBack *= 4
        }
        while let next = spec.next(after: latest, in: zone), next <= now { latest = next }
        return (latest, count)
    }

    /// Calendar expressions resolve to microseconds.
    static let resolution: TimeInterval = 0.000_001
}
