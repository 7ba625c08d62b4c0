import Foundation

/// Parses what a person types for a due date, relative to `now` in `timeZone` (proleptic Gregorian calendar).
/// Pure: it never reads the clock or the system time zone, so the same input, `now` and zone give the same instant.
///
/// Accepted, case-insensitively, with surrounding whitespace ignored:
/// - `now`.
/// - ISO 8601: `2026-12-01T09:00`, `2026-12-01T09:00:30`, `2026-12-01 09:00`, optionally with an offset (`Z`,
///   `+01:00`, `-0500`, `+01`). Without an offset the time is local to `timeZone`. A date alone (`2026-12-01`)
///   means 09:00 local on that day, a sensible hour for a reminder rather than midnight.
/// - A day, a time, or both, in either order, optionally joined by `at`, optionally followed by an offset
///   (`fri 17:00 +01:00`): `today 17:00`, `tomorrow 9`, `fri at 5 pm`, `next monday 10:00`, `dec 1`, `1 dec 9:30`,
///   `Sat 21 Nov 17:00` (as `nudge ls` prints it), `Mon 4 Jan 2027 09:00`.
///   - Days are `today`, `tonight` (today, at 20:00 unless a time is given), `tomorrow`, an ISO date, a weekday
///     (full, 3-letter, or `tues`/`thur`/`thurs`), `next` and a weekday, or a day of a month (`dec 1`, `1 dec`,
///     `december 1st`, with an optional four-digit year after it). A weekday before a date must be that date's.
///   - Times are `H:MM`, `HH:MM[:SS]`, `9am`, `9 am`, `9:30pm`, `noon`, `midnight` (00:00, the start of that
///     day), `eod` (17:00, the end of a working day); `12am` is 00:00 and `12pm` is 12:00. After a day, a bare
///     hour is on the 24-hour clock: `tomorrow 9` is 09:00, `fri 17` is 17:00.
///   - A day without a time means 09:00 on that day (`ChecklistItem.dayReminderTime`); `parseDue` keeps it a day.
///     `today` and an ISO date may therefore be in the past.
///   - A time without a day is its next occurrence: today if that instant is still strictly after `now`,
///     otherwise tomorrow.
///   - A weekday is its next occurrence: today counts only if the resulting instant is still strictly after
///     `now`; otherwise it is the same weekday a week later. `next` skips today: `next fri` on a Friday is a week
///     later, on a Thursday the next day.
///   - A day of a month without a year is this year's, unless that day is before today: then it is the next
///     year's (the next leap year's, for 29 February).
/// - Relative: `in 10m`, `in 2 hours`, `+2h`, `1h30m`, `90m`, `2 days`, `in 1 hour and 30 minutes`, whole
///   non-negative amounts of s/sec/secs/second/seconds, m/min/mins/minute/minutes, h/hr/hrs/hour/hours,
///   d/day/days, w/week/weeks. Seconds, minutes and hours are exact elapsed time. Days and weeks are calendar days
///   in `timeZone` (the same wall time N days later, with the DST rules below), applied before any elapsed part.
///
/// Local times are resolved by `LocalTime`, with the DST rules of DESIGN.md §3: a time in a spring-forward gap is
/// the first instant after the gap, a time that occurs twice is its first occurrence. So a bare time inside the
/// repeated hour whose first occurrence has passed moves to tomorrow rather than to today's second occurrence.
/// (`LocalTimeFormat.short` adds the offset to a second occurrence, so what `ls` prints reads back exactly.)
///
/// An error names the part that is wrong and, for a part out of range, the range; a misspelt word gets a
/// suggestion. This type only parses.
public struct TimeInput: Sendable {
    public let now: Date
    public let timeZone: TimeZone

