import CLinux
import Foundation
import NudgeSystem
import Synchronization
import SystemPackage

/// One wake-up at a wall-clock instant, with no polling: a timerfd on CLOCK_REALTIME armed with TFD_TIMER_ABSTIME
/// and TFD_TIMER_CANCEL_ON_SET, read by one thread that sleeps in `read(2)` until the instant comes or the wall
/// clock is set (date change, NTP step, resume from suspend), and then calls `onWake`.
final class WallClockTimer: ReminderTimer {
    private let descriptor: FileDescriptor
    private let stopping = Atomic<Bool>(false)
    private let onWake: @Sendable () -> Void

    init(onWake: @escaping @Sendable () -> Void) throws {
        descriptor = FileDescriptor(
            rawValue: try SystemCall.valueOrErrno { timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC)) }
        )
        self.onWake = onWake
        startThread(named: "nudged-timer") { [self] in run() }
    }

    /// Wakes at `instant`, replacing any earlier arming; nil disarms. An instant in the past wakes at once.
    func arm(at instant: Date?) {
        guard let instant else {
            set(seconds: 0, nanoseconds: 0)
            return
        }
        let seconds = instant.timeIntervalSince1970.rounded(.down)
        // timerfd treats 0/0 as "disarm", so the earliest instant we arm is 1 ns after the epoch.
        let nanoseconds = max(Int((instant.timeIntervalSince1970 - seconds) * 1e9), seconds <= 0 ? 1 : 0)
        set(seconds: max(Int(seconds), 0), nanoseconds: nanoseconds)
    }

    /// Ends the reading thread.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        set(seconds: 0, nanoseconds: 1)
    }

    private func set(seconds: Int, nanoseconds: Int) {
        var value = itimerspec()
        value.it_value = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
        let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
        do {
            _ = try SystemCall.valueOrErrno { timerfd_settime(descriptor.rawValue, flags, &value, nil) }
        } catch {
            preconditionFailure("timerfd_settime failed: \(error); only EINVAL or EBADF are possible, both bugs here")
        }
    }

    private func run() {
        var expirations: UInt64 = 0
        while !stopping.load(ordering: .sequentiallyConsistent) {
            // Expired, or ECANCELED because the clock was set: either way, time to look again.
            _ = try? withUnsafeMutableBytes(of: &expirations) { try descriptor.read(into: $0) }
            if stopping.load(ordering: .sequentiallyConsistent) { break }
            onWake()
        }
        try? descriptor.close()
    }
}
