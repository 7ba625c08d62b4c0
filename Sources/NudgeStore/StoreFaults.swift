import Foundation
import NudgeSystem
import SystemPackage

/// Where tests make a durable replace fail: asked before each step, it throws the error that step should fail with,
/// as if the system call had. The real store has none.
struct StoreFaults: Sendable {
    enum Step: Sendable, CaseIterable {
        /// The steps of a durable replace.
        case create, write, flush, close, rename, syncDirectory
        /// The steps of an append to the change log, and of cutting a failed one off.
        case append, syncLog, truncateLog
    }

    let before: @Sendable (Step) throws(Errno) -> Void

    static let none = StoreFaults { _ in }
}
