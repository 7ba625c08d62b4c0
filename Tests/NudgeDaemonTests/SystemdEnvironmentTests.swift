import Testing

@testable import NudgeDaemon

@Suite struct SystemdEnvironmentTests {
    @Test func withoutANotifySocketThereIsNothingToNotifyAndNoWatchdog() {
        let environment = SystemdEnvironment(["WATCHDOG_USEC": "30000000"], processID: 42)
        #expect(environment.notifySocket == nil)
        #expect(environment.watchdogInterval == nil)
        #expect(SystemdEnvironment(["NOTIFY_SOCKET": ""], processID: 42).notifySocket == nil)
    }

    @Test func theWatchdogIntervalIsReadInMicroseconds() {
        let environment = SystemdEnvironment(
            ["NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "30000000"],
            processID: 42
        )
        #expect(environment.notifySocket == "/run/systemd/notify")
        #expect(environment.watchdogInterval == .seconds(30))
        #expect(environment.watchdogIgnored == nil)
    }

    @Test func aWatchdogMeantForAnotherProcessIsIgnored() {
        let environment = SystemdEnvironment(
            ["NOTIFY_SOCKET": "@notify", "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "7"],
            processID: 42
        )
        #expect(environment.watchdogInterval == nil)
        #expect(environment.watchdogIgnored?.contains("WATCHDOG_PID=7") == true)
        let ours = SystemdEnvironment(
            ["NOTIFY_SOCKET": "@notify", "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "42"],
            processID: 42
        )
        #expect(ours.watchdogInterval == .milliseconds(200))
    }

    @Test(arguments: ["0", "-5", "soon", "", "99999999999999999999"])
    func aWatchdogIntervalThatIsNotAPositiveNumberIsIgnored(_ text: String) {
        let environment = SystemdEnvironment(["NOTIFY_SOCKET": "@notify", "WATCHDOG_USEC": text], processID: 42)
        #expect(environment.watchdogInterval == nil)
        #expect(environment.watchdogIgnored?.contains("WATCHDOG_USEC") == true)
    }
}
