/// The POSIX TZ rule at the end of a TZif file (e.g. `CET-1CEST,M3.5.0,M10.5.0/3`), which glibc applies to every
/// instant after the file's last transition. Evaluated the way glibc's `__tz_compute` does: the year is the UTC
/// year of the instant, and each change is placed in the offset in force before it.
struct PosixZoneRule: Sendable, Hashable {
    /// When in the year a change happens (POSIX `Jn`, `n` or `Mm.w.d`), plus the local time of day.
    enum ChangeDate: Sendable, Hashable {
        /// `Jn`: day 1...365, February 29 never counted.
        case julianSkippingLeapDay(Int)
        /// `n`: day 0...365, February 29 counted.
        case zeroBasedDayOfYear(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    struct Change: Sendable, Hashable {
        var date: ChangeDate
        var secondsAfterMidnight: Int = 7200
    }

    var standardName: String
    var daylightName: String
    /// Seconds east of UTC.
    var standardOffset: Int
    var daylightOffset: Int
    /// Nil when the zone has no daylight time.
    var daylightStart: Change?
    var daylightEnd: Change?
    var standardAbbreviationIndex = 0
    var daylightAbbreviationIndex = 0

    init?(parsing text: String) {
        var scanner = PosixTZScanner(Array(text.utf8))
        guard let standardName = scanner.name(), let standardOffset = scanner.offset() else {
            return nil
        }
        self.standardName = standardName
        self.standardOffset = standardOffset
        guard !scanner.atEnd else {
            daylightName = standardName
            daylightOffset = standardOffset
            return
        }
        guard let daylightName = scanner.name() else { return nil }
        self.daylightName = daylightName
        daylightOffset = scanner.offset() ?? standardOffset + 3600
        // A DST name without rules would make glibc consult "posixrules"; tzdata footers always carry rules.
        guard let start = scanner.change(), let end = scanner.change() else { return nil }
        daylightStart = start
        daylightEnd = end
    }

    /// The interval containing `t`, never starting before `floor` (the file's last transition).
    func interval(at t: Int64, notBefore floor: Int64) -> ZoneInterval {
        let days = CivilCalendar.floorDivide(t, CivilCalendar.secondsPerDay).quotient
        let year = CivilCalendar.date(daysSinceEpoch: days).year
        let yearStart = Self.startOfYear(year)
        let nextYearStart = Self.startOfYear(year + 1)
        var isDST = false
        var boundaries: [Int64] = [floor, yearStart, nextYearStart]
        if let daylightStart, let daylightEnd {
            let begins = Self.instant(of: daylightStart, in: year, offset: standardOffset)
            let ends = Self.instant(of: daylightEnd, in: year, offset: daylightOffset)
            // Southern hemisphere: daylight time spans the new year.
            isDST = begins > ends ? (t < ends || t >= begins) : (t >= begins && t < ends)
            boundaries.append(begins)
            boundaries.append(ends)
        }
        let start = boundaries.filter { $0 <= t }.max() ?? floor
        let end = boundaries.filter { $0 > t }.min() ?? Int64.max
        return ZoneInterval(
            utcOffset: isDST ? daylightOffset : standardOffset,
            isDST: isDST,
            abbreviationIndex: isDST ? daylightAbbreviationIndex : standardAbbreviationIndex,
            start: start,
            end: end
        )
    }

    /// glibc counts from 1970 for every year up to and including 1970.
    private static func startOfYear(_ year: Int64) -> Int64 {
        guard year > 1970 else { return 0 }
        return CivilCalendar.daysSinceEpoch(year: year, month: 1, day: 1) * CivilCalendar.secondsPerDay
    }

    private static func instant(of change: Change, in year: Int64, offset: Int) -> Int64 {
        var dayStart = startOfYear(year)
        let leap = CivilCalendar.isLeapYear(year)
        switch change.date {
        case .julianSkippingLeapDay(let day):
            dayStart += Int64(day - 1) * CivilCalendar.secondsPerDay
            if day >= 60, leap { dayStart += CivilCalendar.secondsPerDay }
        case .zeroBasedDayOfYear(let day):
            dayStart += Int64(day) * CivilCalendar.secondsPerDay
        case .monthWeekDay(let month, let week, let weekday):
            let day = Self.dayOfMonth(month: month, week: week, weekday: weekday, in: year)
            let firstOfMonth = CivilCalendar.daysSinceEpoch(year: year, month: Int64(month), day: 1)
            let startOfYearDays = CivilCalendar.daysSinceEpoch(year: year, month: 1, day: 1)
            dayStart += (firstOfMonth - startOfYearDays + day - 1) * CivilCalendar.secondsPerDay
        }
        return dayStart - Int64(offset) + Int64(change.secondsAfterMidnight)
    }

    /// The day of the month (from 1) of `Mm.w.d`: weekday `weekday` (0 = Sunday) of week `week` (5 = the last) of
    /// month `month`.
    static func dayOfMonth(month: Int, week: Int, weekday: Int, in year: Int64) -> Int64 {
        let firstOfMonth = CivilCalendar.daysSinceEpoch(year: year, month: Int64(month), day: 1)
        let daysInMonth = CivilCalendar.daysSinceEpoch(year: year, month: Int64(month) + 1, day: 1) - firstOfMonth
        var dayOfMonth = Int64(weekday - CivilCalendar.weekday(daysSinceEpoch: firstOfMonth))
        if dayOfMonth < 0 { dayOfMonth += 7 }
        var counted = 1
        while counted < week, dayOfMonth + 7 < daysInMonth {
            dayOfMonth += 7
            counted += 1
        }
        return dayOfMonth + 1
    }
}

/// Reads the pieces of a POSIX TZ string.
private struct PosixTZScanner: Sendable {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
    }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `std` or `<+0530>`.
    mutating func name() -> String? {
        if current == UInt8(ascii: "<") {
            let start = position + 1
            guard let close = bytes[start...].firstIndex(of: UInt8(ascii: ">")), close - start >= 3 else {
                return nil
            }
            position = close + 1
            return String(decoding: bytes[start..<close], as: UTF8.self)
        }
        let start = position
        while let byte = current, Self.isLetter(byte) { position += 1 }
        guard position - start >= 3 else { return nil }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// `[+-]hh[:mm[:ss]]`, returned as seconds east of UTC (POSIX counts west).
    mutating func offset() -> Int? {
        let sign = self.sign()
        guard let seconds = clock() else { return nil }
        return -sign * seconds
    }

    /// An optional `+` or `-`: 1 or -1.
    private mutating func sign() -> Int {
        guard current == UInt8(ascii: "-") || current == UInt8(ascii: "+") else { return 1 }
        defer { position += 1 }
        return current == UInt8(ascii: "-") ? -1 : 1
    }

    /// `,Mm.w.d[/time]`, `,Jn[/time]` or `,n[/time]`.
    mutating func change() -> PosixZoneRule.Change? {
        if current == UInt8(ascii: ",") { position += 1 }
        var change: PosixZoneRule.Change
        if current == UInt8(ascii: "M") {
            position += 1
            guard let month = number(), current == UInt8(ascii: ".") else { return nil }
            position += 1
            guard let week = number(), current == UInt8(ascii: ".") else { return nil }
            position += 1
            guard let weekday = number(), (1...12).contains(month), (1...5).contains(week), weekday <= 6
            else {
                return nil
            }
            change = .init(date: .monthWeekDay(month: month, week: week, weekday: weekday))
        } else if current == UInt8(ascii: "J") {
            position += 1
            guard let day = number(), (1...365).contains(day) else { return nil }
            change = .init(date: .julianSkippingLeapDay(day))
        } else if let day = number(), day <= 365 {
            change = .init(date: .zeroBasedDayOfYear(day))
        } else {
            return nil
        }
        if current == UInt8(ascii: "/") {
            position += 1
            let sign = self.sign()
            guard let seconds = clock() else { return nil }
            change.secondsAfterMidnight = sign * seconds
        }
        return change
    }

    private mutating func number() -> Int? {
        let start = position
        var value = 0
        while let byte = current, Self.isDigit(byte), value < 1_000_000 {
            value = value * 10 + Int(byte - 0x30)
            position += 1
        }
        return position > start ? value : nil
    }

    private mutating func clock() -> Int? {
        guard let hours = number() else { return nil }
        var seconds = hours * 3600
        if current == UInt8(ascii: ":") {
            position += 1
            guard let minutes = number() else { return nil }
            seconds += minutes * 60
            if current == UInt8(ascii: ":") {
                position += 1
                guard let secs = number() else { return nil }
                seconds += secs
            }
        }
        return seconds
    }
}