    public init(now: Date, timeZone: TimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The longest input `parse` reads; what people type is far shorter.
    public static let maximumLength = 200

    /// What a person typed for a due date: an instant, or a day (`on`) where they named a day and no time.
    public enum Due: Sendable, Equatable {
        case at(Date)
        case on(CalendarDay)

        public var instant: Date? { if case .at(let instant) = self { instant } else { nil } }
        public var day: CalendarDay? { if case .on(let day) = self { day } else { nil } }
    }

    /// `text` as a due date: as `parse` reads it, except that a day named without a time or `tonight`
    /// (`fri`, `dec 1`, `2026-12-01`, `today`) is that day, not 09:00 of it. A weekday is then today's, if today is
    /// that weekday (unless `next`): an item due on Friday, said on a Friday, is due today.
    public func parseDue(_ text: String) throws(ModelError) -> Due {
        try read(text, keepingDay: true)
    }

    public func parse(_ text: String) throws(ModelError) -> Date {
        switch try read(text, keepingDay: false) {
        case .at(let instant): return instant
        case .on(let day): return resolve(days: day.days, time: .defaultReminder, offset: nil)
        }
    }

    private func read(_ text: String, keepingDay: Bool) throws(ModelError) -> Due {
        guard text.utf8.count <= Self.maximumLength else {
            throw .timeTooLong(length: text.utf8.count, limit: Self.maximumLength)
        }
        let tokens = text.split(whereSeparator: \.isWhitespace).map { Token(text: String($0)) }
        guard let first = tokens.first else { throw .timeNotUnderstood(text, in: text) }

        if first.key == "now" {
            if tokens.count > 1 { throw .timeNotUnderstood(tokens[1].text, in: text) }
            return .at(now)
        }
        if first.key == "in" {
            return .at(try relative(Array(tokens.dropFirst()), lead: first, input: text))
        }
        if first.key.hasPrefix("+") {
            // Keep the "+" in the token's text so an error names what the person typed.
            let rest = Token(text: first.text, key: String(first.key.dropFirst()))
            let amounts = rest.key.isEmpty ? Array(tokens.dropFirst()) : [rest] + tokens.dropFirst()
            return .at(try relative(amounts, lead: first, input: text))
        }
        if Self.startsWithAmount(tokens) {
            return .at(try relative(tokens, lead: first, input: text))
        }
        if let instant = isoDateTime(tokens) {
            return .at(instant)
        }
        return try dayAndTime(tokens, input: text, keepingDay: keepingDay)
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
        case weekday(Int, skippingToday: Bool)  // 0 = Sunday
        case date(days: Int)  // days since 1970-01-01
        case dayOfMonth(month: Int, day: Int)  // no year given

        var weekday: Int? {
            if case .weekday(let weekday, _) = self { return weekday }
            return nil
        }
    }

    fileprivate struct TimeOfDay {
        var hour: Int, minute: Int, second: Int
        var fraction: Double = 0
        var seconds: Int { hour * 3600 + minute * 60 + second }
        static let defaultReminder = TimeOfDay(
            hour: ChecklistItem.dayReminderTime / 3600,
            minute: ChecklistItem.dayReminderTime % 3600 / 60,
            second: 0
        )
        static let evening = TimeOfDay(hour: 20, minute: 0, second: 0)
        static let endOfWorkingDay = TimeOfDay(hour: 17, minute: 0, second: 0)
    }

    private static let weekdays: [String: Int] = [
        "sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2, "wed": 3, "wednesday": 3,
        "thu": 4, "thur": 4, "thurs": 4, "thursday": 4, "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    ]
    private static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
    /// Full names, three-letter names and `sept`, to 1...12.
    private static let months: [String: Int] = {
        var months: [String: Int] = ["sept": 9]
        for (index, name) in monthNames.enumerated() {
            months[name.lowercased()] = index + 1
            months[String(name.lowercased().prefix(3))] = index + 1
        }
        return months
    }()

    /// Every word the grammar knows, for "did you mean".
    private static let vocabulary: [String] =
        ["today", "tomorrow", "tonight", "next", "noon", "midnight", "eod", "now", "in", "at"]
        + weekdayNames.map { $0.lowercased() } + monthNames.map { $0.lowercased() }
        + ["second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks"]

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

    /// Whether the input starts like an amount of time (`1h`, `90m`, `2 days`), which reads as `in …`.
    private static func startsWithAmount(_ tokens: [Token]) -> Bool {
        var scanner = Scanner(tokens[0].key)
        guard scanner.number(maxDigits: 9) != nil else { return false }
        if scanner.atEnd { return tokens.count > 1 && Unit(tokens[1].key) != nil }
        return Unit(scanner.letters()) != nil
    }

    /// The "not understood" error for a token, with a suggestion when it looks like a misspelt word.
    private static func notUnderstood(_ token: Token, in input: String) -> ModelError {
        let word = token.key.allSatisfy(\.isLetter) && token.key.count >= 3
        let suggestion = word ? Spelling.closest(to: token.key, among: vocabulary) : nil
        return .timeNotUnderstood(
            token.text,
            in: input,
            because: suggestion.map { "is not understood; did you mean \"\($0)\"?" }
        )
    }

    /// `in …`, `+…` and a bare amount: a sequence of amounts with units, glued (`1h30m`) or spaced
    /// (`1 hour 30 minutes`).
    private func relative(_ tokens: [Token], lead: Token, input: String) throws(ModelError) -> Date {
        // Bounds keep the arithmetic far from overflow and the result inside years 1...9999.
        let maxDigits = 9
        let maxSeconds = 10_000 * 366 * 86_400
        let tooFar = "is too far ahead: a due date is at most 9999-12-31"
        var days = 0
        var seconds = 0
        var sawAmount = false
        var pending: (amount: Int, token: Token)?

        func add(_ amount: Int, _ unit: Unit, naming token: Token) throws(ModelError) {
            switch unit {
            case .elapsed(let perUnit):
                guard amount <= maxSeconds / perUnit else {
                    throw .timeNotUnderstood(token.text, in: input, because: tooFar)
                }
                seconds += amount * perUnit
            case .calendarDays(let perUnit):
                guard amount <= maxSeconds / 86_400 / perUnit else {
                    throw .timeNotUnderstood(token.text, in: input, because: tooFar)
                }
                days += amount * perUnit
            }
            sawAmount = true
        }

        for token in tokens {
            if let number = pending {
                guard let unit = Unit(token.key) else { throw Self.notUnderstood(token, in: input) }
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
                    throw .timeNotUnderstood(
                        token.text,
                        in: input,
                        because: "is not understood: give whole amounts with units s, m, h, d or w, like 1h30m"
                    )
                }
                try add(amount, unit, naming: token)
            } while !scanner.atEnd
        }
        if let number = pending {
            throw .timeNotUnderstood(number.token.text, in: input, because: "has no unit: add s, m, h, d or w")
        }
        guard sawAmount else {
            throw .timeNotUnderstood(lead.text, in: input, because: "needs an amount after it, like in 10m")
        }

        var result = now
        if days > 0 {
            // Skipped for zero days, so `in 0d` during a repeated hour stays at now instead of its first occurrence.
            guard let shifted = local.adding(days: days, to: now) else {
                throw .timeNotUnderstood(tokens.map(\.text).joined(separator: " "), in: input, because: tooFar)
            }
            result = shifted
        }
        result += TimeInterval(seconds)
        guard result.timeIntervalSince1970 < Self.endOfYear9999 else {
            throw .timeNotUnderstood(tokens.map(\.text).joined(separator: " "), in: input, because: tooFar)
        }
        return result
    }

    /// ISO 8601 with a space for the `T`: a date token, then a two-digit-hour time token that may carry an offset.
    /// Nil for any other shape, so the day-and-time grammar reads it (and names what it cannot read).
    private func isoDateTime(_ tokens: [Token]) -> Date? {
        guard tokens.count == 2 else { return nil }
        var dateScanner = Scanner(tokens[0].key)
        var timeScanner = Scanner(tokens[1].key)
        guard let days = try? dateScanner.isoDate(), dateScanner.atEnd,
            let parsed = timeScanner.isoTime(), timeScanner.atEnd
        else { return nil }
        return resolve(days: days, time: parsed.time, offset: parsed.offset)
    }

    /// One ISO 8601 token with `T`; nil when the token does not start that way, thrown when it does but is invalid.
    private func isoDateTime(_ token: Token, input: String) throws(ModelError) -> Date? {
        var scanner = Scanner(token.key)
        guard scanner.looksLikeDate, scanner.peek(at: 10) == UInt8(ascii: "t") else { return nil }
        let days: Int?
        do { days = try scanner.isoDate() } catch {
            throw .timeNotUnderstood(token.text, in: input, because: error.reason)
        }
        guard let days, scanner.consume("t"), let parsed = scanner.isoTime(), scanner.atEnd else {
            throw .timeNotUnderstood(
                token.text,
                in: input,
                because: "is not understood: an ISO time is HH:MM or HH:MM:SS, 00:00 to 23:59:59, then an optional "
                    + "offset (Z, +01:00), like 2026-12-01T09:00+01:00"
            )
        }
        return resolve(days: days, time: parsed.time, offset: parsed.offset)
    }

    /// `[day] [at] [time] [offset]`, the day and time in either order, or one ISO date-time token; nothing may
    /// follow a complete instant.
    private func dayAndTime(_ tokens: [Token], input: String, keepingDay: Bool) throws(ModelError) -> Due {
        var day: Day?
        var time: TimeOfDay?
        /// The time a day means without one, if not 09:00 (`tonight`).
        var defaultTime: TimeOfDay?
        var offset: Int?
        var weekdayIndex: Int?
        var index = 0
        if let instant = try isoDateTime(tokens[0], input: input) {
            guard tokens.count == 1 else { throw .timeNotUnderstood(tokens[1].text, in: input) }
            return .at(instant)
        }
        while index < tokens.count {
            let token = tokens[index]
            if offset == nil, time != nil, let parsed = Self.offset(token.key) {
                offset = parsed
                index += 1
                continue
            }
            // `Sat 21 Nov`: a date right after a weekday replaces it, which must be that date's.
            let afterWeekday = day?.weekday != nil && weekdayIndex == index - 1
            if day == nil || afterWeekday, let parsed = try Self.day(tokens, at: index, input: input) {
                if let weekday = day?.weekday {
                    guard parsed.day.weekday == nil, let days = try self.days(of: parsed.day) else {
                        throw Self.notUnderstood(token, in: input)
                    }
                    guard LocalTime.weekday(ofDays: days) == weekday else {
                        throw .timeNotUnderstood(
                            tokens[index - 1].text,
                            in: input,
                            because: "does not match the date after it, a \(Self.weekdayName(ofDays: days))"
                        )
                    }
                }
                if parsed.day.weekday != nil { weekdayIndex = index }
                day = parsed.day
                if token.key == "tonight" { defaultTime = .evening }
                index += parsed.used
                continue
            }
            if time == nil {
                let start = token.key == "at" && index + 1 < tokens.count ? index + 1 : index
                if let parsed = try Self.timeOfDay(tokens, at: start, afterDay: day != nil, input: input) {
                    time = parsed.time
                    index = start + parsed.used
                    continue
                }
            }
            throw Self.notUnderstood(token, in: input)
        }

        if keepingDay, let day, time == nil, defaultTime == nil {
            let days: Int?
            if case .weekday(let weekday, let skippingToday) = day {
                let ahead = (weekday - LocalTime.weekday(ofDays: today) + 7) % 7
                days = today + (ahead == 0 && skippingToday ? 7 : ahead)
            } else {
                days = try self.days(of: day)
            }
            if let days, let calendarDay = CalendarDay(days: days) { return .on(calendarDay) }
        }
        let at = time ?? defaultTime ?? .defaultReminder
        if case .weekday(let weekday, let skippingToday) = day {
            let ahead = (weekday - LocalTime.weekday(ofDays: today) + 7) % 7
            if ahead == 0 && skippingToday { return .at(resolve(days: today + 7, time: at, offset: offset)) }
            let candidate = resolve(days: today + ahead, time: at, offset: offset)
            return .at(ahead > 0 || candidate > now ? candidate : resolve(days: today + 7, time: at, offset: offset))
        }
        guard let days = try self.days(of: day) else {
            let candidate = resolve(days: today, time: at, offset: offset)
            return .at(candidate > now ? candidate : resolve(days: today + 1, time: at, offset: offset))
        }
        return .at(resolve(days: days, time: at, offset: offset))
    }

    /// Today in `timeZone`, as days since 1970-01-01.
    private var today: Int { LocalTime.floorDiv(local.wallClock(at: now).wall, 86_400) }

    /// The day a day names, as days since 1970-01-01; nil for no day and for a weekday, which depends on the time.
    private func days(of day: Day?) throws(ModelError) -> Int? {
        switch day {
        case nil, .weekday: return nil
        case .today: return today
        case .tomorrow: return today + 1
        case .date(let days): return days
        case .dayOfMonth(let month, let dayOfMonth):
            let now = LocalTime.civil(days: today)
            var year = (month, dayOfMonth) < (now.month, now.day) ? now.year + 1 : now.year
            while dayOfMonth > LocalTime.daysInMonth(year: year, month: month) { year += 1 }  // 29 February
            return LocalTime.days(year: year, month: month, day: dayOfMonth)
        }
    }

    private static func weekdayName(ofDays days: Int) -> String { weekdayNames[LocalTime.weekday(ofDays: days)] }

    /// A day starting at `tokens[index]`, and how many tokens it used (`next fri` and `dec 1` use two).
    /// Nil when the token does not start a day; throws when it does but is out of range (`dec 32`).
    private static func day(_ tokens: [Token], at index: Int, input: String) throws(ModelError) -> (
        day: Day, used: Int
    )? {
        let key = tokens[index].key
        let next = index + 1 < tokens.count ? tokens[index + 1] : nil
        switch key {
        case "today", "tonight": return (.today, 1)
        case "tomorrow": return (.tomorrow, 1)
        case "next":
            guard let next, let weekday = weekdays[next.key] else {
                throw .timeNotUnderstood(
                    (next.map { tokens[index].text + " " + $0.text }) ?? tokens[index].text,
                    in: input,
                    because: "is not understood: next is followed by a weekday, like next monday"
                )
            }
            return (.weekday(weekday, skippingToday: true), 2)
        default: break
        }
        if let weekday = weekdays[key] { return (.weekday(weekday, skippingToday: false), 1) }
        if let month = months[key], let next, let dayOfMonth = dayNumber(next.key) {
            return try monthDay(month, dayOfMonth, text: tokens[index].text + " " + next.text, tokens, index + 2, input)
        }
        if let dayOfMonth = dayNumber(key), let next, let month = months[next.key] {
            return try monthDay(month, dayOfMonth, text: tokens[index].text + " " + next.text, tokens, index + 2, input)
        }
        var scanner = Scanner(key)
        guard scanner.looksLikeDate else { return nil }
        do {
            if let days = try scanner.isoDate(), scanner.atEnd { return (.date(days: days), 1) }
        } catch {
            throw .timeNotUnderstood(tokens[index].text, in: input, because: error.reason)
        }
        return nil
    }

    /// `dec 1` or `1 dec`, checked against the month, with the four-digit year at `tokens[yearIndex]` if there is
    /// one.
    private static func monthDay(
        _ month: Int,
        _ dayOfMonth: Int,
        text: String,
        _ tokens: [Token],
        _ yearIndex: Int,
        _ input: String
    ) throws(ModelError) -> (day: Day, used: Int) {
        var year: Int?
        if yearIndex < tokens.count {
            var scanner = Scanner(tokens[yearIndex].key)
            if let parsed = scanner.number(exactDigits: 4), scanner.atEnd {
                guard parsed >= 1 else {
                    throw .timeNotUnderstood(
                        tokens[yearIndex].text,
                        in: input,
                        because: "is out of range: years run 1 to 9999"
                    )
                }
                year = parsed
            }
        }
        let length =
            year.map { LocalTime.daysInMonth(year: $0, month: month) }
            ?? (month == 2 ? 29 : LocalTime.daysInMonth(year: 2001, month: month))
        guard dayOfMonth >= 1, dayOfMonth <= length else {
            let name = monthNames[month - 1] + (year.map { " \($0)" } ?? "")
            throw .timeNotUnderstood(text, in: input, because: "is out of range: \(name) has days 1 to \(length)")
        }
        guard let year else { return (.dayOfMonth(month: month, day: dayOfMonth), 2) }
        return (.date(days: LocalTime.days(year: year, month: month, day: dayOfMonth)), 3)
    }

    /// `1`, `21`, `1st`, `22nd`, `3rd`, `4th`: a day of a month, not yet checked against one.
    private static func dayNumber(_ key: String) -> Int? {
        var scanner = Scanner(key)
        guard let number = scanner.number(maxDigits: 2) else { return nil }
        let suffix = scanner.letters()
        guard scanner.atEnd, ["", "st", "nd", "rd", "th"].contains(suffix) else { return nil }
        return number
    }

    /// `Z`, `UTC`, `+01:00`, `-0500` or `+01` after a time: seconds east of UTC.
    private static func offset(_ key: String) -> Int? {
        if key == "z" || key == "utc" { return 0 }
        var scanner = Scanner(key)
        guard key.hasPrefix("+") || key.hasPrefix("-"), let offset = scanner.utcOffset(), scanner.atEnd else {
            return nil
        }
        return offset
    }

    /// A time of day starting at `tokens[index]`, and how many tokens it used (`9 am` uses two).
    /// Nil when the token is not time-shaped; throws when it is time-shaped but out of range (`25:00`, `13pm`).
    /// A bare hour (`9`) is read only `afterDay` (`tomorrow 9`), where it cannot be a count of something else.
    private static func timeOfDay(
        _ tokens: [Token],
        at index: Int,
        afterDay: Bool,
        input: String
    ) throws(ModelError) -> (time: TimeOfDay, used: Int)? {
        let key = tokens[index].key
        if key == "noon" { return (TimeOfDay(hour: 12, minute: 0, second: 0), 1) }
        if key == "midnight" { return (TimeOfDay(hour: 0, minute: 0, second: 0), 1) }
        if key == "eod" { return (.endOfWorkingDay, 1) }

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
            guard (1...12).contains(hour) else {
                throw .timeNotUnderstood(
                    text,
                    in: input,
                    because: "is out of range: with am or pm the hour is 1 to 12, like 9pm"
                )
            }
            hour24 = hour % 12 + (meridiem == "pm" ? 12 : 0)
        case "":
            // Alone, a bare number is too ambiguous to guess between a 24-hour hour, a 12-hour one and an amount.
            guard hasMinutes || afterDay else { return nil }
        default:
            return nil
        }
        guard hour24 < 24, minute < 60, second < 60 else {
            throw .timeNotUnderstood(
                text,
                in: input,
                because: "is out of range: hours run 0 to 23, minutes and seconds 00 to 59, like 17:30"
            )
        }
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

        /// Why a part shaped like a date or time is not one, with the range it must be in.
        struct OutOfRange: Error {
            let reason: String
        }

        /// `YYYY-MM-DD` as days since 1970-01-01; nil when the text is not shaped like that, thrown when it is
        /// but names no day (`2026-02-30`).
        mutating func isoDate() throws(OutOfRange) -> Int? {
            guard let year = number(exactDigits: 4), consume("-"), let month = number(exactDigits: 2), consume("-"),
                let day = number(exactDigits: 2)
            else { return nil }
            guard year >= 1 else { throw OutOfRange(reason: "is out of range: years run 0001 to 9999") }
            guard (1...12).contains(month) else { throw OutOfRange(reason: "is out of range: months run 01 to 12") }
            let length = LocalTime.daysInMonth(year: year, month: month)
            guard day >= 1, day <= length else {
                let name = TimeInput.monthNames[month - 1]
                throw OutOfRange(reason: "is out of range: \(name) \(year) has days 01 to \(length)")
            }
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
            return utcOffset().map { (time, $0) }
        }

        /// `±HH[:MM]` or `±HHMM`, in seconds east of UTC.
        mutating func utcOffset() -> Int? {
            let sign: Int
            if consume("+") { sign = 1 } else if consume("-") { sign = -1 } else { return nil }
            guard let offsetHours = number(exactDigits: 2), offsetHours < 24 else { return nil }
            var offsetMinutes = 0
            if !atEnd {
                _ = consume(":")
                guard let parsed = number(exactDigits: 2), parsed < 60 else { return nil }
                offsetMinutes = parsed
            }
            return sign * (offsetHours * 3600 + offsetMinutes * 60)
        }

        private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}
