import Foundation

/// Whether a reminder found late (nudged was down, the machine asleep, the clock jumped) still fires: the item's own
/// rule, overriding the daemon's `--catch-up-window`. Written `always`, `never`, or an ISO 8601 duration (`PT2H`).
public enum CatchUp: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Fires however late it is found.
    case always
    /// Fires only on time (less than `ReminderScheduler.lateThreshold` late); found later, it is missed.
    case never
    /// Fires if found at most this many seconds late.
    case within(TimeInterval)

    /// Reads `always`, `never` or a duration as people type them (`2h`, `90m`, `PT2H`, `Always`).
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

    /// Reads the form the API's contract and the store hold: `always`, `never` or an ISO 8601 duration (`PT2H`),
    /// nothing else.
    public init(exactly text: String) throws(ModelError) {
        switch text {
        case "always": self = .always
        case "never": self = .never
        default:
            guard let seconds = DurationText.iso8601Seconds(text), seconds > 0 else {
                throw .invalidCatchUp(text, exactly: true)
            }
            self = .within(seconds)
        }
    }

    public init(from decoder: any Decoder) throws {
        self = try decoder.decodeExactText { text throws(ModelError) in try CatchUp(exactly: text) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
