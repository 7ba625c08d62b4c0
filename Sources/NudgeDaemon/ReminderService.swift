import Foundation
import Logging
import NudgeAPI
import NudgeCore
import NudgeSinks
import NudgeStore
import ServiceLifecycle
import Synchronization

/// The heart of nudged: owns the checklists and their reminders, and turns each input (a request, or a wake-up of
/// the timer because an instant came or the wall clock was set) into a durable change, then into deliveries,
/// withdrawals, events and a re-armed timer.
///
/// A loop over one stream of inputs, run in the service group. Only the loop holds the book: it applies each input
/// in arrival order, at once, hands its changes to the writer in that order, and sets the timer as the scheduler
/// decided. A change is carried out (sinks, events) and answered only once it is durable, in the order it was
/// applied; the loop does not wait for that itself, so changes that arrive during a write go to disk together in
/// the next one (group commit). If a write fails, the book is stale: before the next input uses it, the loop reloads
/// it from what the store holds. Nothing is acknowledged that is not on disk, and nothing is read that is not.
final class ReminderService: Service {
    let events = EventHub(render: APIHandler.frames)
    let writer: StoreWriter
    private let sinks: [SinkQueue]
    private let clock: any WallClock
    /// What a new book gets (after a failed write); a reload may change it.
    private let catchUpWindow: Mutex<TimeInterval>
    private let logger: Logger
    private let makeTimer: MakeTimer
    private let inputs: AsyncStream<Input>
    private let input: AsyncStream<Input>.Continuation
    /// Whether a wake-up waits in the stream already: one is enough, however often the timer wakes meanwhile.
    private let wakeUpQueued = Atomic<Bool>(false)

    /// Makes the timer, given what it calls when it wakes.
    typealias MakeTimer = @Sendable (_ onWake: @escaping @Sendable () -> Void) throws -> any ReminderTimer

    init(
        store: any DurableStore,
        clock: any WallClock,
        catchUpWindow: TimeInterval,
        sinks: [any ReminderSink],
        logger: Logger,
        timer makeTimer: @escaping MakeTimer = { try WallClockTimer(onWake: $0) }
    ) {
        writer = StoreWriter(store: store)
        self.sinks = sinks.map { SinkQueue($0, logger: logger) }
        self.clock = clock
        self.catchUpWindow = Mutex(catchUpWindow)
        self.logger = logger
        self.makeTimer = makeTimer
        (inputs, input) = AsyncStream.makeStream()
    }

    /// What the loop takes, in order.
    private enum Input: Sendable {
        /// A request: reads or changes the book, and returns the commits it made, in order; or, if nudged stops
        /// before its turn, is told so.
        case request(apply: @Sendable (inout State) -> [Commit], refuse: @Sendable () -> Void)
        /// The timer's instant came, or the wall clock was set.
        case wakeUp
        /// A commit computed on generation `appliedTo` failed; `done` is resumed once the book is marked stale.
        case writeFailed(appliedTo: Int, error: any Error, done: CheckedContinuation<Void, Never>)
    }

    /// What only the loop touches.
    private struct State {
        var book: ReminderBook
        /// Counts reloads of `book` after failed writes: a commit computed on an older one is void.
        var generation = 0
        /// A write of this generation failed, so `book` may be ahead of disk; the writer refuses commits until the
        /// reload.
        var stale = false
        let timer: any ReminderTimer

        func commit(
            _ outcome: ReminderBook.Outcome,
            answer: @escaping @Sendable (Result<Void, any Error>) -> Void
        ) -> Commit {
            Commit(outcome: outcome, generation: generation, answer: answer)
        }

        /// Schedules what the book holds, fires late or reports missed what fell due unhandled: at start, and after
        /// a reload. A commit like any other: if it fails, the next input reloads again, so a failing disk costs one
        /// attempt per input, never a loop.
        mutating func restore() -> Commit {
            commit(book.start()) { _ in }
        }

