import Foundation
import Testing

/// How long a positive wait may take before it fails: it detects a hang, it never measures a speed. Generous on
/// purpose, since it costs nothing when the awaited thing happens and a one-CPU machine running the whole suite beside
/// a CPU hog can be slow to get there: 120 s, times `NUDGE_TEST_PATIENCE` (a factor, default 1) for slower machines.
let patience: Duration = .seconds(120 * patienceFactor)

/// The factor `NUDGE_TEST_PATIENCE` gives every hang-detecting bound: waits, stops, and each test's time limit.
let patienceFactor: Int = {
    let text = ProcessInfo.processInfo.environment["NUDGE_TEST_PATIENCE"] ?? "1"
    guard let factor = Int(text), factor >= 1 else {
        fatalError("NUDGE_TEST_PATIENCE=\(text) is not a whole factor of 1 or more (e.g. 2 doubles every wait)")
    }
    return factor
}()

/// Every integration test's time limit, a backstop behind the waits' own: a test may wait several times.
let hangLimit: TimeLimitTrait.Duration = .minutes(10 * patienceFactor)

/// A test's own failure, said in a sentence.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A wait that ran out of time: what it awaited, for how long, where, and what it saw instead.
struct WaitTimedOut: Error, CustomStringConvertible {
    let awaited: String
    let limit: Duration
    let seen: String
    let location: SourceLocation

    var description: String {
        "waited \(limit) for \(awaited) (\(location.fileName):\(location.line)), in vain"
            + (seen.isEmpty ? "" : "; saw instead:\n\(seen)")
    }
}

/// Polls `found` until it returns a value and returns it; throws `WaitTimedOut`, naming `awaited` and what `seen`
/// shows then, if `limit` passes first. Suspends between polls, so a waiting test holds no thread.
func eventually<Value>(
    _ awaited: @autoclosure () -> String,
    within limit: Duration = patience,
    seen: () -> String = { "" },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ found: () async throws -> Value?
) async throws -> Value {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = try await found() { return value }
        guard ContinuousClock.now < deadline else { break }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw WaitTimedOut(awaited: awaited(), limit: limit, seen: seen(), location: sourceLocation)
}

/// `eventually` for a condition.
func eventually(
    _ awaited: @autoclosure () -> String,
    within limit: Duration = patience,
    seen: () -> String = { "" },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    try await eventually(awaited(), within: limit, seen: seen, sourceLocation: sourceLocation) {
        try await condition() ? () : nil
    }
}
