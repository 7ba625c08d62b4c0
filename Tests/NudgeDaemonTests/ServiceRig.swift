import Foundation
import Logging
import NudgeAPI
import NudgeCalendar
import NudgeCore
import NudgeTestSupport
import ServiceLifecycle

@testable import NudgeDaemon

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

/// The service as a unit: a clock that moves only when told, a store in memory whose writes can fail or wait, a sink
/// that records, a timer that records what it was asked and fires when told. The service runs in a service group
/// and stops as SIGTERM would stop it, which lets the sinks finish; no socket, no file, no sleeping.
struct ServiceRig {
    /// Where the clock starts: Fri 2027-01-15 08:00:00 UTC.
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    let clock = ManualWallClock(ServiceRig.t0)
    let store: MemoryStore
    let sink = RecordSink()
    let timer = RecordingTimer()
    let service: ReminderService
    /// The API over `service`, called in-process.
    let api: APIHandler

    init(library: ChecklistLibrary = ChecklistLibrary(), catchUpWindow: TimeInterval = 3600) {
        store = MemoryStore(library)
        let timer = timer
        service = ReminderService(
            store: store,
            clock: clock,
            zones: zones,
            catchUpWindow: catchUpWindow,
            sinks: [sink],
            events: EventHub(),
            logger: Self.quiet,
            timer: { onWake in
                timer.onWake(onWake)
                return timer
            }
        )
        api = APIHandler(service: service, socket: "test")
    }

    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Runs the service while `body` runs, then stops it gracefully; returns everything the sink was handed.
    func running(_ body: () async throws -> Void) async throws -> [RecordSink.Entry] {
        let group = ServiceGroup(services: [service], logger: Self.quiet)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                // Answered once the service has caught up at start and takes requests.
                _ = try await api.pending
                try await body()
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        return sink.entries
    }

    func add(_ text: String, dueIn seconds: TimeInterval) async throws -> Int {
        let due = Instant(clock.now() + seconds)
        return try await api.addItem(.init(text: text, dueDate: due)).itemID
    }
}
