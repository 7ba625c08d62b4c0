import Foundation

/// How urgent an item's reminders are: desktop urgency, journal priority and a command's `NUDGE_PRIORITY` follow it.
public enum Priority: String, Codable, Sendable, CaseIterable, Comparable {
    case low, normal, high

    /// 0 low, 1 normal, 2 high.
    public var rank: Int {
        switch self {
        case .low: 0
        case .normal: 1
        case .high: 2
        }
    }

    public static func < (a: Priority, b: Priority) -> Bool { a.rank < b.rank }

    /// Reads a priority as a person types it, in any case.
    public init(validating text: String) throws(ModelError) {
        guard let priority = Priority(rawValue: text.lowercased()) else { throw .unknownPriority(text) }
        self = priority
    }
}

/// Whether a reminder found late (nudged was down, the machine asleep, the clock jumped) still fires: the item's own
/// rule, overriding the daemon's `--catch-up-window`. Written `always`, `never`, or an ISO 8601 duration (`PT2H`).
public enum CatchUp: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Fires however late it is found.
    case always
    /// Fires only on time (less than `ReminderScheduler.lateThreshold` late); found later, it is missed.
    case never
    /// Fires if found at most this many seconds late.
    case within(TimeInterval)

    /// Reads `always`, `never` or a duration (`2h`, `90m`, `PT2H`).
    public init(validating text: String) throws(ModelError) {
        switch text.lowercased() {
        case "always": self = .always
        case "never": self = .never
        default:
            guard let seconds = DurationText.seconds(text), seconds > 0 else { throw .invalidCatchUp(text) }
            self = .within(seconds)
        }
    }

    /// How late a reminder may be found and still fire.
    public var window: TimeInterval {
        switch self {
        case .always: .infinity
        case .never: ReminderScheduler.lateThreshold
        case .within(let seconds): seconds
        }
    }

    /// `always`, `never` or an ISO 8601 duration: the form the store and the API hold.
    public var description: String {
        switch self {
        case .always: "always"
        case .never: "never"
        case .within(let seconds): DurationText.iso8601(seconds)
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try CatchUp(validating: text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description)
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
