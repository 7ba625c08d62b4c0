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

    /// The longest repeat: a year.
    public static let longestEvery: TimeInterval = 366 * 86_400

    /// Why its parts are out of range, if they are: `every` a whole number of seconds from `shortestEvery` to
    /// `longestEvery`, `times` 1 to `mostTimes`, `escalateAfter` 0 to `times`.
    public var whyInvalid: String? {
        if every < Self.shortestEvery || every > Self.longestEvery || every != every.rounded() {
            return "repeat every whole number of seconds from 1m to 366d, not \(DurationText.iso8601(every))"
        }
        if !(1...Self.mostTimes).contains(times) { return "repeat 1 to \(Self.mostTimes) times, not \(times)" }
        if let escalateAfter, !(0...times).contains(escalateAfter) {
            return "escalate after 0 to \(times) repeats (as many as it makes), not \(escalateAfter)"
        }
        return nil
    }

    /// This nag, refused if a part is out of range (`whyInvalid`).
    public func validated() throws(ModelError) -> Nag {
        if let reason = whyInvalid { throw .invalidNag(description, because: reason) }
        return self
    }

    /// Reads a nag as people type one: how often, and at most how many times (`10m`, `10m,5`, `PT1H,3`).
    public init(parsing text: String) throws(ModelError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            let every = DurationText.seconds(parts[0].trimmingCharacters(in: .whitespaces))
        else {
            throw .invalidNag(text, because: "give how often, and at most how many times: 10m, 10m,5 or PT1H,3")
        }
        var times = Self.defaultTimes
        if parts.count == 2 {
            guard let count = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
                throw .invalidNag(text, because: "after the comma, how many times at most: a whole number, as in 10m,5")
            }
            times = count
        }
        self = try Nag(every: every, times: times).validated()
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

    /// Reads the form `description` writes (its parts in any order, `times` 10 when left out), as the API and the
    /// store hold it; refused, saying why, if it is not that form or a part is out of range.
    public init(exactly text: String) throws(ModelError) {
        let form = "write it as every=PT10M;times=10, with ;until=seen and ;escalateAfter=N if wanted"
        var every: TimeInterval?
        var times = Self.defaultTimes
        var untilSeen = false
        var escalateAfter: Int?
        var seen = Set<Substring>()
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, seen.insert(pair[0]).inserted else { throw .invalidNag(text, because: form) }
            let value = String(pair[1])
            switch pair[0] {
            case "every":
                guard let seconds = DurationText.iso8601Seconds(value) else {
                    throw .invalidNag(text, because: "every takes an ISO 8601 duration, such as PT10M")
                }
                every = seconds
            case "times":
                guard let count = Int(value) else { throw .invalidNag(text, because: "times takes a whole number") }
                times = count
            case "until":
                guard value == "seen" else {
                    throw .invalidNag(text, because: "until takes seen (left out: until acknowledged)")
                }
                untilSeen = true
            case "escalateAfter":
                guard let count = Int(value) else {
                    throw .invalidNag(text, because: "escalateAfter takes a whole number")
                }
                escalateAfter = count
            default: throw .invalidNag(text, because: form)
            }
        }
        guard let every else { throw .invalidNag(text, because: form) }
        self = try Nag(every: every, times: times, untilSeen: untilSeen, escalateAfter: escalateAfter).validated()
    }
}

/// Coded as its one-line form, as the store and an event's history hold it.
extension Nag: Codable {
    public init(from decoder: any Decoder) throws {
        self = try decoder.decodeExactText { text throws(ModelError) in try Nag(exactly: text) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
