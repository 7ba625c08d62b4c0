import Foundation

/// A time zone as glibc sees it when `TZ` names a file under /usr/share/zoneinfo: the TZif transitions, and past
/// the last one the POSIX rule from the file's footer. Reading the data ourselves gives the tzdata abbreviations
/// systemd prints (Foundation on Linux may say "GMT+1") and avoids Foundation's slower, differently resolving
/// conversions.
final class ZoneRules: Sendable {
    /// Every abbreviation an interval can refer to: the TZif types' ones, then the footer's.
    let abbreviations: [String]
    /// glibc's `tzname[0]` and `tzname[1]` once it has converted a present-day time: the abbreviations
    /// systemd accepts at the end of an expression to mean "local standard time" and "local daylight time".
    let localNames: (standard: String, daylight: String)

    private let transitions: [Int64]
    private let transitionTypes: [Int]
    private let types: [LocalTimeType]
    /// The rule past the last transition, which the present follows.
    let footer: PosixZoneRule?
    /// glibc's `timezone == 0 && daylight == 0` as set by reading the transition table.
    private let tableSaysUTC: Bool

    private struct LocalTimeType: Sendable {
        let utcOffset: Int
        let isDST: Bool
        let abbreviationIndex: Int

        func interval(from start: Int64, to end: Int64) -> ZoneInterval {
            ZoneInterval(
                utcOffset: utcOffset,
                isDST: isDST,
                abbreviationIndex: abbreviationIndex,
                start: start,
                end: end
            )
        }
    }

    /// Rules for a zone with one fixed offset (used when a `TimeZone` has no TZif file, e.g. "GMT+0100").
    init(fixedOffset: Int, abbreviation: String) {
        abbreviations = [abbreviation]
        localNames = (abbreviation, abbreviation)
        transitions = []
        transitionTypes = []
        types = [LocalTimeType(utcOffset: fixedOffset, isDST: false, abbreviationIndex: 0)]
        footer = nil
        tableSaysUTC = fixedOffset == 0
    }

    /// Parses TZif data (RFC 8536, versions 1–4). Returns nil if the data is not TZif.
    init?(tzif data: [UInt8]) {
        guard let parsed = TZifFile(data) else { return nil }
        var abbreviations: [String] = []
        var types: [LocalTimeType] = []
        for type in parsed.types {
            let abbreviation = parsed.abbreviation(at: type.abbreviationOffset)
            let index = abbreviations.firstIndex(of: abbreviation) ?? abbreviations.count
            if index == abbreviations.count { abbreviations.append(abbreviation) }
            types.append(
                LocalTimeType(utcOffset: type.utcOffset, isDST: type.isDST, abbreviationIndex: index)
            )
        }
        if types.isEmpty {
            types.append(
                LocalTimeType(utcOffset: 0, isDST: false, abbreviationIndex: abbreviations.count)
            )
            abbreviations.append("")
        }
        var footer = parsed.footer.flatMap { PosixZoneRule(parsing: $0) }
        if var rule = footer {
            rule.standardAbbreviationIndex = abbreviations.count
            abbreviations.append(rule.standardName)
            rule.daylightAbbreviationIndex = abbreviations.count
            abbreviations.append(rule.daylightName)
            footer = rule
        }
        self.abbreviations = abbreviations
        self.types = types
        self.footer = footer
        transitions = parsed.transitions
        transitionTypes = parsed.transitionTypes.map { min($0, types.count - 1) }

        // glibc walks the transitions backwards for the newest standard and daylight abbreviations; once it has
        // converted a time past the last transition it takes them from the footer instead. nudge runs in the
        // present, so prefer the footer's names when there is one.
        if let footer {
            localNames = (footer.standardName, footer.daylightName)
        } else {
            var standard: String?
            var daylight: String?
            for typeIndex in transitionTypes.reversed() {
                let type = types[typeIndex]
                if type.isDST, daylight == nil { daylight = abbreviations[type.abbreviationIndex] }
                if !type.isDST, standard == nil { standard = abbreviations[type.abbreviationIndex] }
                if standard != nil, daylight != nil { break }
            }
            let first = standard ?? abbreviations[types[0].abbreviationIndex]
            localNames = (first, daylight ?? first)
        }

        // glibc's `timezone`: the newest standard offset; `daylight`: whether any transition is to DST.
        if transitions.isEmpty {
            tableSaysUTC = types[0].utcOffset == 0
        } else {
            let newestStandard =
                transitionTypes.reversed().first { !types[$0].isDST }.map { types[$0].utcOffset } ?? 0
            let everDST = transitionTypes.contains { types[$0].isDST }
            tableSaysUTC = newestStandard == 0 && !everDST
        }
    }

    /// The interval containing `t`, chosen exactly as glibc's localtime chooses it.
    func interval(at t: Int64) -> ZoneInterval {
        guard let first = transitions.first, t >= first else {
            // Before any transition glibc uses the first standard-time type.
            return (types.first { !$0.isDST } ?? types[0]).interval(from: .min, to: transitions.first ?? .max)
        }
        let last = transitions[transitions.count - 1]
        if t >= last {
            if let footer { return footer.interval(at: t, notBefore: last) }
            return types[transitionTypes[transitions.count - 1]].interval(from: last, to: .max)
        }
        // Binary search for the first transition after t.
        var low = 0
        var high = transitions.count - 1
        while low + 1 < high {
            let middle = (low + high) / 2
            if t < transitions[middle] { high = middle } else { low = middle }
        }
        return types[transitionTypes[low]].interval(from: transitions[low], to: transitions[high])
    }

