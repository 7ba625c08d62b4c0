import Foundation
import Synchronization
import Testing

/// Where a test's nudged reads the time. A test runs nudged on a manual clock and moves it (`Sandbox.moveClock`), so no
/// result depends on how fast a request arrives; only tests *of* the wall clock (timerfd, clock steps, idle wake-ups,
/// systemd's watchdog) take `.wall`, and they run in the alone group, one at a time (scripts/test).
enum TestClock: Sendable {
    /// `--clock manual:INSTANT`: starts at the instant, moves only when told to.
    case manual(Date)
    /// The machine's clock (nudged's default).
    case wall

    /// Where a manual clock starts unless a test says otherwise: 2027-01-01T00:00:00Z.
    static let epoch = Date(timeIntervalSince1970: 1_798_761_600)

    var arguments: [String] {
        switch self {
        case .manual(let start): ["--clock", "manual:" + iso(start)]
        case .wall: []
        }
    }
}
