import Foundation
import Testing

/// How long a positive wait may take before it fails. Generous on purpose: it costs nothing when the awaited thing
/// happens, and a two-core machine running the whole suite beside a CPU hog can be slow to get there.
let patience: Duration = .seconds(30)

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

/// Waits until the wall clock reads `instant` or later: the one thing a test without a clock of its own must wait
/// for by the clock itself (a due instant passing while nudged is stopped).
func waitForWallClock(toPass instant: Date, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await eventually(
        "the wall clock to pass \(preciseISO(instant))",
        within: .seconds(max(0, instant.timeIntervalSinceNow)) + patience,
        sourceLocation: sourceLocation
    ) { Date() >= instant }
}
