import Foundation

/// Parses what a person types for a due date, relative to `now` in `timeZone` (proleptic Gregorian calendar).
/// Pure: it never reads the clock or the system time zone, so the same input, `now` and zone give the same instant.
///
/// Accepted, case-insensitively, with surrounding whitespace ignored:
/// - `now`.
/// - ISO 8601: `2026-12-01T09:00`, `2026-12-01T09:00:30`, `2026-12-01 09:00`, optionally with an offset (`Z`,
///   `+01:00`, `-0500`, `+01`). Without an offset the time is local to `timeZone`. A date alone (`2026-12-01`)
///   means 09:00 local on that day, a sensible hour for a reminder rather than midnight.
/// - A day, a time, or both, in either order, optionally joined by `at`: `today 17:00`, `tomorrow 9am`,
///   `fri at 5 pm`, `2026-12-01 9:30pm`. Days are `today`, `tomorrow`, an ISO date, or a weekday (full, 3-letter,
///   or `tues`/`thur`/`thurs`). Times are `H:MM`, `HH:MM[:SS]`, `9am`, `9 am`, `9:30pm`, `noon`, `midnight`
///   (00:00, the start of that day); `12am` is 00:00 and `12pm` is 12:00.
///   - A day without a time means 09:00 on that day. `today` and an ISO date may therefore be in the past.
///   - A time without a day is its next occurrence: today if that instant is still strictly after `now`,
///     otherwise tomorrow.
///   - A weekday is its next occurrence: today counts only if the resulting instant is still strictly after
///     `now`; otherwise it is the same weekday a week later.
/// - Relative: `in 10m`, `in 2 hours`, `+2h`, `in 1h30m`, `in 1 hour and 30 minutes`, whole non-negative amounts
///   of s/sec/secs/second/seconds, m/min/mins/minute/minutes, h/hr/hrs/hour/hours, d/day/days, w/week/weeks.
///   Seconds, minutes and hours are exact elapsed time. Days and weeks are calendar days in `timeZone` (the same
///   wall time N days later, with the DST rules below), applied before any elapsed part.
///
/// Local times are resolved by `LocalTime`, with the DST rules of DESIGN.md §3: a time in a spring-forward gap is
/// the first instant after the gap, a time that occurs twice is its first occurrence. So a bare time inside the
/// repeated hour whose first occurrence has passed moves to tomorrow rather than to today's second occurrence.
/// This type only parses.
public struct TimeInput: Sendable {
    public let now: Date
    public let timeZone: TimeZone

    public init(now: Date, timeZone: TimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The longest input `parse` reads; what people type is far shorter.
    public static let maximumLength = 200

    public func parse(_ text: String) throws(ModelError) -> Date {
        guard text.utf8.count <= Self.maximumLength else {
            throw .timeTooLong(length: text.utf8.count, limit: Self.maximumLength)
        }
        let tokens = text.split(whereSeparator: \.isWhitespace).map { Token(text: String($0)) }
        guard let first = tokens.first else { throw .timeNotUnderstood(text, in: text) }

        if first.key == "now" {
            if tokens.count > 1 { throw .timeNotUnderstood(tokens[1].text, in: text) }
            return now
        }
        if first.key == "in" {
            return try relative(Array(tokens.dropFirst()), lead: first, input: text)
        }
        if first.key.hasPrefix("+") {
            // Keep the "+" in the token's text so an error names what the person typed.
            let rest = Token(text: first.text, key: String(first.key.dropFirst()))
            let amounts = rest.key.isEmpty ? Array(tokens.dropFirst()) : [rest] + tokens.dropFirst()
            return try relative(amounts, lead: first, input: text)
        }
        if let instant = isoDateTime(tokens) {
            return instant
        }
        return try dayAndTime(tokens, input: text)
    }
}

// MARK: - Grammar

extension TimeInput {
    private struct Token {
        let text: String  // as typed, for error messages
        let key: String  // lowercased, for matching

        init(text: String, key: String? = nil) {
            self.text = text
            self.key = key ?? text.lowercased()
        }
    }

    private enum Day {
        case today, tomorrow
        case weekday(Int)  // 0 = Sunday
        case date(days: Int)  // days since 1970-01-01
    }

