/// Converts between instants and broken-down times exactly as glibc's `localtime_r`/`mktime` (or, for UTC,
/// `gmtime_r`/`timegm`) do, because systemd's calendar search is built on them and inherits their resolution of
/// wall times that do not exist (DST gaps) or exist twice (DST overlaps).
///
/// glibc's `mktime` remembers the UTC offset of its previous result and tries it first. For a wall time that
/// exists twice that memory decides which instant is returned, so we carry it along (`offsetGuess`) for the
/// duration of one search instead of in global state. Each search starts with a conversion whose DST flag is
/// known, which settles the memory regardless of its initial value.
struct MktimeClock: Sendable {
    private enum Mode: Sendable {
        case utc
        case zone(ZoneRules)
    }

    private let mode: Mode
    /// glibc's `localtime_offset`: result instant minus the requested wall time, from the last successful call.
    private var offsetGuess: Int64 = 0
    /// The interval of the last lookup; consecutive conversions are usually close together.
    private var cachedInterval: ZoneInterval?

    static var utc: MktimeClock { MktimeClock(mode: .utc) }

    init(zone: ZoneRules) { mode = .zone(zone) }

    private init(mode: Mode) { self.mode = mode }

    /// glibc's `localtime_r` (or `gmtime_r`).
    mutating func breakDown(_ t: Int64) -> BrokenDownTime {
        switch mode {
        case .utc:
            return BrokenDownTime(wallSeconds: t, dstFlag: 0, utcOffset: 0)
        case .zone(let rules):
            let interval = self.interval(at: t, in: rules)
            return BrokenDownTime(
                wallSeconds: t + Int64(interval.utcOffset),
                dstFlag: interval.isDST ? 1 : 0,
                utcOffset: interval.utcOffset
            )
        }
    }

    /// glibc's `mktime` (or `timegm`): normalises `tm` in place and returns the instant, or returns nil and
    /// leaves `tm` alone when glibc would fail.
    mutating func resolve(_ tm: inout BrokenDownTime) -> Int64? {
        switch mode {
        case .utc:
            // timegm ignores the DST flag; UTC has no gaps or overlaps, so the wall time is the instant.
            let t = tm.wallSeconds
            tm = BrokenDownTime(wallSeconds: t, dstFlag: 0, utcOffset: 0)
            return t
        case .zone(let rules):
            return resolveLocal(&tm, rules: rules)
        }
    }

    private mutating func interval(at t: Int64, in rules: ZoneRules) -> ZoneInterval {
        if let cachedInterval, cachedInterval.contains(t) { return cachedInterval }
        let interval = rules.interval(at: t)
        cachedInterval = interval
        return interval
    }

    /// The wall time of `t` counted as if it were UTC, with its DST flag.
    private mutating func localWall(_ t: Int64, rules: ZoneRules) -> (wall: Int64, isDST: Bool) {
        let interval = self.interval(at: t, in: rules)
        return (t + Int64(interval.utcOffset), interval.isDST)
    }

    // The steps below follow glibc 2.36's `__mktime_internal`: guess with the remembered offset, correct by the
    // difference between wanted and obtained wall time, detect oscillation across a DST gap, and when the DST
    // flag was forced and does not match, borrow the offset of the nearest instant that has the wanted flag.
    private mutating func resolveLocal(_ tm: inout BrokenDownTime, rules: ZoneRules) -> Int64? {
        let requestedDST = tm.dstFlag
        let requestedSecond = tm.second
        // glibc clamps seconds to 0...59 for the search (leap seconds) and adds the rest back afterwards.
        var clamped = tm
        clamped.second = min(max(tm.second, 0), 59)
        let wall = clamped.wallSeconds

        var t = wall + offsetGuess
        var oneBack = t  // the probe before t
        var twoBack = t  // the probe before that
        var oneBackWasDST = false
        var probesLeft = 6
        var obtained = localWall(t, rules: rules)
        var found = false

        while true {
            let difference = wall - obtained.wall
            if difference == 0 { break }
            if t == twoBack, t != oneBack {
                // Oscillating across a gap: settle on this side if glibc's tie-break prefers it.
                let settles =
                    requestedDST < 0
                    ? (!oneBackWasDST || obtained.isDST) : ((requestedDST != 0) != obtained.isDST)
                if settles {
                    found = true
                    break
                }
            }
            probesLeft -= 1
            if probesLeft == 0 { return nil }
            twoBack = oneBack
            oneBack = t
            t += difference
            oneBackWasDST = obtained.isDST
            obtained = localWall(t, rules: rules)
        }

        if !found, requestedDST >= 0, (requestedDST != 0) != obtained.isDST {
            t = borrowOffset(
                wall: wall,
                from: t,
                wantDST: requestedDST != 0,
                obtainedDST: obtained.isDST,
                rules: rules
            )
        }

        offsetGuess = t - wall
        var result = breakDown(t)
        if requestedSecond != result.second {
            let leapSecondHit = clamped.second == 0 && result.second == 60 ? 1 : 0
            t += Int64(leapSecondHit - clamped.second + requestedSecond)
            result = breakDown(t)
        }
        tm = result
        return t
    }

    /// glibc probes week by week, alternating backwards and forwards, for an instant with the wanted DST flag and
    /// reads the wall time with that instant's offset; failing that it assumes a one-hour difference.
    private mutating func borrowOffset(
        wall: Int64,
        from t: Int64,
        wantDST: Bool,
        obtainedDST: Bool,
        rules: ZoneRules
    )
        -> Int64
    {
        let stride: Int64 = 601_200
        let bound: Int64 = 457_243_209 / 2 + stride
        var delta = stride
        while delta < bound {
            for direction: Int64 in [-1, 1] {
                let probe = t + delta * direction
                let probed = localWall(probe, rules: rules)
                if probed.isDST == wantDST {
                    return probe + (wall - probed.wall)
                }
            }
            delta += stride
        }
        let hourDifference: Int64 = (wantDST ? 0 : 1) - (obtainedDST ? 0 : 1)
        return t + 3600 * hourDifference
    }
}
