/// systemd's search for the next matching wall time (`find_next` in calendarspec.c), rebuilt on `MktimeClock`.
///
/// The search walks the fields from year down to second. Each field is moved to its earliest matching value;
/// when a field has no match left, the next larger one is advanced and the walk starts over. After each step the
/// wall time is normalised with mktime: if that changes it (Feb 30 → Mar 2, or 02:30 in a DST gap → 03:30),
/// the walk starts over from the normalised time. Everything, including how gaps and overlaps resolve, follows
/// from that, so it is kept literally.
struct ElapseSearch: Sendable {
    private static let latestYear = 2199
    /// systemd's safety valve against endless searches.
    private static let maximumRounds = 1000
    private static let unit = CalendarPattern.microsecondsPerSecond

    let pattern: CalendarPattern
    var clock: MktimeClock

    /// systemd refuses base times after 9999-12-31 23:59:59 UTC.
    private static let latestBase: Int64 = 253_402_214_399_000_000

    /// The first elapse strictly after `microseconds` (since the epoch).
    mutating func next(after microseconds: Int64) -> ElapseOutcome {
        guard microseconds <= Self.latestBase else { return .failed }
        let start = max(microseconds, -1) + 1
        let (second, fraction) = CivilCalendar.floorDivide(start, Int64(Self.unit))
        let startTime = clock.breakDown(second)
        switch findNext(from: startTime, microsecond: Int(fraction)) {
        case .never: return .never
        case .gaveUp: return .failed
        case .found(var wallTime, let microsecond):
            guard let t = clock.resolve(&wallTime), t >= 0 else { return .failed }
            return .elapse(t * Int64(Self.unit) + Int64(microsecond))
        }
    }

    private enum WallTimeSearch {
        case found(BrokenDownTime, microsecond: Int)
        case never
        /// systemd's safety valve tripped.
        case gaveUp
    }

    /// The fields reset to their minimum when a larger field moves on.
    private enum Reset: Int {
        case fromMonth, fromDay, fromHour, fromMinute, fromSecond

        func apply(to time: inout BrokenDownTime, microsecond: inout Int) {
            if self.rawValue <= Reset.fromMonth.rawValue { time.month0 = 0 }
            if self.rawValue <= Reset.fromDay.rawValue { time.day = 1 }
            if self.rawValue <= Reset.fromHour.rawValue { time.hour = 0 }
            if self.rawValue <= Reset.fromMinute.rawValue { time.minute = 0 }
            time.second = 0
            microsecond = 0
        }

        /// When this level has no match left, the next larger field steps on and this one and those below reset.
        func carry(_ time: inout BrokenDownTime, microsecond: inout Int) {
            switch self {
            case .fromMonth: time.year += 1
            case .fromDay: time.month0 += 1
            case .fromHour: time.day += 1
            case .fromMinute: time.hour += 1
            case .fromSecond: time.minute += 1
            }
            apply(to: &time, microsecond: &microsecond)
        }
    }

    private enum Match {
        case unchanged
        case changed(Int)
        case none
    }

    private enum Bounds {
        case inBounds
        /// mktime moved the time forward; the walk must start over from there.
        case normalized
        case failed
    }