        /// Sets the timer as the scheduler decided, as each operation is applied: its actions are the only say in
        /// when nudged wakes.
        func setTimer(_ actions: [SchedulerAction]) {
            for action in actions {
                switch action {
                case .armTimer(let instant): timer.arm(at: instant)
                case .disarmTimer: timer.arm(at: nil)
                case .deliver, .withdraw: break
                }
            }
        }
    }

    /// An applied operation on its way to disk, and what follows once it is there, or is not.
    private struct Commit: Sendable {
        var outcome: ReminderBook.Outcome
        var generation: Int
        /// Tells whoever asked: after the outcome is carried out, or once a failure has made the book stale.
        var answer: @Sendable (Result<Void, any Error>) -> Void
    }

    /// Schedules what the store holds, fires late or reports missed what fell due while nudged was down, then takes
    /// inputs until graceful shutdown; then finishes the commits under way, lets the sinks finish and stops the
    /// timer. (The server ends the event streams as it stops, before this.)
    func run() async throws {
        do {
            try await takeInputs()
        } catch {
            await refuseInputsLeft()
            throw error
        }
        await refuseInputsLeft()
    }

    private func takeInputs() async throws {
        let timer = try makeTimer { [self] in
            if !wakeUpQueued.exchange(true, ordering: .acquiringAndReleasing) { input.yield(.wakeUp) }
        }
        defer { timer.stop() }
        var state = State(book: newBook(), timer: timer)
        // Before the first request, which waits in the stream: a store that cannot record this stops nudged.
        try await submit(state.restore(), &state).durable()

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await next in inputs {
                    for commit in take(next, &state) {
                        let queued = submit(commit, &state)
                        group.addTask { await self.complete(commit, queued) }
                    }
                }
            }
        } onGracefulShutdown: { [input] in
            input.finish()
        }
        await withTaskGroup(of: Void.self) { group in
            for sink in sinks { group.addTask { await sink.finish(within: Self.sinkDrainTimeout) } }
        }
    }

    /// Answers what is still in the stream once the loop has ended, so no request waits for ever.
    private func refuseInputsLeft() async {
        input.finish()
        for await next in inputs {
            switch next {
            case .request(_, let refuse): refuse()
            case .wakeUp: break
            case .writeFailed(_, _, let done): done.resume()
            }
        }
    }

    /// How long a stop waits for sinks still delivering (a notification server's answer awaited); well inside systemd's
    /// expectations of a clean stop.
    static let sinkDrainTimeout: Duration = .seconds(1)

    // MARK: Reading

    func health(socket: String) async throws -> Components.Schemas.Health {
        try await read { [writer, events] book in
            Components.Schemas.Health(
                status: "ok",
                pid: getpid(),
                store: writer.store.path,
                socket: socket,
                items: book.library.itemCount,
                pending: book.scheduler.pendingCount,
                nextDue: book.scheduler.nextDue.map(Instant.init),
                watchers: events.subscriberCount,
                commits: writer.commitCount,
                syncs: writer.writeCount
            )
        }
    }

    var library: ChecklistLibrary { get async throws { try await read(\.library) } }

    /// The most entries a page of items or reminders holds: one page of JSON stays well under a few MiB.
    static let maximumPageSize = 10_000
    static let defaultPageSize = 1_000

    func item(_ itemID: Int) async throws -> Components.Schemas.Item {
        try await read { book in try book.wireItem(itemID) }
    }

    /// A page of items in ID order, of one list or all lists; unchecked ones only unless `includeChecked`.
    func itemPage(listName: String?, includeChecked: Bool, after: Int, limit: Int) async throws
        -> Components.Schemas.ItemPage
    {
        try await read { book in
            let listID = try book.listID(id: nil, name: listName)
            let (found, more) = book.library.itemPage(after: after, limit: limit) { item, list in
                (listID == nil || list.listID == listID) && (includeChecked || !item.checked)
            }
            let items = found.map { book.wire($0.item, in: $0.list) }
            return Components.Schemas.ItemPage(items: items, next: more ? items.last?.itemID : nil)
        }
    }

    /// A page of pending reminders, soonest first, after item `after`'s reminder (due at `afterDue`, or as pending
    /// now).
    func pendingPage(after: Int, afterDue: Date?, limit: Int) async throws -> Components.Schemas.ReminderPage {
        try await read { book in
            var cursor: (due: Date, itemID: Int)?
            if after > 0 {
                guard let due = afterDue ?? book.scheduler.pendingReminder(for: after)?.due else {
                    throw APIFailure.badRequest(
                        "invalid_request",
                        "item \(after) has no pending reminder to start the page after; pass afterDue too, as the "
                            + "previous page's nextDue gave it"
                    )
                }
                cursor = (due, after)
            }
            let (reminders, more) = book.scheduler.pendingPage(after: cursor, limit: limit)
            let last = more ? reminders.last : nil
            return Components.Schemas.ReminderPage(
                reminders: reminders.map(Components.Schemas.Reminder.init),
                next: last?.itemID,
                nextDue: last.map { Instant($0.due) }
            )
        }
    }

    func lists() async throws -> [Components.Schemas.List] {
        try await read { book in book.library.lists.map { book.library.wireList($0) } }
    }

    // MARK: Changing

    func addItem(_ request: Components.Schemas.NewItem) async throws -> Components.Schemas.Item {
        try await perform { book in try book.add(request) }
    }

    func editItem(_ itemID: Int, _ patch: ItemPatch) async throws -> Components.Schemas.Item {
        try await perform { book in try book.edit(itemID, patch) }
    }

    /// Snoozes an item's reminder until the instant `until` gives from the loop's clock (the manual clock's, too).
    func snoozeItem(_ itemID: Int, until: @escaping @Sendable (Date) -> Date) async throws
        -> Components.Schemas.Item
    {
        try await perform { book in try book.snooze(itemID, until: until) }
    }

    func removeItem(_ itemID: Int) async throws {
        try await perform { book in ((), try book.removeItem(itemID: itemID)) }
    }

    func addList(_ request: Components.Schemas.NewList) async throws -> Components.Schemas.List {
        let icon = try IconName(requested: request.iconName) ?? .noIcon
        return try await perform { book in
            let (list, outcome) = try book.addList(name: request.name, iconName: icon)
            return (book.library.wireList(list), outcome)
        }
    }

    func updateList(_ listID: Int, _ patch: Components.Schemas.ListPatch) async throws -> Components.Schemas.List {
        let icon = try IconName(requested: patch.iconName)
        if patch.isDefault == false {
            throw APIFailure.badRequest(
                "invalid_body",
                "isDefault can only be true: to stop list \(listID) being the default, make another list the default"
            )
        }
        return try await perform { book in
            let outcome = try book.updateList(
                listID: listID,
                name: patch.name,
                iconName: icon,
                makeDefault: patch.isDefault == true
            )
            guard let list = book.library.list(id: listID) else { throw ModelError.unknownList(listID) }
            return (book.library.wireList(list), outcome)
        }
    }

    func removeList(_ listID: Int) async throws {
        try await perform { book in ((), try book.removeList(listID: listID)) }
    }

    /// A page of the event history (durable events only); read from the store's files, beside the loop.
    func eventPage(
        after: Int,
        limit: Int,
        matching matches: (ReminderEvent) -> Bool
    ) throws -> EventPage {
        try writer.store.events(after: after, limit: limit, scanLimit: 50_000, matching: matches)
    }

    /// A reload's new `--catch-up-window`, for reminders found late from now on.
    func setCatchUpWindow(_ window: TimeInterval) async throws {
        try await perform { book in
            self.catchUpWindow.withLock { $0 = window }
            book.setCatchUpWindow(window)
            return ((), ReminderBook.Outcome())
        }
    }

    /// What the user did with a reminder's desktop notification (it showed the reminder due at `due`): Done, Snooze
    /// (for `snoozeLength`), or closing it. Durable before it returns; an item gone since is only logged.
    func respond(
        to response: NotificationResponse,
        itemID: Int,
        due: Date,
        snoozeLength: TimeInterval
    ) async {
        do {
            try await perform { book in
                ((), try book.respond(to: response, itemID: itemID, due: due, snoozeLength: snoozeLength))
            }
        } catch {
            logger.warning("the notification's \(response.rawValue) for item \(itemID) changed nothing: \(error)")
        }
    }

    // MARK: Calendar files

    /// Every item, or one list's, as a VCALENDAR of tasks, in ID order.
    func exportCalendar(listName: String?) async throws -> String {
        try await read { book in
            let listID = try book.listID(id: nil, name: listName)
            let entries = book.library.lists.filter { listID == nil || $0.listID == listID }
                .flatMap { list in list.items.map { (item: $0, list: list) } }
                .sorted { $0.item.itemID < $1.item.itemID }
            return CalendarInterchange.document(of: entries, storeID: book.library.storeID, timeZone: book.timeZone)
        }
    }

    /// Creates or updates items from the tasks of an iCalendar document, all in one commit; a document out of shape
    /// changes nothing.
    func importCalendar(_ text: String, listName: String?) async throws -> Components.Schemas.ImportReport {
        // Read before the loop's turn, in the zone the book uses (the daemon's): reading a large file must not hold up
        // the requests and reminders behind it.
        let (tasks, skipped) = try CalendarInterchange.tasks(in: text, timeZone: .current)
        return try await perform { book in
            let listID = try book.listID(id: nil, name: listName) ?? book.library.defaultList.listID
            let (results, outcome) = try book.importTasks(tasks, into: listID)
            return (Components.Schemas.ImportReport((results + skipped).sorted { $0.line < $1.line }), outcome)
        }
    }

    // MARK: The clock

    /// What the clock reads now, and whether it is the manual one.
    func clockReading() async throws -> (now: Date, manual: Bool) {
        try await read { [clock] _ in (clock.now(), clock is ManualWallClock) }
    }

    /// Moves the manual clock to `target`, forward or back. Every reminder due on the way fires at its own instant,
    /// in due order (the clock reads that instant as it fires); the answer comes once all of it is durable and
    /// carried out (delivered to the sinks' queues, published). Under the wall clock, refused.
    func moveClock(to target: @escaping @Sendable (Date) -> Date) async throws -> Date {
        let manual = try manualClock()
        return try await perform { book in
            var commits = CommitChunks()
            let now = try book.moveClock(manual, to: target, into: &commits)
            return (now, commits.outcomes)
        }
    }

    /// The manual clock nudged runs on; under the wall clock, the refusal to move it.
    private func manualClock() throws -> ManualWallClock {
        guard let manual = clock as? ManualWallClock else {
            throw APIFailure(
                status: .conflict,
                code: "clock_not_manual",
                message: "nudged runs on the wall clock, which only the system moves; start it with --clock manual "
                    + "to drive time yourself"
            )
        }
        return manual
    }

    // MARK: Batches

    /// One operation of a batch (`POST /v1/batch`), read and checked as far as it can be before its turn.
    enum BatchStep: Sendable {
        case add(Components.Schemas.NewItem)
        case edit(itemID: Int, ItemPatch)
        case snooze(itemID: Int, until: @Sendable (Date) -> Date)
        case remove(itemID: Int)
        case moveClock(to: @Sendable (Date) -> Date)
    }

    /// The operation of a batch that was refused, at `index`; `applied`: what those before it answered, once durable
    /// (none, when the batch was refused as it was read).
    struct BatchRefusal: Error {
        let index: Int
        let error: any Error
        var applied: [Components.Schemas.BatchResult] = []
    }

    /// Applies a batch's operations in order in one turn of the loop, nothing else between them, their changes
    /// saved in commits of about `CommitChunks.size` changes and events; answers once all are durable and carried
    /// out. The first operation refused stops the batch: those before it are kept, and the answer, once they are
    /// durable, is a `BatchRefusal`.
    func runBatch(_ steps: [BatchStep]) async throws -> [Components.Schemas.BatchResult] {
        let manual = try batchClock(steps)
        typealias Answer = Result<[Components.Schemas.BatchResult], BatchRefusal>
        return try await perform { (book: inout ReminderBook) -> (Answer, [ReminderBook.Outcome]) in
            var commits = CommitChunks()
            var results: [Components.Schemas.BatchResult] = []
            results.reserveCapacity(steps.count)
            for (index, step) in steps.enumerated() {
                // As before each request: what fell due on the wall clock meanwhile is decided before the next step.
                if book.hasDecisionDue { commits.append(book.advance()) }
                do {
                    results.append(try book.apply(step, manualClock: manual, into: &commits))
                } catch {
                    return (.failure(BatchRefusal(index: index, error: error, applied: results)), commits.outcomes)
                }
            }
            return (.success(results), commits.outcomes)
        }.get()
    }

    /// The manual clock, if a batch moves it; under the wall clock, the refusal of the batch.
    private func batchClock(_ steps: [BatchStep]) throws -> ManualWallClock? {
        guard let index = steps.firstIndex(where: { if case .moveClock = $0 { true } else { false } }) else {
            return nil
        }
        do {
            return try manualClock()
        } catch {
            throw BatchRefusal(index: index, error: error)
        }
    }

    // MARK: The loop

    /// Reads the book in the loop's turn, after every change that arrived before.
    private func read<Value: Sendable>(
        _ body: @escaping @Sendable (ReminderBook) throws -> Value
    ) async throws -> Value {
        try await perform { book in (try body(book), ReminderBook.Outcome()) }
    }

    /// Applies `operation` to the book in the loop's turn, and answers once its changes are durable and carried
    /// out. A refused operation changes nothing and is answered at once.
    private func perform<Value: Sendable>(
        _ operation: @escaping @Sendable (inout ReminderBook) throws -> (Value, ReminderBook.Outcome)
    ) async throws -> Value {
        try await perform { book in
            let (value, outcome) = try operation(&book)
            return (value, [outcome])
        }
    }

    /// `perform` for an operation made of steps, each committed on its own, in order; the answer comes once the last
    /// of them is durable and carried out (commits complete in the order they were submitted).
    private func perform<Value: Sendable>(
        _ operation: @escaping @Sendable (inout ReminderBook) throws -> (Value, [ReminderBook.Outcome])
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let request: @Sendable (inout State) -> [Commit] = { state in
                do {
                    let (value, outcomes) = try operation(&state.book)
                    let steps = outcomes.filter { !$0.isEmpty }
                    guard let last = steps.last else {
                        continuation.resume(returning: value)
                        return []
                    }
                    return steps.dropLast().map { state.commit($0) { _ in } }
                        + [state.commit(last) { continuation.resume(with: $0.map { value }) }]
                } catch {
                    continuation.resume(throwing: error)
                    return []
                }
            }
            let refuse: @Sendable () -> Void = { continuation.resume(throwing: APIFailure.stopping) }
            if case .terminated = input.yield(.request(apply: request, refuse: refuse)) { refuse() }
        }
    }

    /// Applies one input; what it returns is committed outside the loop, in order.
    private func take(_ next: Input, _ state: inout State) -> [Commit] {
        switch next {
        case .request(let apply, _):
            let restore = reloadIfStale(&state)
            // Decisions are made in time order: what fell due before the request came is decided before it, even
            // if the timer's wake-up waits behind it in the stream. Else an edit made just after a due instant would
            // replace a reminder (or warning) that never fired.
            return restore + (state.book.hasDecisionDue ? [advance(&state)] : []) + apply(&state)
        case .wakeUp:
            wakeUpQueued.store(false, ordering: .releasing)
            let restore = reloadIfStale(&state)
            return restore + [advance(&state)]
        case .writeFailed(let appliedTo, let error, let done):
            defer { done.resume() }
            // Of the commits computed on one generation, only the first to fail counts: the others failed with it.
            if appliedTo == state.generation && !state.stale {
                logger.error("saving failed (\(error)); the last saved state is reloaded before the next request")
                state.stale = true
            }
            return []
        }
    }

    /// Fires what is due now, as a commit of its own.
    private func advance(_ state: inout State) -> Commit {
        state.commit(state.book.advance()) { [logger] result in
            if case .failure(let error) = result { logger.error("could not record fired reminders: \(error)") }
        }
    }

    /// A write failed: what is in memory may be ahead of disk, so start again from what is durable, and schedule
    /// its reminders as at start. The writer refuses commits until it hears the new generation, and commits from
    /// older generations after.
    private func reloadIfStale(_ state: inout State) -> [Commit] {
        guard state.stale else { return [] }
        state.stale = false
        state.generation += 1
        // The old book goes first, so the new copy of the library is not made beside it and the store's.
        state.book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        state.book = newBook()
        writer.resynchronized(generation: state.generation)
        return [state.restore()]
    }

    /// Hands an applied operation's changes to the writer, behind those applied before it, and sets the timer.
    private func submit(_ commit: Commit, _ state: inout State) -> QueuedCommit {
        let queued = writer.submit(
            commit.outcome.changes,
            events: commit.outcome.events,
            generation: commit.generation
        ) { [self] in
            carryOut(commit.outcome)
        }
        state.setTimer(commit.outcome.actions)
        return queued
    }

    /// A book on the store's library, with its own copy made now (`makeRoomToGrow`): the two part at the first
    /// change anyway.
    private func newBook() -> ReminderBook {
        var library = writer.store.library
        library.makeRoomToGrow()
        return ReminderBook(library: library, clock: clock, catchUpWindow: catchUpWindow.withLock { $0 })
    }

    /// Waits until a commit is durable (the writer carries it out then), and answers; if it failed, has the loop
    /// mark the book stale first, so the asker's next request is read against what is durable.
    private func complete(_ commit: Commit, _ queued: QueuedCommit) async {
        do {
            try await queued.durable()
            commit.answer(.success(()))
        } catch {
            await withCheckedContinuation { done in
                let failed = Input.writeFailed(appliedTo: commit.generation, error: error, done: done)
                if case .terminated = input.yield(failed) { done.resume() }
            }
            commit.answer(.failure(error))
        }
    }

    /// Hands deliveries, withdrawals and events to every sink's queue, in the order the scheduler decided them.
    /// Never waits for a sink. Runs on the writer's thread, commit after commit, in the order they were applied.
    private func carryOut(_ outcome: ReminderBook.Outcome) {
        for action in outcome.actions {
            switch action {
            case .deliver(let delivery):
                for sink in sinks { sink.enqueue(.deliver(delivery)) }
            case .withdraw(let itemID):
                for sink in sinks { sink.enqueue(.withdraw(itemID: itemID)) }
            case .armTimer, .disarmTimer:
                break  // Done by `State.setTimer` when the operation was applied.
            }
        }
        for event in outcome.events {
            for sink in sinks { sink.enqueue(.observe(event)) }
            logger.info(
                "\(event.kind.rawValue) item \(event.itemID)",
                metadata: ["due": "\(event.due.formatted(.iso8601))", "event": "\(event.kind.rawValue)"]
            )
        }
        events.publish(outcome.events)
    }
}

