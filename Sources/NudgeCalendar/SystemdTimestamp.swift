import Foundation

/// Reads a timestamp as systemd does (systemd.time(7), "Parsing Timestamps"; `systemd-analyze timestamp` shows its
/// reading), so that `nudge calendar --base-time` takes what `systemd-analyze calendar --base-time` takes:
///
/// - a date and time, `[WEEKDAY] [YY]YY-MM-DD[ HH:MM[:SS[.FRACTION]]]` (`T` may join them), or a time alone
///   (today's), or `Mar 01 04:59:59` as the journal prints it; seconds and fractions are optional, a fraction
///   keeps six digits (rounded by the seventh), and fields past their month or day roll over as `mktime` does;
/// - followed by a zone: `UTC`, the local zone's abbreviations (`CET`, `CEST`: standard or daylight time), a zone
///   of the database (`Europe/Berlin`), or an offset (`+01:00`, `-0500`; also welded on, RFC 3339's
///   `2026-03-01T04:59:59Z` and `…+01:00`); without one the time is local;
/// - `now`, `today`, `yesterday`, `tomorrow` (the last three at 00:00, with an optional zone);
/// - a time span from now, `+3h30min`, `-5s`, `11min ago`, `2 weeks left`, or from the epoch, `@1395716396.5`,
///   with systemd's units (`us` or `μs`, `ms`, `s`, `min`, `h`, `d`, `w`, `M` = 30.44 days, `y` = 365.25 days).
///
/// A weekday that does not match the date is refused, as are instants before 1970 and after 9999-12-30, which
/// systemd cannot represent. Pure: `now`, the local zone and the zone database are given.
public enum SystemdTimestamp {
    /// The longest text read; a timestamp is a few dozen characters.
    public static let maximumLength = 256

    /// systemd 252's last formattable instant, 9999-12-30 23:59:59 UTC, in microseconds.
    static let latest: Int64 = 253_402_214_399_000_000

    public static func parse(_ text: String, now: Date, localZone: TimeZone, zones: ZoneRulesStore)
        throws(SystemdTimestampError) -> Date
    {
        CalendarSpec.date(
            try microseconds(
                text,
                now: CalendarSpec.microseconds(now),
                localRules: zones.rules(for: localZone),
                zones: zones
            )
        )
    }

    /// The instant in microseconds since the epoch, exact where a `Date` far from 1970 is not.
    static func microseconds(_ text: String, now: Int64, localRules: ZoneRules, zones: ZoneRulesStore)
        throws(SystemdTimestampError) -> Int64
    {
        guard text.utf8.count <= maximumLength else {
            throw SystemdTimestampError(text: String(text.prefix(40)) + "…", problem: .tooLong)
        }
        do throws(SystemdTimestampError.Problem) {
            return try Reader(now: now, localRules: localRules, zones: zones).read(Array(text.utf8))
        } catch {
            throw SystemdTimestampError(text: text, problem: error)
        }
    }
}

/// Why a timestamp was not read, with what to write instead.
public struct SystemdTimestampError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Error, Sendable, Equatable {
        case notUnderstood
        case tooLong
        case weekdayMismatch(given: String, actual: String)
        case outOfRange
    }

    public let text: String
    public let problem: Problem

    public var description: String {
        let examples =
            "\"2026-03-01 04:59:59.25 UTC\", \"Sun 2026-03-01 09:00 Europe/Berlin\", \"tomorrow\", \"-2h\", "
            + "\"@1772341199\""
        switch problem {
        case .notUnderstood:
            return "\"\(text)\" is not a timestamp as systemd.time(7) describes them; write it like \(examples)"
        case .tooLong:
            return "\"\(text)\" is longer than \(SystemdTimestamp.maximumLength) bytes; write it like \(examples)"
        case .weekdayMismatch(let given, let actual):
            return "\"\(text)\" says \(given), but that date is a \(actual); correct or leave out the weekday"
        case .outOfRange:
            return "\"\(text)\" is outside the times systemd can represent (1970-01-01 to 9999-12-30 23:59:59 UTC)"
        }
    }
}

// MARK: - The grammar

