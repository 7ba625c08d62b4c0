import Logging

/// Keeps systemd's watchdog fed while, and only while, the scheduler answers: every half interval it awaits `probe`
/// (a request through the service's loop) and pings only once that returns. A wedged loop, or an executor too starved
/// to run this task, stops the pings, and systemd restarts nudged after `WatchdogSec=`.
///
/// A probe that merely answers late still leads to a ping: systemd's own deadline decides whether it was too late,
/// and a stall shorter than the interval is survivable. Slow answers are logged, so a restart has a trail.
struct SystemdWatchdog<C: Clock>: Sendable where C.Duration == Duration {
    /// `WATCHDOG_USEC`: systemd acts when no ping arrives for this long.
    let interval: Duration
    let clock: C
    /// Proves the scheduler is alive; returns a status line for the ping.
    let probe: @Sendable () async -> String
    /// Sends `WATCHDOG=1` with the status line.
    let ping: @Sendable (String) -> Void
    let logger: Logger

    /// Half the interval, as sd_watchdog_enabled(3) advises, so one late ping is not yet fatal.
    var period: Duration { interval / 2 }

    /// Pings until cancelled.
    func run() async throws {
        while true {
            try await clock.sleep(for: period)
            let asked = clock.now
            let status = await probe()
            let waited = asked.duration(to: clock.now)
            if waited > period {
                logger.warning("the scheduler took \(waited) to answer the watchdog, whose interval is \(interval)")
            }
            ping(status)
        }
    }
}
