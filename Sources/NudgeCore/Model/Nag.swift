import Foundation

/// How an item's reminder repeats while it awaits acknowledgement (`ChecklistItem.unacknowledgedSince`): every
/// `every` after the fire, at most `times` times, each a `renotified` decision that replaces what the sinks show;
/// repeats after the `escalateAfter`-th come at high priority. Written as its parts, each `name=value`, joined by `;`
/// (`every=PT10M;times=10;until=seen;escalateAfter=3`), the form the store holds.
public struct Nag: Sendable, Hashable, CustomStringConvertible {
    /// How long after the fire, and after each repeat, the next repeat comes.
    public var every: TimeInterval
    /// How many repeats at most; after the last, an `exhausted` event, and the reminder awaits acknowledgement quietly.
    public var times: Int
    /// Whether closing the notification acknowledges it too (`--nag-until seen`), besides Done, Snooze, an edit or an
    /// ack.
    public var untilSeen: Bool
    /// Repeats after this many come at high priority (critical urgency, journal priority 2); nil: never.
    public var escalateAfter: Int?

    public static let defaultTimes = 10
    /// The shortest repeat: a nag every few seconds is a mistake, and a flood on every sink.
    public static let shortestEvery: TimeInterval = 60
    /// The most repeats one fire may have.
    public static let mostTimes = 1_000

    public init(every: TimeInterval, times: Int = Self.defaultTimes, untilSeen: Bool = false, escalateAfter: Int? = nil)
    {
        self.every = every
        self.times = times
        self.untilSeen = untilSeen
        self.escalateAfter = escalateAfter
    }

    /// Whether its parts are in range: `every` at least `shortestEvery` (and a whole number of seconds), `times` 1 to
    /// `mostTimes`, `escalateAfter` 0 to `times`.
    public var isValid: Bool {
        every >= Self.shortestEvery && every == every.rounded() && every <= 366 * 86_400
            && (1...Self.mostTimes).contains(times) && escalateAfter.map { (0...times).contains($0) } != false
    }

    /// The instant of repeat `number` (1, 2, …) of a fire at `firedAt`.
    public func instant(ofRepeat number: Int, firedAt: Date) -> Date {
        firedAt + every * Double(number)
    }

    /// The number of the latest repeat due by `now` of a fire at `firedAt`: 0 before the first; at most `times`.
    public func latestRepeat(by now: Date, firedAt: Date) -> Int {
        guard now >= firedAt + every else { return 0 }
        return min(times, Int((now.timeIntervalSince(firedAt) / every).rounded(.down)))
    }

    /// Whether repeat `number` comes at high priority.
    public func escalates(_ number: Int) -> Bool { escalateAfter.map { number > $0 } ?? false }

    public var description: String {
        var parts = ["every=\(DurationText.iso8601(every))", "times=\(times)"]
        if untilSeen { parts.append("until=seen") }
        if let escalateAfter { parts.append("escalateAfter=\(escalateAfter)") }
        return parts.joined(separator: ";")
    }

    /// Reads the form `description` writes, nothing else; nil for anything else or parts out of range.
    public init?(exactly text: String) {
        var every: TimeInterval?
        var times = Self.defaultTimes
        var untilSeen = false
        var escalateAfter: Int?
        var seen = Set<Substring>()
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, seen.insert(pair[0]).inserted else { return nil }
            switch pair[0] {
            case "every": every = DurationText.iso8601Seconds(String(pair[1]))
            case "times":
                guard let value = Int(pair[1]) else { return nil }
                times = value
            case "until":
                guard pair[1] == "seen" else { return nil }
                untilSeen = true
            case "escalateAfter":
                guard let value = Int(pair[1]) else { return nil }
                escalateAfter = value
            default: return nil
            }
        }
        guard let every else { return nil }
        self.init(every: every, times: times, untilSeen: untilSeen, escalateAfter: escalateAfter)
        guard isValid else { return nil }
    }
}

/// Coded as its one-line form, as the store and an event's history hold it.
extension Nag: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let nag = Nag(exactly: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a nag: \(text.prefix(80))")
            )
        }
        self = nag
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
