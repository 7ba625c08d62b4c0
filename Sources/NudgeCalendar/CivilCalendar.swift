/// Proleptic Gregorian calendar arithmetic on plain integers.
///
/// The calendar engine does its own date arithmetic instead of using Foundation's `Calendar`: systemd relies on
/// glibc's exact normalisation rules (out-of-range fields roll over, wall times in DST gaps move in a particular
/// direction), and those are only reproducible when every step is under our control.
package enum CivilCalendar: Sendable {
    package static let secondsPerDay: Int64 = 86_400

    /// Days from 1970-01-01 to the given date. `month` is 1...12; `day` may be any value (it simply adds days).
    package static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Count from March so the leap day is the last day of the counted year.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` days after 1970-01-01, as (year, month 1...12, day 1...31).
    package static func date(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    package static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// 0 = Sunday … 6 = Saturday, as C's `tm_wday`.
    package static func weekday(daysSinceEpoch days: Int64) -> Int {
        let remainder = (days + 4) % 7  // 1970-01-01 was a Thursday
        return Int(remainder < 0 ? remainder + 7 : remainder)
    }

    /// Floor division, for splitting possibly negative instants into days and seconds.
    package static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
