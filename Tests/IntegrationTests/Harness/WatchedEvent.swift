import Foundation
import Synchronization
import Testing

/// One event as `nudge watch --json` prints it.
struct WatchedEvent: Decodable, Sendable, CustomStringConvertible {
    var id: Int
    var kind: String
    var itemID: Int
    var due: Date
    var at: Date
    var text: String?
    var lateBy: Double?

    var description: String {
        "\(id): \(kind) #\(itemID) due \(preciseISO(due)) at \(preciseISO(at))"
            + (lateBy.map { " late \($0)s" } ?? "")
    }
}
