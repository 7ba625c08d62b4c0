import Foundation

/// A zone's rules from some instant on, as its file's closing rule says them: a standard season and, where the zone
/// keeps daylight time, a daylight one, each starting every year on a weekday of a month. What an iCalendar
/// VTIMEZONE says with a yearly RRULE per season; nil from `ZoneRulesStore.seasons(named:from:)` for a zone whose
/// rule cannot be said so (a day of the year, or a change at a time outside 00:00 to 23:59: America/Santiago,
/// Asia/Jerusalem, America/Nuuk), or whose file has changes still to come that the rule does not make
/// (Africa/Casablanca's Ramadan).
public struct ZoneSeasons: Sendable, Equatable {
    public struct Season: Sendable, Equatable {
        /// The abbreviation, as tzdata gives it (`CET`, `-03`).
        public let name: String
        /// Seconds east of UTC in this season, and in the one before it.
        public let utcOffset: Int
        public let utcOffsetBefore: Int
        /// When it starts every year, for a zone with two seasons.
        public let start: Onset?
    }

    /// Weekday `weekday` (0 = Sunday) of week `week` (1...4, or 5 for the last) of month `month`, at
    /// `secondsAfterMidnight` of the wall time of the season before.
    public struct Onset: Sendable, Equatable {
        public let month: Int
        public let week: Int
        public let weekday: Int
        public let secondsAfterMidnight: Int

        /// Its day of the month in `year`.
        public func day(in year: Int) -> Int {
            Int(PosixZoneRule.dayOfMonth(month: month, week: week, weekday: weekday, in: Int64(year)))
        }
    }

    public let standard: Season
    public let daylight: Season?
}

extension ZoneRulesStore {
    /// The rules of zone `name` from `instant` on (`ZoneSeasons`), or nil if the database has no such zone, its file
    /// has no closing rule or changes the rule does not make from `instant` on, or the rule is not a weekday of a
    /// month at a time within the day.
    public func seasons(named name: String, from instant: Date) -> ZoneSeasons? {
        guard let rules = rules(named: name), let rule = rules.footer,
            rules.footerGoverns(from: CalendarSpec.microseconds(instant) / 1_000_000)
        else { return nil }
        guard let start = rule.daylightStart, let end = rule.daylightEnd else {
            let standard = ZoneSeasons.Season(
                name: rule.standardName,
                utcOffset: rule.standardOffset,
                utcOffsetBefore: rule.standardOffset,
                start: nil
            )
            return ZoneSeasons(standard: standard, daylight: nil)
        }
        func onset(_ change: PosixZoneRule.Change) -> ZoneSeasons.Onset? {
            guard case .monthWeekDay(let month, let week, let weekday) = change.date,
                (0..<86_400).contains(change.secondsAfterMidnight)
            else { return nil }
            return ZoneSeasons.Onset(
                month: month,
                week: week,
                weekday: weekday,
                secondsAfterMidnight: change.secondsAfterMidnight
            )
        }
        guard let daylightOnset = onset(start), let standardOnset = onset(end) else { return nil }
        return ZoneSeasons(
            standard: ZoneSeasons.Season(
                name: rule.standardName,
                utcOffset: rule.standardOffset,
                utcOffsetBefore: rule.daylightOffset,
                start: standardOnset
            ),
            daylight: ZoneSeasons.Season(
                name: rule.daylightName,
                utcOffset: rule.daylightOffset,
                utcOffsetBefore: rule.standardOffset,
                start: daylightOnset
            )
        )
    }
}
