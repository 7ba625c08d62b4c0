import Foundation

/// Runs blocking calls one after another on a thread of its own, so a call that blocks (a send to a stalled
/// journald) suspends only its caller, and never holds one of Swift concurrency's few shared threads.
final class BlockingLane: @unchecked Sendable {
    // `@unchecked`: `waiting` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var waiting: [@Sendable () -> Void] = []

    init(name: String) {
        let thread = Thread { [self] in
            // Named from inside: on Linux, Foundation does not pass a name set before `start()` to the kernel.
            Thread.current.name = name
            self.run()
        }
        thread.start()
    }

    /// Runs `call` on the lane's thread, after every call submitted before it, and returns its result.
    func perform<Result: Sendable>(_ call: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            condition.lock()
            waiting.append { continuation.resume(returning: call()) }
            condition.signal()
            condition.unlock()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while waiting.isEmpty { condition.wait() }
            let call = waiting.removeFirst()
            condition.unlock()
            call()
        }
    }
}
