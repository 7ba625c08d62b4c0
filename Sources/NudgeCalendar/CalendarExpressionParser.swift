/// Reads a calendar expression the way systemd 252's `calendar_spec_from_string` does, byte by byte, so that it
/// accepts and rejects exactly the same texts, and says which part is wrong when it rejects one.
struct CalendarExpressionParser: Sendable {
    /// What systemd would know as the local zone: its abbreviations may end an expression.
    let localNames: (standard: String, daylight: String)
    let zoneStore: ZoneRulesStore

    private let text: String
    private let bytes: [UInt8]
    /// The end of the part still to parse: a zone at the end is cut off first.
    private var end = 0
    private var position = 0
    private var pattern = CalendarPattern()
    /// Where each list element came from, to name it in errors found after parsing.
    private var sources: [Field: [CalendarComponent: Range<Int>]] = [:]

    enum Field: String, CaseIterable, Sendable {
        case year, month, day, hour, minute, second

        /// Allowed values; seconds in microseconds.
        var range: ClosedRange<Int> {
            switch self {
            case .year: 1970...2199
            case .month: 1...12
            case .day: 1...31
            case .hour: 0...23
            case .minute: 0...59
            case .second: 0...(60 * CalendarPattern.microsecondsPerSecond - 1)
            }
        }

        /// The pattern's list of this field's values.
        var list: WritableKeyPath<CalendarPattern, [CalendarComponent]?> {
            switch self {
            case .year: \.years
            case .month: \.months
            case .day: \.days
            case .hour: \.hours
            case .minute: \.minutes
            case .second: \.seconds
            }
        }
    }