extension SystemdTimestamp {
    fileprivate typealias Problem = SystemdTimestampError.Problem

    /// Where the wall time is read: in a zone (its DST flag forced when an abbreviation said it), or in UTC shifted
    /// by an offset.
    fileprivate struct Frame {
        var clock: MktimeClock
        var dstFlag = -1
        var utcOffset: Int64 = 0
        /// Relative forms (`now`, `+5min`, `@…`) take no zone.
        var hasZone = false
    }

    fileprivate struct Reader {
        let now: Int64
        let localRules: ZoneRules
        let zones: ZoneRulesStore

        /// systemd's `parse_timestamp`: a welded `Z` or offset first, then a last word naming a zone.
        func read(_ text: [UInt8]) throws(Problem) -> Int64 {
            if text.count > 2, text.last == UInt8(ascii: "Z"),
                let value = try? body(text.dropLast(), in: Frame(clock: .utc, hasZone: true))
            {
                return value
            }
            if text.count > 7, text[text.count - 7] != UInt8(ascii: " "),
                let offset = Self.offset(text.suffix(6))
            {
                return try body(text.dropLast(6), in: Frame(clock: .utc, utcOffset: offset, hasZone: true))
            }
            guard let space = text.lastIndex(of: UInt8(ascii: " ")) else {
                return try body(text[...], in: Frame(clock: MktimeClock(zone: localRules)))
            }
            let head = text[..<space]
            let word = String(decoding: text[(space + 1)...], as: UTF8.self)
            if word.caseInsensitiveCompare("UTC") == .orderedSame {
                return try body(head, in: Frame(clock: .utc, hasZone: true))
            }
            if let offset = Self.offset(text[(space + 1)...]) {
                return try body(head, in: Frame(clock: .utc, utcOffset: offset, hasZone: true))
            }
            guard let rules = zones.rules(named: word) else {
                if let dstFlag = Self.abbreviationFlag(word, of: localRules) {
                    return try body(
                        head,
                        in: Frame(clock: MktimeClock(zone: localRules), dstFlag: dstFlag, hasZone: true)
                    )
                }
                // Not a zone: the last word is part of the time ("11min ago").
                return try body(text[...], in: Frame(clock: MktimeClock(zone: localRules)))
            }
            let dstFlag = Self.abbreviationFlag(word, of: rules) ?? -1
            return try body(head, in: Frame(clock: MktimeClock(zone: rules), dstFlag: dstFlag, hasZone: true))
        }

        /// 0 if `word` is the zone's standard abbreviation (glibc's `tzname[0]`), 1 if its daylight one.
        static func abbreviationFlag(_ word: String, of rules: ZoneRules) -> Int? {
            let names = [rules.localNames.standard, rules.localNames.daylight]
            return names.firstIndex { !$0.isEmpty && $0.caseInsensitiveCompare(word) == .orderedSame }
        }

        /// An ISO 8601 offset, `+01`, `+0100` or `+01:00` (glibc's `%z`), in seconds east of UTC; at most a day.
        static func offset(_ text: ArraySlice<UInt8>) -> Int64? {
            guard let sign = text.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            var digits = Array(text.dropFirst())
            if digits.count == 5, digits[2] == UInt8(ascii: ":") { digits.remove(at: 2) }
            guard digits.count == 2 || digits.count == 4, digits.allSatisfy(Self.isDigit) else { return nil }
            let value = digits.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
            let hours = digits.count == 2 ? value : value / 100
            let minutes = digits.count == 2 ? 0 : value % 100
            guard minutes < 60, hours * 60 + minutes <= 24 * 60 else { return nil }
            return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        }

        /// systemd's `parse_timestamp_impl`: the text before any zone.
        func body(_ text: ArraySlice<UInt8>, in frame: Frame) throws(Problem) -> Int64 {
            var frame = frame
            let word = String(decoding: text, as: UTF8.self)
            if !frame.hasZone {
                if text.first == UInt8(ascii: "@") { return try Self.checked(TimeSpan.microseconds(text.dropFirst())) }
                if word == "now" { return now }
                if text.first == UInt8(ascii: "+") {
                    return try Self.checked(now.addingReportingOverflow(TimeSpan.microseconds(text.dropFirst())))
                }
                if text.first == UInt8(ascii: "-") {
                    return try Self.checked(now.subtractingReportingOverflow(TimeSpan.microseconds(text.dropFirst())))
                }
                if word.hasSuffix(" ago") {
                    return try Self.checked(now.subtractingReportingOverflow(TimeSpan.microseconds(text.dropLast(4))))
                }
                if word.hasSuffix(" left") {
                    return try Self.checked(now.addingReportingOverflow(TimeSpan.microseconds(text.dropLast(5))))
                }
            }

            var tm = frame.clock.breakDown(CivilCalendar.floorDivide(now, 1_000_000).quotient)
            tm.dstFlag = frame.dstFlag
            if let days = ["yesterday": -1, "today": 0, "tomorrow": 1][word] {
                tm.day += days
                (tm.hour, tm.minute, tm.second) = (0, 0, 0)
                return try resolve(tm, fraction: 0, in: &frame)
            }

            // An optional weekday, full or abbreviated, in any case, and one space.
            var rest = text
            var weekday: Int?
            if let space = text.firstIndex(of: UInt8(ascii: " ")) {
                let name = String(decoding: text[..<space], as: UTF8.self).lowercased()
                weekday = Self.weekdayNames.firstIndex { $0.lowercased() == name || $0.prefix(3).lowercased() == name }
                if weekday != nil { rest = text[(space + 1)...] }
            }

            for layout in Self.layouts {
                var candidate = tm
                guard var position = layout.read(rest, into: &candidate) else { continue }
                var fraction: Int64 = 0
                if layout.takesFraction, position < rest.endIndex, rest[position] == UInt8(ascii: ".") {
                    guard let read = Self.fraction(rest, from: position + 1) else { throw .notUnderstood }
                    (fraction, position) = read
                }
                guard position == rest.endIndex else { continue }
                if let weekday {
                    let days = CivilCalendar.floorDivide(candidate.wallSeconds, CivilCalendar.secondsPerDay).quotient
                    let actual = CivilCalendar.weekday(daysSinceEpoch: days)
                    guard actual == weekday else {
                        throw .weekdayMismatch(given: Self.weekdayNames[weekday], actual: Self.weekdayNames[actual])
                    }
                }
                return try resolve(candidate, fraction: fraction, in: &frame)
            }
            throw .notUnderstood
        }

        /// `mktime` (or `timegm` and the offset), then the fraction.
        func resolve(_ tm: BrokenDownTime, fraction: Int64, in frame: inout Frame) throws(Problem) -> Int64 {
            var tm = tm
            guard let seconds = frame.clock.resolve(&tm), seconds - frame.utcOffset >= 0,
                seconds - frame.utcOffset <= SystemdTimestamp.latest / 1_000_000
            else { throw .outOfRange }
            return try Self.checked((seconds - frame.utcOffset) * 1_000_000 + fraction)
        }

        static func checked(_ microseconds: Int64) throws(Problem) -> Int64 {
            guard microseconds >= 0, microseconds <= latest else { throw .outOfRange }
            return microseconds
        }

        static func checked(_ result: (partialValue: Int64, overflow: Bool)) throws(Problem) -> Int64 {
            guard !result.overflow else { throw .outOfRange }
            return try checked(result.partialValue)
        }

        /// systemd's `parse_fractional_part_u` for microseconds: six digits, rounded up by a seventh from 5 to 9,
        /// any further digits read and ignored. Returns the microseconds and where the digits end.
        static func fraction(_ text: ArraySlice<UInt8>, from start: Int) -> (Int64, Int)? {
            var position = start
            var value: Int64 = 0
            for place in 0..<6 {
                guard position < text.endIndex, isDigit(text[position]) else {
                    if place == 0 { return nil }
                    for _ in place..<6 { value *= 10 }
                    break
                }
                value = value * 10 + Int64(text[position] - UInt8(ascii: "0"))
                position += 1
            }
            if position < text.endIndex, text[position] >= UInt8(ascii: "5"), text[position] <= UInt8(ascii: "9") {
                value += 1
            }
            while position < text.endIndex, isDigit(text[position]) { position += 1 }
            return (value, position)
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

        /// systemd's `strptime` formats, tried in its order; the first that reads the whole text (a fraction after
        /// the seconds allowed) wins.
        static let layouts: [Layout] = [
            "%y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%b %d %H:%M:%S",
            "%y-%m-%d %H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%y-%m-%d", "%Y-%m-%d",
            "%H:%M:%S", "%H:%M",
        ].map(Layout.init)
    }

    /// One `strptime` format, with glibc's reading of it: a space matches any run of white space (or none), a
    /// number skips white space before it and takes at most as many digits as its range allows, a month name is
    /// English, full or abbreviated, in any case. Fields the format does not name keep the values given.
    fileprivate struct Layout: Sendable {
        enum Piece: Sendable {
            case twoDigitYear, year, month, day, hour, minute, second, monthName
            case space
            case literal(UInt8)
        }

        let pieces: [Piece]
        var takesFraction: Bool {
            if case .second = pieces.last { return true }
            return false
        }

        init(_ format: String) {
            var pieces: [Piece] = []
            var bytes = format.utf8.makeIterator()
            while let byte = bytes.next() {
                if byte == UInt8(ascii: " ") {
                    pieces.append(.space)
                } else if byte != UInt8(ascii: "%") {
                    pieces.append(.literal(byte))
                } else {
                    let conversions: [Character: Piece] = [
                        "y": .twoDigitYear, "Y": .year, "m": .month, "d": .day, "H": .hour, "M": .minute,
                        "S": .second, "b": .monthName,
                    ]
                    pieces.append(conversions[Character(Unicode.Scalar(bytes.next()!))]!)
                }
            }
            self.pieces = pieces
        }

        private static let monthNames = [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ]

        /// Where the format's reading ends, or nil if the text does not fit it. A format without seconds means
        /// :00, one without a time 00:00:00, as systemd sets them.
        func read(_ text: ArraySlice<UInt8>, into tm: inout BrokenDownTime) -> Int? {
            if !pieces.contains(where: { if case .second = $0 { true } else { false } }) { tm.second = 0 }
            if !pieces.contains(where: { if case .hour = $0 { true } else { false } }) {
                (tm.hour, tm.minute) = (0, 0)
            }
            var position = text.startIndex
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
            func number(_ range: ClosedRange<Int>, digits: Int) -> Int? {
                while position < text.endIndex, isSpace(text[position]) { position += 1 }
                var value = 0
                var taken = 0
                while position < text.endIndex, SystemdTimestamp.Reader.isDigit(text[position]), taken < digits,
                    taken == 0 || value * 10 <= range.upperBound
                {
                    value = value * 10 + Int(text[position] - UInt8(ascii: "0"))
                    position += 1
                    taken += 1
                }
                return taken > 0 && range.contains(value) ? value : nil
            }
            for piece in pieces {
                switch piece {
                case .space:
                    while position < text.endIndex, isSpace(text[position]) { position += 1 }
                case .literal(let byte):
                    guard position < text.endIndex, text[position] == byte else { return nil }
                    position += 1
                case .twoDigitYear:
                    guard let value = number(0...99, digits: 2) else { return nil }
                    tm.year = value >= 69 ? 1900 + value : 2000 + value
                case .year:
                    guard let value = number(0...9999, digits: 4) else { return nil }
                    tm.year = value
                case .month:
                    guard let value = number(1...12, digits: 2) else { return nil }
                    tm.month0 = value - 1
                case .day:
                    guard let value = number(1...31, digits: 2) else { return nil }
                    tm.day = value
                case .hour:
                    guard let value = number(0...23, digits: 2) else { return nil }
                    tm.hour = value
                case .minute:
                    guard let value = number(0...59, digits: 2) else { return nil }
                    tm.minute = value
                case .second:
                    guard let value = number(0...61, digits: 2) else { return nil }
                    tm.second = value
                case .monthName:
                    let rest = String(decoding: text[position...], as: UTF8.self).lowercased()
                    guard
                        let (month, length) = Self.monthNames.enumerated().lazy.compactMap({ index, name in
                            rest.hasPrefix(name)
                                ? (index, name.count) : rest.hasPrefix(name.prefix(3)) ? (index, 3) : nil
                        }).first
                    else { return nil }
                    tm.month0 = month
                    position += length
                }
            }
            return position
        }
    }
}

/// systemd's time spans (`parse_sec`): numbers, each with an optional fraction and unit (seconds if none), added
/// up, spaces between them optional: `3h30min`, `1.5h`, `2 weeks 1d`, `300ms20s`.
enum TimeSpan {
    private static let second: Int64 = 1_000_000
    /// Longest spelling first where one is a prefix of another, in systemd's order.
    private static let units: [(String, Int64)] = [
        ("seconds", second), ("second", second), ("sec", second), ("s", second),
        ("minutes", 60 * second), ("minute", 60 * second), ("min", 60 * second),
        ("months", 2_629_800 * second), ("month", 2_629_800 * second), ("M", 2_629_800 * second),
        ("msec", 1000), ("ms", 1000), ("m", 60 * second),
        ("hours", 3600 * second), ("hour", 3600 * second), ("hr", 3600 * second), ("h", 3600 * second),
        ("days", 86_400 * second), ("day", 86_400 * second), ("d", 86_400 * second),
        ("weeks", 604_800 * second), ("week", 604_800 * second), ("w", 604_800 * second),
        ("years", 31_557_600 * second), ("year", 31_557_600 * second), ("y", 31_557_600 * second),
        ("usec", 1), ("us", 1), ("μs", 1), ("µs", 1),
    ]

