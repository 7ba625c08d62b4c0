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
