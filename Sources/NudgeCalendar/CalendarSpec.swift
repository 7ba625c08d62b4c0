import Foundation

/// A parsed calendar expression, as systemd's `OnCalendar=` understands it (systemd.time(7), systemd 252).
///
/// Parsing, the normalized form and the next elapse agree with `systemd-analyze calendar`, including its DST
/// behaviour, because the parsing and the search reproduce systemd's steps on top of an emulation of glibc's
/// `localtime`/`mktime` (see `MktimeClock`).
///
/// Two specs are equal when they mean the same (same normalized form), whatever their original text.
public struct CalendarSpec: Sendable, Hashable, CustomStringConvertible {
    /// The expression as given.
    public let expression: String
    /// systemd's "Normalized form", byte for byte.
    public let normalized: String
    package let pattern: CalendarPattern
    /// The zone rules it was read with, and is evaluated with.
    let zones: ZoneRulesStore

    /// Parses an expression as systemd 252 does. `localZone` is the zone systemd would take as "local" (systemd
    /// accepts the local zone's abbreviations, e.g. CET/CEST under Europe/Berlin, at the end of an expression).
    /// Zone names and the next elapse are looked up in `zones`. Throws `CalendarSpecError`, naming the wrong part,
    /// for anything systemd rejects.
    public init(parsing text: String, localZone: TimeZone, zones: ZoneRulesStore) throws(CalendarSpecError) {
        var parser = CalendarExpressionParser(
            text: text,
            localNames: zones.rules(for: localZone).localNames,
            zoneStore: zones
        )
        pattern = try parser.parse()
        self.zones = zones
        expression = text
        normalized = pattern.normalizedText
    }

    /// Same as `normalized`.
    public var description: String { normalized }

    /// The zone named in the expression, if any (nil: the caller's zone applies). "UTC" for a trailing `UTC` and
    /// for `@seconds` expressions. Nil also if Foundation does not know a zone systemd accepts.
    public var timeZone: TimeZone? {
        if pattern.isUTC { return TimeZone(identifier: "UTC") }
        return pattern.zoneName.flatMap { TimeZone(identifier: $0) }
    }

    /// The zone file name at the end of the expression (e.g. "Europe/Berlin"), "UTC" for a trailing `UTC` or an
    /// `@seconds` expression, or nil.
    public var timeZoneName: String? { pattern.isUTC ? "UTC" : pattern.zoneName }

    /// The first instant strictly after `instant` that matches, evaluated in the expression's zone if it names one,
    /// else in `zone`; nil if there is none (e.g. a year in the past, or Feb 30), or where systemd gives up.
    /// Instants are handled with microsecond resolution, as systemd does. An expression ending in the local zone's
    /// abbreviation (e.g. "CET") was resolved against `localZone` when parsed; its wall times are read as that
    /// flavour (standard or daylight) of `zone`'s time.
    public func next(after instant: Date, in zone: TimeZone) -> Date? {
        var search = ElapseSearch(pattern: pattern, clock: clock(localZone: zone))
        guard case .elapse(let microseconds) = search.next(after: Self.microseconds(instant)) else {
            return nil
        }
        return Self.date(microseconds)
    }

    /// The clock the expression is evaluated with: UTC, its own zone, or the caller's.
    func clock(localZone: TimeZone) -> MktimeClock {
        if pattern.isUTC { return .utc }
        if let name = pattern.zoneName, let rules = zones.rules(named: name) {
            return MktimeClock(zone: rules)
        }
        return MktimeClock(zone: zones.rules(for: localZone))
    }

    public static func == (lhs: CalendarSpec, rhs: CalendarSpec) -> Bool {
        lhs.pattern == rhs.pattern
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// Whole microseconds since the epoch (systemd's usec_t), to the nearest microsecond: a `Date` cannot hold
    /// most microsecond values exactly, and rounding makes `date(_:)` and this function inverses.
    static func microseconds(_ date: Date) -> Int64 {
        // Far beyond systemd's range (year 9999) either way; keeps the arithmetic below from overflowing.
        let limit = 1e13
        let seconds = min(
            max(date.timeIntervalSince1970.isNaN ? 0 : date.timeIntervalSince1970, -limit),
            limit
        )
        let whole = seconds.rounded(.down)
        var fraction = ((seconds - whole) * 1_000_000).rounded()
        // Dates made from whole microseconds must come back to the same number.
        if fraction >= 1_000_000 { fraction = 999_999 }
        return Int64(whole) * 1_000_000 + Int64(fraction)
    }

    static func date(_ microseconds: Int64) -> Date {
        let (seconds, fraction) = CivilCalendar.floorDivide(microseconds, 1_000_000)
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1_000_000)
    }
}