    fileprivate struct TimeOfDay {
        var hour: Int, minute: Int, second: Int
        var fraction: Double = 0
        var seconds: Int { hour * 3600 + minute * 60 + second }
        static let defaultReminder = TimeOfDay(hour: 9, minute: 0, second: 0)
    }

    private static let weekdays: [String: Int] = [
        "sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2, "wed": 3, "wednesday": 3,
        "thu": 4, "thur": 4, "thurs": 4, "thursday": 4, "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    ]

    private enum Unit {
        case elapsed(seconds: Int)
        case calendarDays(Int)

        init?(_ word: String) {
            switch word {
            case "s", "sec", "secs", "second", "seconds": self = .elapsed(seconds: 1)
            case "m", "min", "mins", "minute", "minutes": self = .elapsed(seconds: 60)
            case "h", "hr", "hrs", "hour", "hours": self = .elapsed(seconds: 3600)
            case "d", "day", "days": self = .calendarDays(1)
            case "w", "week", "weeks": self = .calendarDays(7)
            default: return nil
            }
        }
    }

    /// `in …` and `+…`: a sequence of amounts with units, glued (`1h30m`) or spaced (`1 hour 30 minutes`).
    private func relative(_ tokens: [Token], lead: Token, input: String) throws(ModelError) -> Date {
        // Bounds keep the arithmetic far from overflow and the result inside years 1...9999.
        let maxDigits = 9
        let maxSeconds = 10_000 * 366 * 86_400
        var days = 0
        var seconds = 0
        var sawAmount = false
        var pending: (amount: Int, token: Token)?

        func add(_ amount: Int, _ unit: Unit, naming token: Token) throws(ModelError) {
            switch unit {
            case .elapsed(let perUnit):
                guard amount <= maxSeconds / perUnit else { throw .timeNotUnderstood(token.text, in: input) }
                seconds += amount * perUnit
            case .calendarDays(let perUnit):
                guard amount <= maxSeconds / 86_400 / perUnit else { throw .timeNotUnderstood(token.text, in: input) }
                days += amount * perUnit
            }
            sawAmount = true
        }

        for token in tokens {
            if let number = pending {
                guard let unit = Unit(token.key) else { throw .timeNotUnderstood(token.text, in: input) }
                try add(number.amount, unit, naming: number.token)
                pending = nil
                continue
            }
            if token.key == "and" && sawAmount { continue }
            var scanner = Scanner(token.key)
            if let amount = scanner.number(maxDigits: maxDigits), scanner.atEnd {
                pending = (amount, token)
                continue
            }
            scanner = Scanner(token.key)
            repeat {
                guard let amount = scanner.number(maxDigits: maxDigits), let unit = Unit(scanner.letters()) else {
                    throw .timeNotUnderstood(token.text, in: input)
                }
                try add(amount, unit, naming: token)
            } while !scanner.atEnd
        }
        if let number = pending { throw .timeNotUnderstood(number.token.text, in: input) }
        guard sawAmount else { throw .timeNotUnderstood(lead.text, in: input) }

        var result = now
        if days > 0 {
            // Skipped for zero days, so `in 0d` during a repeated hour stays at now instead of its first occurrence.
            guard let shifted = local.adding(days: days, to: now) else {
                throw .timeNotUnderstood(tokens.map(\.text).joined(separator: " "), in: input)
            }
            result = shifted
        }
        result += TimeInterval(seconds)
        guard result.timeIntervalSince1970 < Self.endOfYear9999 else {
            throw .timeNotUnderstood(tokens.map(\.text).joined(separator: " "), in: input)
        }
        return result
    }

    /// ISO 8601 with a space for the `T`: a date token, then a two-digit-hour time token that may carry an offset.
    /// Nil for any other shape, so the day-and-time grammar reads it (and names what it cannot read).
    private func isoDateTime(_ tokens: [Token]) -> Date? {
        guard tokens.count == 2 else { return nil }
        var dateScanner = Scanner(tokens[0].key)
        var timeScanner = Scanner(tokens[1].key)
        guard let days = dateScanner.isoDate(), dateScanner.atEnd,
            let parsed = timeScanner.isoTime(), timeScanner.atEnd
        else { return nil }
        return resolve(days: days, time: parsed.time, offset: parsed.offset)
    }

    /// One ISO 8601 token with `T`; nil when the token does not start that way, thrown when it does but is invalid.
    private func isoDateTime(_ token: Token, input: String) throws(ModelError) -> Date? {
        var scanner = Scanner(token.key)
        guard scanner.looksLikeDate, scanner.peek(at: 10) == UInt8(ascii: "t") else { return nil }
        guard let days = scanner.isoDate(), scanner.consume("t"), let parsed = scanner.isoTime(), scanner.atEnd
        else { throw .timeNotUnderstood(token.text, in: input) }
        return resolve(days: days, time: parsed.time, offset: parsed.offset)
    }

    /// `[day] [at] [time]` in either order, or one ISO date-time token; nothing may follow a complete instant.
    private func dayAndTime(_ tokens: [Token], input: String) throws(ModelError) -> Date {
        var day: Day?
        var time: TimeOfDay?
        var index = 0
        if let instant = try isoDateTime(tokens[0], input: input) {
            guard tokens.count == 1 else { throw .timeNotUnderstood(tokens[1].text, in: input) }
            return instant
        }
        while index < tokens.count {
            let token = tokens[index]
            if day == nil, let parsed = Self.day(token.key) {
                day = parsed
                index += 1
                continue
            }
            if time == nil {
                let start = token.key == "at" && index + 1 < tokens.count ? index + 1 : index
                if let parsed = try Self.timeOfDay(tokens, at: start, input: input) {
                    time = parsed.time
                    index = start + parsed.used
                    continue
                }
            }
            throw .timeNotUnderstood(token.text, in: input)
        }

        let today = LocalTime.floorDiv(local.wallClock(at: now).wall, 86_400)
        let at = time ?? .defaultReminder
        switch day {
        case nil:
            let candidate = resolve(days: today, time: at, offset: nil)
            return candidate > now ? candidate : resolve(days: today + 1, time: at, offset: nil)
        case .today:
            return resolve(days: today, time: at, offset: nil)
        case .tomorrow:
            return resolve(days: today + 1, time: at, offset: nil)
        case .date(let days):
            return resolve(days: days, time: at, offset: nil)
        case .weekday(let weekday):
            let ahead = (weekday - LocalTime.weekday(ofDays: today) + 7) % 7
            let candidate = resolve(days: today + ahead, time: at, offset: nil)
            return ahead > 0 || candidate > now ? candidate : resolve(days: today + 7, time: at, offset: nil)
        }
    }

    private static func day(_ key: String) -> Day? {
        switch key {
        case "today": return .today
        case "tomorrow": return .tomorrow
        default:
            if let weekday = weekdays[key] { return .weekday(weekday) }
            var scanner = Scanner(key)
            if let days = scanner.isoDate(), scanner.atEnd { return .date(days: days) }
            return nil
        }
    }

    /// A time of day starting at `tokens[index]`, and how many tokens it used (`9 am` uses two).
    /// Nil when the token is not time-shaped; throws when it is time-shaped but out of range (`25:00`, `13pm`).
    private static func timeOfDay(
        _ tokens: [Token],
        at index: Int,
        input: String
    ) throws(ModelError) -> (time: TimeOfDay, used: Int)? {
        let key = tokens[index].key
        if key == "noon" { return (TimeOfDay(hour: 12, minute: 0, second: 0), 1) }
        if key == "midnight" { return (TimeOfDay(hour: 0, minute: 0, second: 0), 1) }

        var scanner = Scanner(key)
        guard let hour = scanner.number(maxDigits: 2) else { return nil }
        var minute = 0
        var second = 0
        let hasMinutes = scanner.consume(":")
        if hasMinutes {
            guard let parsed = scanner.number(exactDigits: 2) else { return nil }
            minute = parsed
            if scanner.consume(":") {
                guard let parsed = scanner.number(exactDigits: 2) else { return nil }
                second = parsed
            }
        }
        var meridiem = scanner.letters()
        guard scanner.atEnd else { return nil }
        var used = 1
        var text = tokens[index].text
        if meridiem.isEmpty, index + 1 < tokens.count, ["am", "pm"].contains(tokens[index + 1].key) {
            meridiem = tokens[index + 1].key
            text += " " + tokens[index + 1].text
            used = 2
        }

        var hour24 = hour
        switch meridiem {
        case "am", "pm":
            guard (1...12).contains(hour) else { throw .timeNotUnderstood(text, in: input) }
            hour24 = hour % 12 + (meridiem == "pm" ? 12 : 0)
        case "":
            // A bare number is too ambiguous to guess between 24-hour and 12-hour.
            guard hasMinutes else { return nil }
        default:
            return nil
        }
        guard hour24 < 24, minute < 60, second < 60 else { throw .timeNotUnderstood(text, in: input) }
        return (TimeOfDay(hour: hour24, minute: minute, second: second), used)
    }
}

// MARK: - Local time

extension TimeInput {
    /// 10000-01-01T00:00:00Z: relative results must fall before it, like every date the grammar can name.
    private static let endOfYear9999: TimeInterval = 253_402_300_800