    /// The span in microseconds, or an error for anything else (a negative span included).
    static func microseconds(_ text: ArraySlice<UInt8>) throws(SystemdTimestampError.Problem) -> Int64 {
        let isDigit = SystemdTimestamp.Reader.isDigit
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var position = text.startIndex
        var total: Int64 = 0
        var readSomething = false
        while true {
            while position < text.endIndex, isSpace(text[position]) { position += 1 }
            guard position < text.endIndex else { break }
            var whole: Int64 = 0
            let digits = text[position...].prefix(while: isDigit)
            for digit in digits {
                let (product, overflow) = whole.multipliedReportingOverflow(by: 10)
                let (sum, sumOverflow) = product.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
                guard !overflow, !sumOverflow else { throw .outOfRange }
                whole = sum
            }
            position = digits.endIndex
            var fractionDigits: ArraySlice<UInt8> = []
            if position < text.endIndex, text[position] == UInt8(ascii: ".") {
                fractionDigits = text[(position + 1)...].prefix(while: isDigit)
                // "3." and "3.sec" are refused; ".5h" is half an hour.
                guard !fractionDigits.isEmpty else { throw .notUnderstood }
                position = fractionDigits.endIndex
            } else if digits.isEmpty {
                throw .notUnderstood
            }
            var unitStart = position
            while unitStart < text.endIndex, isSpace(text[unitStart]) { unitStart += 1 }
            let rest = String(decoding: text[unitStart...], as: UTF8.self)
            var multiplier = second
            if let (name, value) = units.first(where: { rest.hasPrefix($0.0) }) {
                multiplier = value
                position = unitStart + name.utf8.count
            } else if unitStart == position, position < text.endIndex {
                // A number followed by something that is not a unit: "5x", "1.2.3".
                throw .notUnderstood
            }
            let (product, overflow) = whole.multipliedReportingOverflow(by: multiplier)
            guard !overflow else { throw .outOfRange }
            var part = product
            var place = multiplier
            for digit in fractionDigits {
                place /= 10
                // At most one more unit: `part` stays below Int64.max only if the whole part left that room.
                let (sum, overflow) = part.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")) * place)
                guard !overflow else { throw .outOfRange }
                part = sum
            }
            let (sum, sumOverflow) = total.addingReportingOverflow(part)
            guard !sumOverflow else { throw .outOfRange }
            total = sum
            readSomething = true
        }
        guard readSomething else { throw .notUnderstood }
        return total
    }
}
