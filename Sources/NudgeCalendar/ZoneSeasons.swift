import Foundation

/// A zone's rules from some instant on, as its file's closing rule says them: a standard season and, where the zone
/// keeps daylight time, a daylight one, each starting every year on a weekday of a month. What an iCalendar
/// VTIMEZONE says with a yearly RRULE per season; nil from `ZoneRulesStore.seasons(named:from:)` for a zone whose
/// rule cannot be said so (a day of the year, or a change moved by its time past the day into another month), or
/// whose file has changes still to come that the rule does not make (Africa/Casablanca's Ramadan: `ZoneChanges`). A change at a
/// time outside 00:00 to 23:59 (America/Santiago's 24:00, Asia/Jerusalem's 26:00 of a Thursday, America/Nuuk's -1:00
/// of a Sunday) is the day before or after it, at the time within that day.
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

    /// Weekday `weekday` (0 = Sunday) of week `week` (1...4, or 5 for the last) of month `month`, moved `dayShift`
    /// days (a change at 24:00 is the next day's 00:00), at `secondsAfterMidnight` (0 to 86,399) of the wall time of
    /// the season before. A shifted onset stays within its month in every year.
    public struct Onset: Sendable, Equatable {
        public let month: Int
        public let week: Int
        public let weekday: Int
        public let dayShift: Int
        public let secondsAfterMidnight: Int

        public init(month: Int, week: Int, weekday: Int, dayShift: Int = 0, secondsAfterMidnight: Int) {
            self.month = month
            self.week = week
            self.weekday = weekday
            self.dayShift = dayShift
            self.secondsAfterMidnight = secondsAfterMidnight
        }

        /// Its day of the month in `year`.
        public func day(in year: Int) -> Int {
            Int(PosixZoneRule.dayOfMonth(month: month, week: week, weekday: weekday, in: Int64(year))) + dayShift
        }

        /// The weekday it falls on, shifted (0 = Sunday).
        public var shiftedWeekday: Int { ((weekday + dayShift) % 7 + 7) % 7 }

        /// The days of the month it can fall on, for a shifted onset: the week's seven, moved; nil if that leaves the
        /// month in some year (the last week of February, whose length varies, cannot be shifted).
        public var daysOfMonth: ClosedRange<Int>? {
            // Every month but February has one length: 2001's (not a leap year) is each one's shortest.
            let shortest = Int(
                CivilCalendar.daysSinceEpoch(year: 2001, month: Int64(month) + 1, day: 1)
                    - CivilCalendar.daysSinceEpoch(year: 2001, month: Int64(month), day: 1)
            )
            if week >= 5 && month == 2 && dayShift != 0 { return nil }
            let last = week >= 5 ? shortest : 7 * week
            let days = (last - 6 + dayShift)...(last + dayShift)
            return days.lowerBound >= 1 && days.upperBound <= shortest ? days : nil
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
            guard case .monthWeekDay(let month, let week, let weekday) = change.date else { return nil }
            let shift = Int(CivilCalendar.floorDivide(Int64(change.secondsAfterMidnight), 86_400).quotient)
            let onset = ZoneSeasons.Onset(
                month: month,
                week: week,
                weekday: weekday,
                dayShift: shift,
                secondsAfterMidnight: change.secondsAfterMidnight - shift * 86_400
            )
            return shift == 0 || onset.daysOfMonth != nil ? onset : nil
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

/// A zone's changes from some instant on, listed one by one, for a zone whose closing rule does not say them but whose
/// file does, to the last (Africa/Casablanca): what a VTIMEZONE says with a DTSTART and RDATEs per observance.
public struct ZoneChanges: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        /// Seconds since the epoch.
        public let at: Int64
        public let utcOffsetBefore: Int
        public let utcOffset: Int
        /// The abbreviation from then on.
        public let name: String
    }

    /// From the change that started the time in force at the instant asked about on, oldest first.
    public let changes: [Change]
}

extension ZoneRulesStore {
    /// The changes of zone `name` from `instant` on (`ZoneChanges`), or nil if the database has no such zone, or its
    /// changes do not end (a closing rule with daylight time says those: `seasons(named:from:)`).
    public func changes(named name: String, from instant: Date) -> ZoneChanges? {
        guard let rules = rules(named: name),
            let found = rules.finiteChanges(from: CalendarSpec.microseconds(instant) / 1_000_000), !found.isEmpty
        else { return nil }
        return ZoneChanges(
            changes: found.map {
                ZoneChanges.Change(
                    at: $0.at,
                    utcOffsetBefore: $0.utcOffsetBefore,
                    utcOffset: $0.interval.utcOffset,
                    name: rules.abbreviations[$0.interval.abbreviationIndex]
                )
            }
        )
    }
}
