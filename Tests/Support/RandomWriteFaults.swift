import Synchronization
import SystemPackage

@testable import NudgeStore

/// Fails a share of the store's writes (`rate`), each at one step drawn at random, with an errno a full or failing
/// disk gives. A failing step fails every time it is tried within that write, so a failed directory flush stays
/// failed when retried and the outcome is unknown.
package final class RandomWriteFaults: Sendable {
    private let state: Mutex<(generator: SplitMix64, failing: StoreFaults.Step?, errno: Errno, injected: Int)>
    private let rate: Double

    package init(rate: Double, seed: UInt64) {
        self.rate = rate
        state = Mutex((SplitMix64(seed: seed), nil, .ioError, 0))
    }

    package var injected: Int { state.withLock { $0.injected } }

    package var storeFaults: StoreFaults {
        StoreFaults { [self] step throws(Errno) in try self.before(step) }
    }

    private func before(_ step: StoreFaults.Step) throws(Errno) {
        let failure: Errno? = state.withLock { state in
            // A new write, an append to the log or a replace of a whole file: draw whether and where it fails.
            if let steps = Self.stepsOfAWrite(startingWith: step) {
                state.failing =
                    Double.random(in: 0..<1, using: &state.generator) < rate
                    ? steps.randomElement(using: &state.generator) : nil
                state.errno = [Errno.ioError, .noSpace, .fileTooLarge].randomElement(using: &state.generator)!
            }
            guard step == state.failing else { return nil }
            state.injected += 1
            return state.errno
        }
        if let failure { throw failure }
    }

    /// The steps one write goes through, given its first. Cutting a failed append off is left out: it runs only
    /// after another step failed, and its own failure has a test of its own.
    private static func stepsOfAWrite(startingWith step: StoreFaults.Step) -> [StoreFaults.Step]? {
        switch step {
        case .create: [.create, .write, .flush, .close, .rename, .syncDirectory]
        case .append: [.append, .syncLog]
        default: nil
        }
    }
}