    private mutating func findNext(from start: BrokenDownTime, microsecond startMicrosecond: Int) -> WallTimeSearch {
        var c = start
        var microsecond = startMicrosecond
        // Set once a match turned out to lie before the start (it can, in a DST overlap): from then on the DST
        // flag mktime chooses is kept instead of the expression's. (systemd 252.39 carries this upstream fix,
        // systemd PR #36897.)
        var keepsNormalizedDST = false

        for _ in 0..<Self.maximumRounds {
            _ = clock.resolve(&c)
            if !keepsNormalizedDST { c.dstFlag = pattern.dstFlag }

            // Year: no match, or any normalisation, ends the search.
            switch earliest(in: pattern.years, from: c.year, isDayList: false, context: c) {
            case .none: return .never
            case .changed(let year):
                c.year = year
                Reset.fromMonth.apply(to: &c, microsecond: &microsecond)
            case .unchanged: break
            }
            guard checkBounds(&c) == .inBounds else { return .never }

            // Month, day of the month, weekday, hour, minute: each in turn, or the walk starts over.
            guard matchField(.fromMonth, &c, &microsecond), matchField(.fromDay, &c, &microsecond) else { continue }
            if !matchesWeekday(c) {
                Reset.fromHour.carry(&c, microsecond: &microsecond)
                continue
            }
            guard matchField(.fromHour, &c, &microsecond), matchField(.fromMinute, &c, &microsecond) else { continue }

            // Second, in microseconds.
            let secondValue = c.second * Self.unit + microsecond
            let second = earliest(in: pattern.seconds, from: secondValue, isDayList: false, context: c)
            let matchedValue: Int
            switch second {
            case .changed(let value): matchedValue = value
            case .unchanged, .none: matchedValue = secondValue
            }
            microsecond = matchedValue % Self.unit
            c.second = matchedValue / Self.unit
            if case .none = second {
                Reset.fromSecond.carry(&c, microsecond: &microsecond)
                continue
            }
            guard inBounds(&c, &microsecond, carrying: .fromSecond) else { continue }

            // A wall time can match "before" the start when it exists twice; step an hour on and search again.
            if Self.isEarlier(c, microsecond, than: start, startMicrosecond) {
                c.hour += 1
                keepsNormalizedDST = true
                continue
            }
            return .found(c, microsecond: microsecond)
        }
        return .gaveUp
    }

    /// Matches one field, month to minute: moves it on to the earliest value the pattern allows from where it is,
    /// resetting the smaller fields; false when the walk must start over, because no value is left (the larger
    /// field has stepped on) or the time is out of bounds (`inBounds`).
    ///
    /// Inlined: each call names its level, so its key paths become plain field accesses (not inlined, they made
    /// `next(after:)` a third slower; `nudge-bench calendar`).
    @inline(__always)
    private mutating func matchField(_ level: Reset, _ c: inout BrokenDownTime, _ microsecond: inout Int) -> Bool {
        let (field, list, offset): (WritableKeyPath<BrokenDownTime, Int>, [CalendarComponent]?, Int) =
            switch level {
            case .fromMonth: (\.month0, pattern.months, 1)
            case .fromDay: (\.day, pattern.days, 0)
            case .fromHour: (\.hour, pattern.hours, 0)
            case .fromMinute: (\.minute, pattern.minutes, 0)
            case .fromSecond: preconditionFailure("seconds are matched in microseconds, in findNext")
            }
        switch earliest(in: list, from: c[keyPath: field] + offset, isDayList: level == .fromDay, context: c) {
        case .changed(let value):
            c[keyPath: field] = value - offset
            Reset(rawValue: level.rawValue + 1)!.apply(to: &c, microsecond: &microsecond)
        case .none:
            level.carry(&c, microsecond: &microsecond)
            return false
        case .unchanged: break
        }
        return inBounds(&c, &microsecond, carrying: level)
    }

    /// Whether the time matched so far exists as it is. If mktime found none, the larger field steps on; if it
    /// moved the time on (an hour in a DST gap, Apr 31), the walk retries from there. Either way it starts over.
    private mutating func inBounds(_ c: inout BrokenDownTime, _ microsecond: inout Int, carrying level: Reset) -> Bool {
        switch checkBounds(&c) {
        case .inBounds: return true
        case .normalized: return false
        case .failed:
            level.carry(&c, microsecond: &microsecond)
            return false
        }
    }