    init(text: String, localNames: (standard: String, daylight: String), zoneStore: ZoneRulesStore) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.localNames = localNames
        self.zoneStore = zoneStore
    }

    mutating func parse() throws(CalendarSpecError) -> CalendarPattern {
        end = bytes.count
        cutZoneSuffix()
        guard end > 0 else {
            throw failure(0..<bytes.count, "the expression is empty; give at least a time or a date")
        }

        if let shorthand = Self.shorthand(for: bytes[0..<end]) {
            shorthand(&pattern)
        } else {
            try parseWeekdays()
            if try parseDate() {
                try parseTime()
            }
            guard position >= end else {
                throw failure(position..<end, "unexpected text; the expression should end after the time")
            }
        }
        normalize()
        try validate()
        return pattern
    }

    // MARK: - Zone at the end

    /// " UTC", then the local zone's abbreviations, then a zone file name, each only at the very end.
    private mutating func cutZoneSuffix() {
        if hasSuffixIgnoringCase(Array(" UTC".utf8)) {
            pattern.isUTC = true
            end -= 4
            return
        }
        for (flag, name) in [localNames.standard, localNames.daylight].enumerated() where !name.isEmpty {
            let nameBytes = Array(name.utf8)
            guard hasSuffixIgnoringCase(nameBytes) else { continue }
            let nameStart = end - nameBytes.count
            guard nameStart > 0, bytes[nameStart - 1] == UInt8(ascii: " ") else { continue }
            pattern.dstFlag = flag
            pattern.dstAbbreviation = name
            end = nameStart - 1
            return
        }
        guard let lastSpace = bytes[0..<end].lastIndex(of: UInt8(ascii: " ")) else { return }
        let name = String(decoding: bytes[(lastSpace + 1)..<end], as: UTF8.self)
        guard zoneStore.rules(named: name) != nil else { return }
        pattern.zoneName = name
        end = lastSpace
    }

    private func hasSuffixIgnoringCase(_ suffix: [UInt8]) -> Bool {
        guard suffix.count <= end else { return false }
        return zip(bytes[(end - suffix.count)..<end], suffix).allSatisfy {
            Self.lowercased($0) == Self.lowercased($1)
        }
    }

    // MARK: - Shorthands

    private static func shorthand(for body: ArraySlice<UInt8>) -> ((inout CalendarPattern) -> Void)? {
        let word = String(decoding: body.map(lowercased), as: UTF8.self)
        let midnight: (inout CalendarPattern) -> Void = { pattern in
            pattern.hours = [CalendarComponent(start: 0)]
            pattern.minutes = [CalendarComponent(start: 0)]
            pattern.seconds = [CalendarComponent(start: 0)]
        }
        switch word {
        case "minutely":
            return { $0.seconds = [CalendarComponent(start: 0)] }
        case "hourly":
            return {
                $0.minutes = [CalendarComponent(start: 0)]
                $0.seconds = [CalendarComponent(start: 0)]
            }
        case "daily":
            return midnight
        case "monthly":
            return {
                $0.days = [CalendarComponent(start: 1)]
                midnight(&$0)
            }
        case "annually", "yearly", "anually":
            return {
                $0.months = [CalendarComponent(start: 1)]
                $0.days = [CalendarComponent(start: 1)]
                midnight(&$0)
            }
        case "weekly":
            return {
                $0.weekdayBits = 1
                midnight(&$0)
            }
        case "quarterly":
            return {
                $0.months = [1, 4, 7, 10].map { CalendarComponent(start: $0) }
                $0.days = [CalendarComponent(start: 1)]
                midnight(&$0)
            }
        case "biannually", "bi-annually", "semiannually", "semi-annually":
            return {
                $0.months = [1, 7].map { CalendarComponent(start: $0) }
                $0.days = [CalendarComponent(start: 1)]
                midnight(&$0)
            }
        default:
            return nil
        }
    }

    // MARK: - Weekdays

    private static let weekdayNames: [(name: [UInt8], day: Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2),
        ("thursday", 3),
        ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5), ("sunday", 6), ("sun", 6),
    ].map { (Array($0.0.utf8), $0.1) }

    /// Weekday names (any case), lists with `,` and ranges with `..` or `-`, ended by a space or the end.
    private mutating func parseWeekdays() throws(CalendarSpecError) {
        var bits = 0
        var rangeStart: Int?  // stays set after a range until a comma, as in systemd
        var rangeStartPosition = 0
        var isFirst = true
        defer { if bits != 0 { pattern.weekdayBits = bits } }

        while true {
            let wordStart = position
            guard
                let match = Self.weekdayNames.first(where: { hasPrefixIgnoringCase($0.name, at: position) })
            else {
                if isFirst { return }
                throw failure(
                    wordStart..<wordEnd(from: wordStart),
                    "expected a weekday (Mon…Sun or Monday…Sunday) here"
                )
            }
            let afterName = position + match.name.count
            guard
                [0, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: " ")].contains(
                    byte(afterName)
                )
            else {
                throw failure(
                    wordStart..<wordEnd(from: wordStart),
                    "not a weekday; write Mon, Tue, Wed, Thu, Fri, Sat, Sun or the full names"
                )
            }
            bits |= 1 << match.day
            if let rangeStart {
                guard rangeStart <= match.day else {
                    throw failure(
                        rangeStartPosition..<afterName,
                        "the weekday range runs backwards (weeks run Mon..Sun); list the days instead, e.g. Sat,Sun,Mon"
                    )
                }
                for day in rangeStart..<match.day { bits |= 1 << day }
            }
            position = afterName

            switch byte(position) {
            case 0:
                return
            case UInt8(ascii: " "):
                skipSpaces()
                return
            case UInt8(ascii: "."), UInt8(ascii: "-"):
                // `Mon..Fri`, or the old spelling `Mon-Fri`.
                guard rangeStart == nil else {
                    throw failure(
                        rangeStartPosition..<(position + 1),
                        "a weekday range cannot be continued; separate ranges with ','"
                    )
                }
                let dots = byte(position) == UInt8(ascii: ".")
                guard !dots || byte(position + 1) == UInt8(ascii: ".") else {
                    throw failure(
                        wordStart..<(position + 1),
                        "weekday ranges are written with '..', e.g. Mon..Fri"
                    )
                }
                rangeStart = match.day
                rangeStartPosition = wordStart
                position += dots ? 2 : 1
            case UInt8(ascii: ","):
                rangeStart = nil
                position += 1
            default:
                break
            }

            if byte(position) == 0 || byte(position) == UInt8(ascii: " ") {
                skipSpaces()
                // A trailing comma is fine, an open range is not.
                guard rangeStart == nil else {
                    throw failure(
                        rangeStartPosition..<position,
                        "the weekday range has no end, e.g. Mon..Fri"
                    )
                }
                return
            }
            isFirst = false
        }
    }

    // MARK: - Date

    /// Parses `[[year-]month-]day` or `@seconds`. Returns whether a time may follow.
    private mutating func parseDate() throws(CalendarSpecError) -> Bool {
        guard byte(position) != 0 else { return true }
        if byte(position) == UInt8(ascii: "@") {
            try parseTimestamp()
            return false
        }

        var cursor = position
        let first = try parseList(at: &cursor, label: "date or hour", microseconds: false)
        // "12:…" is a time, not a date: parse it again as one.
        if byte(cursor) == 0 || byte(cursor) == UInt8(ascii: ":") { return true }
        try expectDateSeparator(at: cursor)
        cursor += 1

        let second = try parseList(at: &cursor, label: "date", microseconds: false)
        if byte(cursor) == 0 || byte(cursor) == UInt8(ascii: " ") {
            setList(first, for: .month)
            setList(second, for: .day)
            position = cursor
            skipSpaces()
            return true
        }
        if pattern.daysFromMonthEnd {
            throw failure(
                cursor..<wordEnd(from: cursor),
                "'~' (days from the month's end) may only stand between month and day"
            )
        }
        try expectDateSeparator(at: cursor)
        cursor += 1

        let third = try parseList(at: &cursor, label: "day", microseconds: false)
        guard byte(cursor) == 0 || byte(cursor) == UInt8(ascii: " ") else {
            throw unexpected(
                at: cursor,
                cursor..<wordEnd(from: cursor),
                "a date has at most three parts, year-month-day; put a space before the time"
            )
        }
        setList(first, for: .year)
        setList(second, for: .month)
        setList(third, for: .day)
        position = cursor
        skipSpaces()
        return true
    }

    private mutating func expectDateSeparator(at cursor: Int) throws(CalendarSpecError) {
        switch byte(cursor) {
        case UInt8(ascii: "~"): pattern.daysFromMonthEnd = true
        case UInt8(ascii: "-"): break
        default:
            throw unexpected(
                at: cursor,
                position..<wordEnd(from: position),
                "the parts of a date are separated by '-' (or '~' before the day), a time by ':'"
            )
        }
    }

    /// `@seconds`: a fixed UTC instant, read as C's strtoul reads it (spaces and a sign are allowed).
    private mutating func parseTimestamp() throws(CalendarSpecError) {
        let start = position
        var cursor = position + 1
        while [UInt8(ascii: " "), 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(byte(cursor)) { cursor += 1 }
        var negative = false
        if byte(cursor) == UInt8(ascii: "+") || byte(cursor) == UInt8(ascii: "-") {
            negative = byte(cursor) == UInt8(ascii: "-")
            cursor += 1
        }
        let digitsStart = cursor
        let (value, overflow) = decimalDigits(at: &cursor)
        guard cursor > digitsStart else {
            throw failure(
                start..<wordEnd(from: start),
                "'@' must be followed by seconds since 1970, e.g. @1767225600"
            )
        }
        guard !overflow else { throw failure(start..<cursor, "the number of seconds is too large") }
        // strtoul negates in unsigned arithmetic; the result is then read as a signed time_t.
        let seconds = Int64(bitPattern: negative ? 0 &- value : value)
        let time = BrokenDownTime(wallSeconds: seconds, dstFlag: 0, utcOffset: 0)
        let range = start..<cursor
        setList([(CalendarComponent(start: time.year), range)], for: .year)
        setList([(CalendarComponent(start: time.month0 + 1), range)], for: .month)
        setList([(CalendarComponent(start: time.day), range)], for: .day)
        setList([(CalendarComponent(start: time.hour), range)], for: .hour)
        setList([(CalendarComponent(start: time.minute), range)], for: .minute)
        setList(
            [(CalendarComponent(start: time.second * CalendarPattern.microsecondsPerSecond), range)],
            for: .second
        )
        pattern.isUTC = true
        position = cursor
    }

    // MARK: - Time

    /// `hour:minute[:second]`; nothing at all means midnight.
    private mutating func parseTime() throws(CalendarSpecError) {
        guard byte(position) != 0 else {
            pattern.hours = [CalendarComponent(start: 0)]
            pattern.minutes = [CalendarComponent(start: 0)]
            pattern.seconds = [CalendarComponent(start: 0)]
            return
        }
        var cursor = position
        let hours = try parseList(at: &cursor, label: "hour", microseconds: false)
        guard byte(cursor) == UInt8(ascii: ":") else {
            throw unexpected(
                at: cursor,
                position..<wordEnd(from: position),
                "a time needs hours and minutes separated by ':', e.g. 09:30"
            )
        }
        cursor += 1
        let minutes = try parseList(at: &cursor, label: "minute", microseconds: false)
        var seconds: [(CalendarComponent, Range<Int>)]? = [
            (CalendarComponent(start: 0), cursor..<cursor)
        ]
        if byte(cursor) != 0 {
            guard byte(cursor) == UInt8(ascii: ":") else {
                throw unexpected(
                    at: cursor,
                    cursor..<end,
                    "unexpected text after the minutes; the time must end the expression"
                )
            }
            cursor += 1
            seconds = try parseList(at: &cursor, label: "second", microseconds: true)
            guard byte(cursor) == 0 else {
                throw unexpected(
                    at: cursor,
                    cursor..<end,
                    "unexpected text after the seconds; the time must end the expression"
                )
            }
        }
        setList(hours, for: .hour)
        setList(minutes, for: .minute)
        setList(seconds, for: .second)
        position = cursor
    }

    // MARK: - Lists of values

    /// The most elements one list may have (systemd's CALENDARSPEC_COMPONENTS_MAX plus the first).
    private static let maximumListLength = 241

    /// `*`, or values, ranges and repetitions separated by `,`. Nil means `*` (except for seconds, where `*` is
    /// "every whole second").
    private mutating func parseList(at cursor: inout Int, label: String, microseconds: Bool)
        throws(CalendarSpecError) -> [(CalendarComponent, Range<Int>)]?
    {
        if byte(cursor) == UInt8(ascii: "*") {
            cursor += 1
            guard microseconds else { return nil }
            return [
                (
                    CalendarComponent(start: 0, step: CalendarPattern.microsecondsPerSecond),
                    (cursor - 1)..<cursor
                )
            ]
        }
        var list: [(CalendarComponent, Range<Int>)] = []
        while true {
            let elementStart = cursor
            guard list.count < Self.maximumListLength else {
                throw failure(
                    elementStart..<wordEnd(from: elementStart),
                    "a list may have at most \(Self.maximumListLength) elements"
                )
            }
            let unit = microseconds ? CalendarPattern.microsecondsPerSecond : 1
            var component = CalendarComponent(
                start: try parseNumber(at: &cursor, label: label, microseconds: microseconds)
            )
            if byte(cursor) == UInt8(ascii: "."), byte(cursor + 1) == UInt8(ascii: ".") {
                cursor += 2
                component.stop = try parseNumber(at: &cursor, label: label, microseconds: microseconds)
                component.step = unit
            }
            if byte(cursor) == UInt8(ascii: "/") {
                cursor += 1
                component.step = try parseNumber(at: &cursor, label: label, microseconds: microseconds)
                guard component.step != 0 else {
                    throw failure(
                        elementStart..<cursor,
                        "a repetition needs a step of at least 1 (\"/0\" never advances)"
                    )
                }
            } else {
                guard component.start <= Int(Int32.max) - component.step else {
                    throw failure(elementStart..<cursor, "the number is too large")
                }
                if microseconds, component.stop >= 0, component.start + component.step > component.stop {
                    throw failure(
                        elementStart..<cursor,
                        "a range of seconds must span at least one whole second, or give a step such as /0.5"
                    )
                }
            }
            let allowedAfter: [UInt8] = [
                0, UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "~"),
                UInt8(ascii: ":"),
            ]
            guard allowedAfter.contains(byte(cursor)) else {
                let reason =
                    byte(cursor) == UInt8(ascii: ".") && !microseconds
                    ? "only seconds may have a fractional part"
                    : "unexpected character \"\(character(at: cursor))\""
                throw failure(elementStart..<wordEnd(from: elementStart), reason)
            }
            list.append((component, elementStart..<cursor))
            guard byte(cursor) == UInt8(ascii: ",") else { return list }
            cursor += 1
        }
    }

    /// A decimal number as strtoul reads it; for seconds with an optional fraction (rounded to microseconds).
    private mutating func parseNumber(at cursor: inout Int, label: String, microseconds: Bool)
        throws(CalendarSpecError) -> Int
    {
        let start = cursor
        guard Self.isDigit(byte(cursor)) else {
            if start == 0, byte(start) == UInt8(ascii: " ") {
                throw failure(0..<1, "the expression starts with a space; remove it")
            }
            if start == 0, Self.isLetter(byte(start)) {
                throw failure(
                    start..<wordEnd(from: start),
                    "not a weekday, a shorthand (minutely, hourly, daily, weekly, monthly, quarterly, semiannually, "
                        + "yearly), a zone systemd knows, or a date"
                )
            }
            let found = byte(cursor) == 0 ? "nothing" : "\"\(character(at: cursor))\""
            throw failure(
                start..<wordEnd(from: start),
                "expected a number for the \(label), found \(found)"
            )
        }
        var (value, overflow) = decimalDigits(at: &cursor)
        if microseconds {
            let (scaled, o3) = value.multipliedReportingOverflow(
                by: UInt64(CalendarPattern.microsecondsPerSecond)
            )
            overflow = overflow || o3
            value = scaled
            // One "." is a decimal point, ".." a range.
            if !overflow, byte(cursor) == UInt8(ascii: "."), byte(cursor + 1) != UInt8(ascii: ".") {
                cursor += 1
                guard Self.isDigit(byte(cursor)) else {
                    throw failure(
                        start..<wordEnd(from: start),
                        "a decimal point must be followed by digits, e.g. 1.5"
                    )
                }
                var fraction: UInt64 = 0
                for _ in 0..<6 {
                    if Self.isDigit(byte(cursor)) {
                        fraction = fraction * 10 + UInt64(byte(cursor) - 0x30)
                        cursor += 1
                    } else {
                        fraction *= 10
                    }
                }
                // A seventh digit rounds; the rest are ignored.
                if byte(cursor) >= UInt8(ascii: "5"), byte(cursor) <= UInt8(ascii: "9") { fraction += 1 }
                while Self.isDigit(byte(cursor)) { cursor += 1 }
                value += fraction
            }
        }
        guard !overflow, value <= UInt64(Int32.max) else {
            throw failure(start..<cursor, "the number is too large for the \(label)")
        }
        return Int(value)
    }

    private mutating func setList(_ list: [(CalendarComponent, Range<Int>)]?, for field: Field) {
        pattern[keyPath: field.list] = list?.map(\.0)
        guard let list else { return }
        for (component, range) in list where sources[field]?[component] == nil {
            sources[field, default: [:]][component] = range
        }
    }

    // MARK: - Normalisation and validation (systemd's calendar_spec_normalize and calendar_spec_valid)

    private mutating func normalize() {
        if pattern.weekdayBits <= 0 || pattern.weekdayBits >= CalendarPattern.allWeekdays {
            pattern.weekdayBits = -1
        }
        if pattern.daysFromMonthEnd, pattern.days == nil { pattern.daysFromMonthEnd = false }
        for field in Field.allCases {
            pattern[keyPath: field.list] = normalizeList(pattern[keyPath: field.list], field: field)
        }
    }

    /// 0…69 → 2000…2069, 70…99 → 1970…1999.
    private static func expandTwoDigitYear(_ component: CalendarComponent) -> CalendarComponent {
        var result = component
        for keyPath in [\CalendarComponent.start, \CalendarComponent.stop] {
            let value = result[keyPath: keyPath]
            if (0..<70).contains(value) { result[keyPath: keyPath] = value + 2000 }
            if (70..<100).contains(value) { result[keyPath: keyPath] = value + 1900 }
        }
        return result
    }

    /// Trims ranges to a whole number of steps, drops steps that never fire, sorts and removes duplicates; years
    /// of two digits are this century's or the last.
    private mutating func normalizeList(_ list: [CalendarComponent]?, field: Field) -> [CalendarComponent]? {
        guard let list else { return nil }
        var normalized: [CalendarComponent] = []
        for original in list {
            var component = field == .year ? Self.expandTwoDigitYear(original) : original
            if component.stop > component.start, component.step > 0 {
                component.stop -= (component.stop - component.start) % component.step
            }
            if (component.stop > component.start && component.step > 0
                && component.start + component.step > component.stop) || component.start == component.stop
            {
                component.step = 0
                component.stop = -1
            }
            if component != original, let source = sources[field]?[original],
                sources[field]?[component] == nil
            {
                sources[field]?[component] = source
            }
            normalized.append(component)
        }
        return Array(Set(normalized)).sorted()
    }

    private func validate() throws(CalendarSpecError) {
        for field in Field.allCases {
            for (index, component) in (pattern[keyPath: field.list] ?? []).enumerated() {
                if let reason = problem(with: component, at: index, field: field) {
                    let range = sources[field]?[component] ?? 0..<bytes.count
                    throw failure(range, reason)
                }
            }
        }
    }

    private func problem(with component: CalendarComponent, at index: Int, field: Field) -> String? {
        let fromEnd = field == .day && pattern.daysFromMonthEnd
        let lower = field.range.lowerBound
        // With '~' the day counts back from the month's end, so only 28 days are always there. systemd takes
        // those 3 days off again for every further list element (1–28, then 1–25, 1–22, …), so "~20,28" is
        // rejected although "~28" is not; we reject exactly the same.
        let upper = fromEnd ? field.range.upperBound - 3 * (index + 1) : field.range.upperBound
        let name = field.rawValue
        func show(_ value: Int) -> String { describe(value, field: field) }
        let allowed = "\(show(lower))–\(show(upper))"

        if component.start < lower || component.start > upper {
            if fromEnd {
                let position = index == 0 ? "" : " as element \(index + 1) of the list (sorted)"
                return
                    "with '~' the day counts back from the month's end and must be 1–\(upper)\(position), "
                    + "not \(show(component.start))"
            }
            return "\(name) \(show(component.start)) is out of range \(allowed)"
        }
        if component.step > upper - lower {
            return "the step /\(show(component.step)) is larger than the \(name) range \(allowed) allows"
        }
        if component.stop >= 0 {
            if component.stop < lower || component.stop > upper {
                return "\(name) \(show(component.stop)) is out of range \(allowed)"
            }
            if component.start + component.step > component.stop {
                return "the range \(show(component.start))..\(show(component.stop)) runs backwards"
            }
        } else if fromEnd {
            if component.start - component.step < lower {
                return
                    "~\(show(component.start))/\(show(component.step)) would count past the month's first day"
            }
        } else if component.start + component.step > upper {
            return "\(show(component.start))/\(show(component.step)) never repeats within \(allowed)"
        }
        return nil
    }

    private func describe(_ value: Int, field: Field) -> String {
        guard field == .second else { return String(value) }
        let unit = CalendarPattern.microsecondsPerSecond
        guard value % unit != 0 else { return String(value / unit) }
        var fraction = String(value % unit)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(value / unit).\(fraction)"
    }

    // MARK: - Bytes

    /// The byte at `index`, or 0 past the part being parsed (as the C string's terminator).
    private func byte(_ index: Int) -> UInt8 { index < end ? bytes[index] : 0 }

    private func character(at index: Int) -> String {
        index < end ? String(decoding: [bytes[index]], as: UTF8.self) : ""
    }

    private mutating func skipSpaces() {
        while byte(position) == UInt8(ascii: " ") { position += 1 }
    }

    private func hasPrefixIgnoringCase(_ prefix: [UInt8], at index: Int) -> Bool {
        guard index + prefix.count <= end else { return false }
        for offset in 0..<prefix.count where Self.lowercased(bytes[index + offset]) != prefix[offset] {
            return false
        }
        return true
    }

    /// The end of the word starting at `index`: up to the next space or the end.
    private func wordEnd(from index: Int) -> Int {
        var cursor = index
        while cursor < end, bytes[cursor] != UInt8(ascii: " ") { cursor += 1 }
        return max(cursor, min(index + 1, end))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The decimal digits at `cursor` (none reads as 0), moving past them; `overflow` if they pass `UInt64`.
    private func decimalDigits(at cursor: inout Int) -> (value: UInt64, overflow: Bool) {
        var value: UInt64 = 0
        var overflow = false
        while Self.isDigit(byte(cursor)) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte(cursor) - 0x30))
            overflow = overflow || o1 || o2
            value = sum
            cursor += 1
        }
        return (value, overflow)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// An error at `cursor`, or, when it is a step after `*` (which systemd does not allow), one that says so.
    private func unexpected(at cursor: Int, _ range: Range<Int>, _ reason: String) -> CalendarSpecError {
        if byte(cursor) == UInt8(ascii: "/"), cursor > 0, bytes[cursor - 1] == UInt8(ascii: "*") {
            return failure(
                (cursor - 1)..<wordEnd(from: cursor),
                "'*' cannot take a step; start from a value instead, e.g. 0/2 (or 01/2 for days)"
            )
        }
        return failure(range, reason)
    }

    private func failure(_ range: Range<Int>, _ reason: String) -> CalendarSpecError {
        let lower = min(max(range.lowerBound, 0), bytes.count)
        let upper = min(max(range.upperBound, lower), bytes.count)
        var part = String(decoding: bytes[lower..<upper], as: UTF8.self)
        if part.isEmpty { part = text }
        return CalendarSpecError(expression: text, part: part, reason: reason)
    }
}
