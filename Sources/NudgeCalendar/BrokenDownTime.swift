/// A broken-down wall time with C `struct tm` semantics: fields may be out of range until normalised, and
/// `dstFlag` is -1 (unknown), 0 (standard time) or 1 (daylight saving time).
package struct BrokenDownTime: Sendable, Hashable {
    package var year: Int
    /// 0...11 once normalised (C's `tm_mon`).
    package var month0: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int
    package var dstFlag: Int
    /// 0 = Sunday; only meaningful after normalisation.
    package var weekday: Int = 0
    /// Seconds east of UTC; only meaningful after normalisation.
    package var utcOffset: Int = 0

    /// Seconds since the epoch this wall time would be if it were UTC. Handles out-of-range fields the way
    /// glibc's mktime does: months roll into years, every other field simply adds up.
    package var wallSeconds: Int64 {
        let (carryYears, month) = CivilCalendar.floorDivide(Int64(month0), 12)
        let days =
            CivilCalendar.daysSinceEpoch(year: Int64(year) + carryYears, month: month + 1, day: 1)
            + Int64(day) - 1
        return days * CivilCalendar.secondsPerDay + Int64(hour) * 3600 + Int64(minute) * 60
            + Int64(second)
    }

    /// The normalised wall time for `wallSeconds` (seconds since the epoch read as UTC).
    package init(wallSeconds: Int64, dstFlag: Int, utcOffset: Int) {
        let (days, secondOfDay) = CivilCalendar.floorDivide(wallSeconds, CivilCalendar.secondsPerDay)
        let date = CivilCalendar.date(daysSinceEpoch: days)
        year = Int(date.year)
        month0 = Int(date.month) - 1
        day = Int(date.day)
        hour = Int(secondOfDay / 3600)
        minute = Int(secondOfDay % 3600 / 60)
        second = Int(secondOfDay % 60)
        self.dstFlag = dstFlag
        weekday = CivilCalendar.weekday(daysSinceEpoch: days)
        self.utcOffset = utcOffset
    }
}
