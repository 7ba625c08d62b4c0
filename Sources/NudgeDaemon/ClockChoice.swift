import Foundation
import NudgeCore

/// Which clock nudged runs on.
enum ClockChoice: Sendable {
    /// The machine's wall clock, and a timerfd that wakes at its instants.
    case wall
    /// A virtual clock that moves only when told to (`POST /v1/clock`), starting at `start`.
    case manual(start: Date)

    /// The clock the service reads, and the timer it arms.
    func make() -> (clock: any WallClock, timer: ReminderService.MakeTimer) {
        switch self {
        case .wall: (SystemWallClock(), { try WallClockTimer(onWake: $0) })
        case .manual(let start): (ManualWallClock(start), { _ in IdleTimer() })
        }
    }
}
