import Foundation
import NudgeCore
import NudgeSystem
import Synchronization

/// How a store behaves beyond its files.
public struct StoreOptions: Sendable {
    /// Log bytes past which a compaction starts: 16 MiB by default, some 50,000 edits. Lower means shorter
    /// start-ups and more snapshot writes.
    public var compactionThreshold: Int
    /// Where the store says what it did on its own (compactions); nudged passes its log.
    public var notice: @Sendable (String) -> Void
    /// How much of the event history is kept.
    public var historyLimits: HistoryLimits

    public static let defaultCompactionThreshold = 16 << 20

    public init(
        compactionThreshold: Int = StoreOptions.defaultCompactionThreshold,
        historyLimits: HistoryLimits = .standard,
        notice: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.compactionThreshold = compactionThreshold
        self.historyLimits = historyLimits
        self.notice = notice
    }
}