    /// Compares wall-clock fields (not instants), as systemd does.
    private static func isEarlier(
        _ a: BrokenDownTime,
        _ aMicrosecond: Int,
        than b: BrokenDownTime,
        _ bMicrosecond: Int
    )
        -> Bool
    {
        // Tuples of up to six elements compare in order without allocating; arrays made a search 12% slower.
        let left = (a.year, a.month0, a.day, a.hour, a.minute, a.second)
        let right = (b.year, b.month0, b.day, b.hour, b.minute, b.second)
        return left < right || (left == right && aMicrosecond < bMicrosecond)
    }

    /// The earliest value at or after `value` that the list matches (systemd's find_matching_component).
    private mutating func earliest(
        in list: [CalendarComponent]?,
        from value: Int,
        isDayList: Bool,
        context: BrokenDownTime
    ) -> Match {
        guard let list else { return .unchanged }
        let fromMonthEnd = isDayList && pattern.daysFromMonthEnd
        var best: Int?
        for component in list {
            var start = component.start
            var stop = component.stop
            if fromMonthEnd {
                start = dayCountedFromMonthEnd(component.start, in: context)
                stop = dayCountedFromMonthEnd(component.stop, in: context)
                // "~7..1" counts back, so the day range runs the other way round.
                if stop > 0 { swap(&start, &stop) }
            }
            if start >= value {
                if best == nil || start < best! { best = start }
            } else if component.step > 0 {
                let steps = (value - start + component.step - 1) / component.step
                let candidate = start + component.step * steps
                if best == nil || candidate < best!, stop < 0 || candidate <= stop { best = candidate }
            }
        }
        guard let best else { return .none }
        return best == value ? .unchanged : .changed(best)
    }

    /// The day of the month that is `daysBack`-th from the end (1 = last day), found as systemd does: by letting
    /// mktime normalise day `1 - daysBack` of the following month. -1 if that lands outside the month.
    private mutating func dayCountedFromMonthEnd(_ daysBack: Int, in time: BrokenDownTime) -> Int {
        var probe = time
        probe.month0 += 1
        probe.day = 1 - daysBack
        guard let t = clock.resolve(&probe), t >= 0, probe.month0 == time.month0 else { return -1 }
        return probe.day
    }

    /// systemd's tm_within_bounds: normalises a copy; if that moved the time, adopts it with the next smaller
    /// field reset (so that e.g. Apr 31 → May 1 is not taken as a match for a later day).
    private mutating func checkBounds(_ time: inout BrokenDownTime) -> Bounds {
        guard time.year <= Self.latestYear else { return .failed }
        var normalized = time
        guard let t = clock.resolve(&normalized), t >= 0 else { return .failed }
        let order: Int
        if normalized.year != time.year {
            order = normalized.year < time.year ? -1 : 1
            normalized.month0 = 0
        } else if normalized.month0 != time.month0 {
            order = normalized.month0 < time.month0 ? -1 : 1
            normalized.day = 1
        } else if normalized.day != time.day {
            order = normalized.day < time.day ? -1 : 1
            normalized.hour = 0
        } else if normalized.hour != time.hour {
            order = normalized.hour < time.hour ? -1 : 1
            normalized.minute = 0
        } else if normalized.minute != time.minute {
            order = normalized.minute < time.minute ? -1 : 1
            normalized.second = 0
        } else {
            order = normalized.second == time.second ? 0 : (normalized.second < time.second ? -1 : 1)
        }
        if order < 0 { return .failed }  // never go backwards
        if order > 0 {
            time = normalized
            return .normalized
        }
        return .inBounds
    }

    private mutating func matchesWeekday(_ time: BrokenDownTime) -> Bool {
        guard pattern.weekdayBits > 0, pattern.weekdayBits < CalendarPattern.allWeekdays else {
            return true
        }
        var normalized = time
        guard let t = clock.resolve(&normalized), t >= 0 else { return false }
        let mondayBased = normalized.weekday == 0 ? 6 : normalized.weekday - 1
        return pattern.weekdayBits & (1 << mondayBased) != 0
    }
}