    private var local: LocalTime { LocalTime(timeZone: timeZone) }

    private func resolve(days: Int, time: TimeOfDay, offset: Int?) -> Date {
        let wall = days * 86_400 + time.seconds
        if let offset {
            return LocalTime.date(wall - offset, fraction: time.fraction)
        }
        let instant = local.instant(forWall: wall)
        return LocalTime.date(instant.seconds, fraction: instant.existed ? time.fraction : 0)
    }
}

// MARK: - Scanning

extension TimeInput {
    /// Reads ASCII pieces from a lowercased token; anything non-ASCII simply fails to match.
    fileprivate struct Scanner {
        private let bytes: [UInt8]
        private var index = 0

        init(_ text: String) { bytes = Array(text.utf8) }

        var atEnd: Bool { index == bytes.count }

        /// `dddd-dd-dd` at the start, whether or not it is a real date.
        var looksLikeDate: Bool {
            let digitPositions = [0, 1, 2, 3, 5, 6, 8, 9]
            return bytes.count >= 10 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
                && digitPositions.allSatisfy { Self.isDigit(bytes[$0]) }
        }

        func peek(at position: Int) -> UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func consume(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// A run of one to `maxDigits` digits; a longer run is no match, so `123456789012` is not read as a prefix.
        mutating func number(maxDigits: Int) -> Int? {
            let start = index
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            guard index > start, index - start <= maxDigits else {
                index = start
                return nil
            }
            return bytes[start..<index].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }

        /// Exactly `count` digits, leaving any that follow: `0500` in `-0500` is hours then minutes.
        mutating func number(exactDigits count: Int) -> Int? {
            let end = index + count
            guard end <= bytes.count, bytes[index..<end].allSatisfy(Self.isDigit) else { return nil }
            defer { index = end }
            return bytes[index..<end].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }

        mutating func letters() -> String {
            let start = index
            while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// `YYYY-MM-DD`, validated, as days since 1970-01-01.
        mutating func isoDate() -> Int? {
            guard let year = number(exactDigits: 4), year >= 1, consume("-"),
                let month = number(exactDigits: 2), (1...12).contains(month), consume("-"),
                let day = number(exactDigits: 2), day >= 1, day <= LocalTime.daysInMonth(year: year, month: month)
            else { return nil }
            return LocalTime.days(year: year, month: month, day: day)
        }

        /// `HH:MM[:SS[.fff]][Z|±HH[:MM]|±HHMM]`; the offset is in seconds east of UTC.
        mutating func isoTime() -> (time: TimeOfDay, offset: Int?)? {
            guard let hour = number(exactDigits: 2), hour < 24, consume(":"),
                let minute = number(exactDigits: 2), minute < 60
            else { return nil }
            var second = 0
            var fraction = 0.0
            if consume(":") {
                guard let parsed = number(exactDigits: 2), parsed < 60 else { return nil }
                second = parsed
                if consume(".") || consume(",") {
                    let start = index
                    while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
                    guard index > start, index - start <= 9 else { return nil }
                    fraction = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0
                }
            }
            let time = TimeOfDay(hour: hour, minute: minute, second: second, fraction: fraction)
            if atEnd { return (time, nil) }
            if consume("z") { return (time, 0) }
            let sign: Int
            if consume("+") { sign = 1 } else if consume("-") { sign = -1 } else { return nil }
            guard let offsetHours = number(exactDigits: 2), offsetHours < 24 else { return nil }
            var offsetMinutes = 0
            if !atEnd {
                _ = consume(":")
                guard let parsed = number(exactDigits: 2), parsed < 60 else { return nil }
                offsetMinutes = parsed
            }
            return (time, sign * (offsetHours * 3600 + offsetMinutes * 60))
        }

        private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}
