import Foundation

/// A zone's rules from some instant on, as its file's closing rule says them: a standard season and, where the zone
/// keeps daylight time, a daylight one, each starting every year on a weekday of a month. What an iCalendar
/// VTIMEZONE says with a yearly RRULE per season and month it starts in; nil from
/// `ZoneRulesStore.seasons(named:from:)` for a zone whose rule cannot be said so (a day of the year), or whose file
/// has changes still to come that the rule does not make (Africa/Casablanca's and Asia/Gaza's Ramadan:
/// `ZoneChanges`). A change at a time outside 00:00 to 23:59 (America/Santiago's 24:00, Asia/Jerusalem's 26:00 of a
/// Thursday, America/Nuuk's -1:00 of a Sunday) is the day before or after it, at the time within that day.
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
    /// the season before.
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

        /// Its date in `year`: a shift can carry it into the month before or after (into another year, even).
        public func date(in year: Int) -> (year: Int, month: Int, day: Int) {
            let day = PosixZoneRule.dayOfMonth(month: month, week: week, weekday: weekday, in: Int64(year))
            let days = CivilCalendar.daysSinceEpoch(year: Int64(year), month: Int64(month), day: day) + Int64(dayShift)
            let date = CivilCalendar.date(daysSinceEpoch: days)
            return (Int(date.year), Int(date.month), Int(date.day))
        }

        /// The weekday it falls on, shifted (0 = Sunday).
        public var shiftedWeekday: Int { ((weekday + dayShift) % 7 + 7) % 7 }

        /// The days of one month a shifted onset can fall on, as an RRULE's BYMONTHDAY says them: a negative day
        /// counts back from the month's end (-1 its last), which February's changing length needs.
        public struct MonthDays: Sendable, Equatable {
            public let month: Int
            public fileprivate(set) var days: [Int]
        }

        /// The days a shifted onset can fall on, the week's seven moved, by month: one, or two where the shift
        /// carries some into the month before or after (Africa/Cairo's 24:00 of October's last Thursday is a Friday
        /// from 26 October to 1 November). Nil where which month a day is in depends on the year: a day after the
        /// 28th of February's fourth week.
        public var daysByMonth: [MonthDays]? {
            // Every month but February has one length: 2001's (not a leap year) is each one's shortest.
            let length = Int(
                CivilCalendar.daysSinceEpoch(year: 2001, month: Int64(month) + 1, day: 1)
                    - CivilCalendar.daysSinceEpoch(year: 2001, month: Int64(month), day: 1)
            )
            let first = (week >= 5 ? length - 6 : 7 * week - 6) + dayShift
            var parts: [MonthDays] = []
            func add(_ month: Int, _ day: Int) {
                if parts.last?.month == month {
                    parts[parts.count - 1].days.append(day)
                } else {
                    parts.append(MonthDays(month: month, days: [day]))
                }
            }
            for day in first...(first + 6) {
                if day < 1 {
                    add((month + 10) % 12 + 1, day - 1)
                } else if day <= length {
                    // February's last week counts back from its end, 28th or 29th.
                    add(month, month == 2 && week >= 5 ? day - length - 1 : day)
                } else if month == 2 && week < 5 {
                    return nil
                } else {
                    add(month % 12 + 1, day - length)
                }
            }
            return parts
        }
    }

    public let standard: Season
    public let daylight: Season?
}

extension ZoneRulesStore {
    /// The rules of zone `name` from `instant` on (`ZoneSeasons`), or nil if the database has no such zone, its file
    /// has no closing rule or changes the rule does not make from `instant` on, or the rule is not a weekday of a
    /// month.
    public func seasons(named name: String, from instant: Date) -> ZoneSeasons? {
        guard let rules = rules(named: name), let rule = rules.footer,
            rules.footerGoverns(from: CalendarSpec.microseconds(instant) / 1_000_000)
        else { return nil }
        return Self.seasons(of: rule)
    }

    private static func seasons(of rule: PosixZoneRule) -> ZoneSeasons? {
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
            return shift == 0 || onset.daysByMonth != nil ? onset : nil
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

/// A zone's changes from some instant on, listed one by one, for a zone whose file lists changes its closing rule
/// does not make (Africa/Casablanca's and Asia/Gaza's Ramadan, to 2087): what a VTIMEZONE says with a DTSTART and
/// RDATEs per observance; then, where the closing rule keeps daylight time (Gaza's does), its seasons.
public struct ZoneChanges: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        /// Seconds since the epoch.
        public let at: Int64
        public let utcOffsetBefore: Int
        public let utcOffset: Int
        /// The abbreviation from then on.
        public let name: String
    }

    /// From the change that started the time in force at the instant asked about on, oldest first, to the file's
    /// last.
    public let changes: [Change]
    /// The closing rule's seasons, from the first of their onsets after the last change on; nil where the closing
    /// rule keeps one offset, which the last change starts.
    public let closingSeasons: ZoneSeasons?
}

extension ZoneRulesStore {
    /// The changes of zone `name` from `instant` on (`ZoneChanges`), or nil if the database has no such zone, lists
    /// no change, or has a closing rule with daylight time that `ZoneSeasons` cannot say.
    public func changes(named name: String, from instant: Date) -> ZoneChanges? {
        guard let rules = rules(named: name),
            let found = rules.listedChanges(from: CalendarSpec.microseconds(instant) / 1_000_000), !found.isEmpty
        else { return nil }
        var closingSeasons: ZoneSeasons?
        if let rule = rules.footer, rule.daylightStart != nil {
            guard let seasons = Self.seasons(of: rule) else { return nil }
            closingSeasons = seasons
        }
        return ZoneChanges(
            changes: found.map {
                ZoneChanges.Change(
                    at: $0.at,
                    utcOffsetBefore: $0.utcOffsetBefore,
                    utcOffset: $0.interval.utcOffset,
                    name: rules.abbreviations[$0.interval.abbreviationIndex]
                )
            },
            closingSeasons: closingSeasons
        )
    }
}
