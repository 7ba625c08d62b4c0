import Foundation

/// A stretch of time during which a zone's offset, DST flag and abbreviation stay the same.
struct ZoneInterval: Sendable, Hashable {
    let utcOffset: Int
    let isDST: Bool
    /// Index into `ZoneRules.abbreviations`.
    let abbreviationIndex: Int
    /// Valid for `start <= t < end` (seconds since the epoch).
    let start: Int64
    let end: Int64

    func contains(_ t: Int64) -> Bool { t >= start && t < end }
}
