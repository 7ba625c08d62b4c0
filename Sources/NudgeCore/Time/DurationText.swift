import Foundation

/// Lengths of time as people and programs write them: `90s`, `15m`, `1h30m`, `2d`, `2w` (what the command lines take),
/// and ISO 8601 durations, `PT1H30M`, `P2D`, `PT0.5S`, `P1W` (what the API takes and writes). A day is 24 hours and a
/// week 7 days: these are lengths, not calendar steps, so months and years (whose length varies) are refused.
public enum DurationText {
    /// The seconds `text` names, or nil. Plain digits are seconds.
    public static func seconds(_ text: String) -> TimeInterval? {
        if text.hasPrefix("P") { return iso8601(text.dropFirst()) }
        if let whole = Int(text), whole >= 0 { return TimeInterval(whole) }
        return units(Substring(text), allowed: ["w": 7 * 86_400, "d": 86_400, "h": 3600, "m": 60, "s": 1])
    }

    /// The seconds an ISO 8601 duration names (`PT1H30M`, `P2D`, `PT0.5S`, `P1W`), or nil for anything else: what the
    /// API takes where its contract says `Duration`, whose pattern is this grammar.
    public static func iso8601Seconds(_ text: String) -> TimeInterval? {
        text.hasPrefix("P") ? iso8601(text.dropFirst()) : nil
    }

    /// `seconds` as ISO 8601, the largest units first: `PT1H30M`, `P2DT3H`, `PT0.25S`, `PT0S`.
    public static func iso8601(_ seconds: TimeInterval) -> String {
        let negative = seconds < 0
        var rest = abs(seconds)
        let days = (rest / 86_400).rounded(.down)
        rest -= days * 86_400
        let hours = (rest / 3600).rounded(.down)
        rest -= hours * 3600
        let minutes = (rest / 60).rounded(.down)
        rest -= minutes * 60
        var text = negative ? "-P" : "P"
        if days > 0 { text += "\(Int(days))D" }
        var time = ""
        if hours > 0 { time += "\(Int(hours))H" }
        if minutes > 0 { time += "\(Int(minutes))M" }
        if rest > 0 || (days == 0 && time.isEmpty) {
            let whole = rest.rounded(.down) == rest
            time +=
                whole
                ? "\(Int(rest))S"
                : "\(rest.formatted(.number.precision(.fractionLength(0...9)).locale(Locale(identifier: "en_US_POSIX"))))S"
        }
        if !time.isEmpty { text += "T" + time }
        return text
    }

    /// `3s`, `2m 5s`, `1h 2m`, `3d 4h`: two units at most, rounded down.
    public static func short(_ interval: TimeInterval) -> String {
        let seconds = Int(max(0, interval).rounded(.down))
        let units = [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")]
        guard let first = units.firstIndex(where: { seconds >= $0.0 }) else { return "0s" }
        let (size, name) = units[first]
        var text = "\(seconds / size)\(name)"
        if first + 1 < units.count {
            let (nextSize, nextName) = units[first + 1]
            let rest = seconds % size / nextSize
            if rest > 0 { text += " \(rest)\(nextName)" }
        }
        return text
    }

    /// What to tell someone whose duration was refused.
    public static let expected =
        "an ISO 8601 duration like PT1H30M, P2D or PT0.5S (days, hours, minutes and seconds; no months or years)"

    /// After the `P`: `nW`, or `nD` then `T` and `nH`, `nM`, `nS` (fractions allowed on the last).
    private static func iso8601(_ text: Substring) -> TimeInterval? {
        if text.hasSuffix("W"), let weeks = number(text.dropLast()) { return weeks * 7 * 86_400 }
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= 2 else { return nil }
        let date = parts[0]
        var total: TimeInterval = 0
        if !date.isEmpty {
            guard let days = units(date, allowed: ["D": 86_400]) else { return nil }
            total += days
        }
        if parts.count == 2 {
            guard let time = units(parts[1], allowed: ["H": 3600, "M": 60, "S": 1]) else { return nil }
            total += time
        }
        return total
    }

    /// A run of number-unit pairs, each unit once and in the order given: `1h30m`, `2D`, `1H0.5S`.
    private static func units(_ text: Substring, allowed: KeyValuePairs<Character, TimeInterval>) -> TimeInterval? {
        guard !text.isEmpty else { return nil }
        var total: TimeInterval = 0
        var rest = text
        var order = allowed.makeIterator()
        while !rest.isEmpty {
            guard let end = rest.firstIndex(where: { !$0.isNumber && $0 != "." }) else { return nil }
            guard let amount = number(rest[..<end]) else { return nil }
            let unit = rest[end]
            // Each unit at most once, largest first.
            var found: TimeInterval?
            while let (name, size) = order.next() {
                if name == unit {
                    found = size
                    break
                }
            }
            guard let size = found else { return nil }
            total += amount * size
            rest = rest[rest.index(after: end)...]
        }
        return total.isFinite ? total : nil
    }

    /// Digits, then perhaps a point and more digits: `2`, `1.5`, `1.` (not `.5`, as the contract's pattern says).
    private static func number(_ text: Substring) -> TimeInterval? {
        guard text.first?.isASCII == true, text.first?.isNumber == true,
            text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(text), value.isFinite, value >= 0, value <= 1e12
        else { return nil }
        return value
    }
}
