/// A zone's rules as they stand today, past the last transition of its file: a standard season and, where the zone
/// keeps daylight time, a daylight one, each starting every year on a weekday of a month. What an iCalendar
/// VTIMEZONE says with a yearly RRULE per season; nil from `ZoneRulesStore.seasons(named:)` for a zone whose
/// rule cannot be said so (a day of the year, or a change at a time outside 00:00 to 23:59, as a few zones have).
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
    }

    public let standard: Season
    public let daylight: Season?
}

extension ZoneRulesStore {
    /// The current rules of zone `name` (`ZoneSeasons`), or nil if the database has no such zone, its file has no
    /// rule for the present, or the rule is not a weekday of a month at a time within the day.
    public func seasons(named name: String) -> ZoneSeasons? {
        guard let rule = rules(named: name)?.footer else { return nil }
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