    /// Whether the footer's rule gives every offset from `t` on: true past the file's last transition, and before it
    /// only if each transition still to come is one the rule makes too (a "fat" file lists the rule's changes to
    /// 2037). Africa/Casablanca's file lists Ramadan's changes to 2087, which its rule (+01 all year) does not say.
    func footerGoverns(from t: Int64) -> Bool {
        guard let footer else { return false }
        let start = transitions.firstIndex { $0 >= t } ?? transitions.count
        return transitions[start...].indices.allSatisfy { index in
            let at = transitions[index]
            return footer.interval(at: at, notBefore: .min).utcOffset == types[transitionTypes[index]].utcOffset
        }
    }

    /// Every change of offset or name the file lists, from the one in force at `t` on (Africa/Casablanca: Ramadan's
    /// changes to 2087, then its closing rule's +01). Nil when the file lists none.
    func listedChanges(from t: Int64) -> [(at: Int64, utcOffsetBefore: Int, interval: ZoneInterval)]? {
        guard !transitions.isEmpty else { return nil }
        var start = transitions.lastIndex { $0 <= t } ?? 0
        if transitions[start] > t { start = 0 }
        var changes: [(at: Int64, utcOffsetBefore: Int, interval: ZoneInterval)] = []
        for index in start..<transitions.count {
            let before = interval(at: transitions[index] - 1)
            let after = interval(at: transitions[index])
            guard after.utcOffset != before.utcOffset || after.abbreviationIndex != before.abbreviationIndex else {
                continue
            }
            changes.append((transitions[index], before.utcOffset, after))
        }
        return changes
    }

    /// glibc's `timezone == 0 && daylight == 0` right after converting `t`: systemd-analyze then leaves out the
    /// "(in UTC)" lines.
    func isUTC(at t: Int64) -> Bool {
        if let footer, let last = transitions.last, t >= last {
            return footer.standardOffset == 0 && footer.daylightOffset == 0
        }
        return tableSaysUTC
    }
}

/// The raw content of a TZif file: the 64-bit data block when there is one, else the 32-bit one.
private struct TZifFile: Sendable {
    struct TimeType: Sendable {
        let utcOffset: Int
        let isDST: Bool
        let abbreviationOffset: Int
    }

    var transitions: [Int64] = []
    var transitionTypes: [Int] = []
    var types: [TimeType] = []
    var abbreviationBytes: [UInt8] = []
    var footer: String?

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 44, bytes[0] == 0x54, bytes[1] == 0x5A, bytes[2] == 0x69, bytes[3] == 0x66
        else {
            return nil
        }
        let version = bytes[4]
        guard let firstBlockEnd = Self.readBlock(bytes, at: 0, timeSize: 4, into: &self) else {
            return nil
        }
        guard version >= 0x32 else { return }  // version 1: 32-bit data only, no footer
        guard let secondBlockEnd = Self.readBlock(bytes, at: firstBlockEnd, timeSize: 8, into: &self)
        else {
            return nil
        }
        // Footer: "\n" TZ-string "\n".
        if secondBlockEnd < bytes.count, bytes[secondBlockEnd] == 0x0A,
            let close = bytes[(secondBlockEnd + 1)...].firstIndex(of: 0x0A)
        {
            let text = String(decoding: bytes[(secondBlockEnd + 1)..<close], as: UTF8.self)
            footer = text.isEmpty ? nil : text
        }
    }

    func abbreviation(at offset: Int) -> String {
        guard offset < abbreviationBytes.count else { return "" }
        let end = abbreviationBytes[offset...].firstIndex(of: 0) ?? abbreviationBytes.count
        return String(decoding: abbreviationBytes[offset..<end], as: UTF8.self)
    }

    /// Reads one header plus data block starting at `start`; returns the offset just past it.
    private static func readBlock(
        _ bytes: [UInt8],
        at start: Int,
        timeSize: Int,
        into file: inout TZifFile
    ) -> Int? {
        func uint32(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        func int64(_ offset: Int, size: Int) -> Int64 {
            var value: UInt64 = 0
            for index in 0..<size { value = value << 8 | UInt64(bytes[offset + index]) }
            if size == 4 { return Int64(Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: value))) }
            return Int64(bitPattern: value)
        }
        guard start + 44 <= bytes.count else { return nil }
        let utcIndicatorCount = uint32(start + 20)
        let standardIndicatorCount = uint32(start + 24)
        let leapCount = uint32(start + 28)
        let transitionCount = uint32(start + 32)
        let typeCount = uint32(start + 36)
        let characterCount = uint32(start + 40)
        var offset = start + 44
        let size =
            transitionCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
            + standardIndicatorCount + utcIndicatorCount
        guard offset + size <= bytes.count else { return nil }

        var transitions: [Int64] = []
        transitions.reserveCapacity(transitionCount)
        for index in 0..<transitionCount {
            transitions.append(int64(offset + index * timeSize, size: timeSize))
        }
        offset += transitionCount * timeSize
        let transitionTypes = (0..<transitionCount).map { Int(bytes[offset + $0]) }
        offset += transitionCount
        var types: [TimeType] = []
        for index in 0..<typeCount {
            let base = offset + index * 6
            let utcOffset = Int(Int32(bitPattern: UInt32(uint32(base))))
            types.append(
                TimeType(
                    utcOffset: utcOffset,
                    isDST: bytes[base + 4] != 0,
                    abbreviationOffset: Int(bytes[base + 5])
                )
            )
        }
        offset += typeCount * 6
        let abbreviationBytes = Array(bytes[offset..<(offset + characterCount)])
        offset +=
            characterCount + leapCount * (timeSize + 4) + standardIndicatorCount + utcIndicatorCount

        file.transitions = transitions
        file.transitionTypes = transitionTypes
        file.types = types
        file.abbreviationBytes = abbreviationBytes
        return offset
    }
}