/// Outcomes gathered into commits of about `size` changes and events each, in order: a clock move over a day of a
/// million reminders, or a batch of thousands of edits, is a thousand records, not a million.
private struct CommitChunks {
    static let size = 1_000
    private var full: [ReminderBook.Outcome] = []
    private var current = ReminderBook.Outcome()

    mutating func append(_ outcome: ReminderBook.Outcome) {
        current.append(contentsOf: outcome)
        if current.changes.count + current.events.count >= Self.size {
            full.append(current)
            current = ReminderBook.Outcome()
        }
    }

    var outcomes: [ReminderBook.Outcome] { full + [current] }
}

/// The API's changes to items and to the clock, as the loop applies them: a request's, or a batch's operation's.
extension ReminderBook {
    fileprivate mutating func add(_ request: Components.Schemas.NewItem) throws -> (Components.Schemas.Item, Outcome) {
        let listID = try listID(id: request.listID, name: request.list) ?? library.defaultList.listID
        let (item, outcome) = try addItem(try request.item(listID: listID))
        return (try wireItem(item.itemID), outcome)
    }

    fileprivate mutating func edit(_ itemID: Int, _ patch: ItemPatch) throws -> (Components.Schemas.Item, Outcome) {
        var edit = patch.edit
        edit.listID = try listID(id: edit.listID, name: patch.list)
        if let warnings = patch.warnings { edit.warnings = try Warnings.parse(warnings) }
        let (_, outcome) = try editItem(itemID: itemID, edit)
        return (try wireItem(itemID), outcome)
    }

