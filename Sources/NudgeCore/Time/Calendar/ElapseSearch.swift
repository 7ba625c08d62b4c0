/// What a search for the next elapse found.
enum ElapseOutcome: Sendable, Hashable {
    /// Microseconds since the epoch.
    case elapse(Int64)
    /// The expression will not elapse again (systemd: "never").
    case never
    /// systemd gives up with an error (its search loop ran 1000 rounds, or the result is before 1970).
    case failed
}

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

            // Month.
            let month = earliest(in: pattern.months, from: c.month0 + 1, isDayList: false, context: c)
            if case .changed(let value) = month {
                c.month0 = value - 1
                Reset.fromDay.apply(to: &c, microsecond: &microsecond)
            }
            if case .none = month {
                c.year += 1
                Reset.fromMonth.apply(to: &c, microsecond: &microsecond)
                continue
            }
            switch checkBounds(&c) {
            case .failed:
                c.year += 1
                Reset.fromMonth.apply(to: &c, microsecond: &microsecond)
                continue
            case .normalized: continue
            case .inBounds: break
            }

            // Day of the month.
            let day = earliest(in: pattern.days, from: c.day, isDayList: true, context: c)
            if case .changed(let value) = day {
                c.day = value
                Reset.fromHour.apply(to: &c, microsecond: &microsecond)
            }
            if case .none = day {
                c.month0 += 1
                Reset.fromDay.apply(to: &c, microsecond: &microsecond)
                continue
            }
            switch checkBounds(&c) {
            case .failed:
                c.month0 += 1
                Reset.fromDay.apply(to: &c, microsecond: &microsecond)
                continue
            case .normalized: continue
            case .inBounds: break
            }

            // Weekday.
            if !matchesWeekday(c) {
                c.day += 1
                Reset.fromHour.apply(to: &c, microsecond: &microsecond)
                continue
            }

            // Hour.
            let hour = earliest(in: pattern.hours, from: c.hour, isDayList: false, context: c)
            if case .changed(let value) = hour {
                c.hour = value
                Reset.fromMinute.apply(to: &c, microsecond: &microsecond)
            }
            if case .none = hour {
                c.day += 1
                Reset.fromHour.apply(to: &c, microsecond: &microsecond)
                continue
            }
            switch checkBounds(&c) {
            case .failed:
                c.day += 1
                Reset.fromHour.apply(to: &c, microsecond: &microsecond)
                continue
            case .normalized:
                // The hour may not exist (DST gap); retry from the normalised time.
                continue
            case .inBounds: break
            }

            // Minute.
            let minute = earliest(in: pattern.minutes, from: c.minute, isDayList: false, context: c)
            if case .changed(let value) = minute {
                c.minute = value
                Reset.fromSecond.apply(to: &c, microsecond: &microsecond)
            }
            if case .none = minute {
                c.hour += 1
                Reset.fromMinute.apply(to: &c, microsecond: &microsecond)
                continue
            }
            switch checkBounds(&c) {
            case .failed:
                c.hour += 1
                Reset.fromMinute.apply(to: &c, microsecond: &microsecond)
                continue
            case .normalized: continue
            case .inBounds: break
            }

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
                c.minute += 1
                Reset.fromSecond.apply(to: &c, microsecond: &microsecond)
                continue
            }
            switch checkBounds(&c) {
            case .failed:
                c.minute += 1
                Reset.fromSecond.apply(to: &c, microsecond: &microsecond)
                continue
            case .normalized: continue
            case .inBounds: break
            }

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

    /// Compares wall-clock fields (not instants), as systemd does.
    private static func isEarlier(
        _ a: BrokenDownTime,
        _ aMicrosecond: Int,
        than b: BrokenDownTime,
        _ bMicrosecond: Int
    )
        -> Bool
    {
        let left = [a.year, a.month0, a.day, a.hour, a.minute, a.second, aMicrosecond]
        let right = [b.year, b.month0, b.day, b.hour, b.minute, b.second, bMicrosecond]
        return left.lexicographicallyPrecedes(right)
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
