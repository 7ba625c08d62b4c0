import DequeModule
import Foundation
import NudgeCore
import NudgeSystem
import Synchronization
import SystemPackage

/// How much of the event history is kept: the last `count` events, of those decided within `age` of the latest
/// decision, whichever are fewer.
public struct HistoryLimits: Sendable, Equatable {
    public var count: Int
    public var age: TimeInterval

    public static let standard = HistoryLimits(count: 100_000, age: 30 * 24 * 60 * 60)
    /// The most events that may be kept: the index costs about 48 bytes a batch in memory, the files about 300
    /// bytes an event, twice over at most.
    public static let maximumCount = 10_000_000

    public init(count: Int, age: TimeInterval) {
        self.count = count
        self.age = age
    }
}