    fileprivate mutating func snooze(
        _ itemID: Int,
        until: (Date) -> Date
    ) throws -> (Components.Schemas.Item, Outcome) {
        let (_, outcome) = try snoozeItem(itemID: itemID, until: until(clock.now()))
        return (try wireItem(itemID), outcome)
    }

    /// Sets `manual` to each due instant up to `target`'s, deciding there, in due order; returns where it stopped.
    fileprivate mutating func moveClock(
        _ manual: ManualWallClock,
        to target: (Date) -> Date,
        into commits: inout CommitChunks
    ) throws(APIFailure) -> Date {
        let goal = target(manual.now())
        guard goal <= InstantFormat.range.upperBound else {
            throw .badRequest(
                "invalid_body",
                "the clock cannot move past \(InstantFormat.format(InstantFormat.range.upperBound)), the latest instant "
                    + "nudge can say; move it less far"
            )
        }
        while let due = scheduler.nextDue, due <= goal {
            manual.set(max(due, manual.now()))
            commits.append(advance())
        }
        manual.set(goal)
        commits.append(advance())
        return goal
    }

    /// One operation of a batch; `manualClock` is nil only when the batch does not move it.
    fileprivate mutating func apply(
        _ step: ReminderService.BatchStep,
        manualClock: ManualWallClock?,
        into commits: inout CommitChunks
    ) throws -> Components.Schemas.BatchResult {
        switch step {
        case .add(let request):
            let (item, outcome) = try add(request)
            commits.append(outcome)
            return .init(op: .add, item: item)
        case .edit(let itemID, let patch):
            let (item, outcome) = try edit(itemID, patch)
            commits.append(outcome)
            return .init(op: .edit, item: item)
        case .snooze(let itemID, let until):
            let (item, outcome) = try snooze(itemID, until: until)
            commits.append(outcome)
            return .init(op: .snooze, item: item)
        case .remove(let itemID):
            commits.append(try removeItem(itemID: itemID))
            return .init(op: .remove)
        case .moveClock(let target):
            guard let manualClock else { preconditionFailure("runBatch refuses a clock move under the wall clock") }
            let now = try moveClock(manualClock, to: target, into: &commits)
            return .init(op: .clock, clock: .init(now: Instant(now), mode: .manual))
        }
    }

    /// An item as the API shows it: with its list, and its pending reminder's instant.
    fileprivate func wireItem(_ itemID: Int) throws(ModelError) -> Components.Schemas.Item {
        guard let item = library.item(id: itemID), let list = library.list(containing: itemID) else {
            throw ModelError.unknownItem(itemID)
        }
        return wire(item, in: list)
    }

    fileprivate func wire(_ item: ChecklistItem, in list: Checklist) -> Components.Schemas.Item {
        Components.Schemas.Item(item, list: list, pendingDue: scheduler.pendingReminder(for: item.itemID)?.due)
    }

    /// The list a request names by ID or by name; nil when it names none.
    fileprivate func listID(id: Int?, name: String?) throws(ModelError) -> Int? {
        if let id { return id }
        guard let name else { return nil }
        guard let list = library.list(named: name) else { throw ModelError.unknownList(named: name) }
        return list.listID
    }
}
