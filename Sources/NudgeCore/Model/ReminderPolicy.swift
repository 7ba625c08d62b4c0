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
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try CatchUp(exactly: text)
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

/// Advance warnings: lengths of time before its due instant at which an item's reminder warns that it is coming.
/// They are part of the item's pending set (replaced by every edit, cancelled by a check-off), and stored and
/// answered longest lead first, so the earliest warning comes first.
public enum Warnings {
    public static let maximumCount = 8
    /// A warning is about a reminder to come, not a calendar: a year ahead at most.
    public static let maximumLead: TimeInterval = 366 * 86_400

    /// Checks and orders leads given as seconds: each more than 0 and at most `maximumLead`, at most
    /// `maximumCount` of them; duplicates count once.
    public static func normalized(_ leads: [TimeInterval]) throws(ModelError) -> [TimeInterval] {
        let text = leads.map(DurationText.iso8601).joined(separator: ",")
        for lead in leads where !(lead > 0 && lead <= maximumLead) {
            throw .invalidWarning(text, "\(DurationText.iso8601(lead)) is not more than 0 and at most a year")
        }
        guard leads.count <= maximumCount else { throw .invalidWarning(text, "there are \(leads.count) of them") }
        return Set(leads).sorted(by: >)
    }

    /// How long until `due` a warning of `lead` tells the user, decided at `decidedAt`, `lateBy` after its instant:
    /// the lead when on time (not the milliseconds less the timer took), what is left when found late.
    public static func timeLeft(lead: TimeInterval, due: Date, decidedAt: Date, lateBy: TimeInterval) -> TimeInterval {
        lateBy >= ReminderScheduler.lateThreshold ? due.timeIntervalSince(decidedAt) : lead
    }

    /// Reads leads as people type them, separated by commas: `1h,10m`, `PT1H,PT10M`, `2d`.
    public static func parse(_ text: String) throws(ModelError) -> [TimeInterval] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        return try parse(parts.map { $0.trimmingCharacters(in: .whitespaces) }, as: text, reading: DurationText.seconds)
    }

    /// Reads leads given one by one, as the API takes them and its contract says: ISO 8601 durations, `["PT1H",
    /// "PT10M"]`, nothing else.
    public static func parse(_ texts: [String]) throws(ModelError) -> [TimeInterval] {
        try parse(texts, as: texts.joined(separator: ","), reading: DurationText.iso8601Seconds)
    }

    private static func parse(
        _ texts: [String],
        as whole: String,
        reading: (String) -> TimeInterval?
    ) throws(ModelError) -> [TimeInterval] {
        var leads: [TimeInterval] = []
        for text in texts {
            guard let seconds = reading(text) else {
                throw .invalidWarning(whole, text.isEmpty ? "one of them is empty" : "\"\(text)\" is not a duration")
            }
            leads.append(seconds)
        }
        return try normalized(leads)
    }
}
