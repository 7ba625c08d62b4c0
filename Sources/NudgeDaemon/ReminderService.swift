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
/// in arrival order, hands its changes to the writer in that order, and sets the timer as the scheduler decided. A
/// turn decides a bounded number of events (`decisionsPerTurn`): a longer clock move, batch or catch-up goes on in
/// later turns, reads are answered between them, and changes wait for it, in order. A change is carried out (sinks, events) and answered only once it is durable, in the order it was
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
        case request(Request)
        /// The timer's instant came, or the wall clock was set.
        case wakeUp
        /// The loop's own: what it left for a later turn goes on (`State.hasWorkLeft`).
        case nextTurn
        /// nudged begins to stop: a request under way or waiting is refused rather than gone on with.
        case stopping
        /// A commit computed on generation `appliedTo` failed; `done` is resumed once the book is marked stale.
        case writeFailed(appliedTo: Int, error: any Error, done: CheckedContinuation<Void, Never>)
    }

    /// About the most events one turn of the loop decides (it ends once it has decided this many; the decision or
    /// change that crosses the bound completes): a clock move, a batch or a catch-up that decides more goes on in
    /// later turns, so requests that read (`/v1/health`) and a stop are never held up for long behind it.
    static let decisionsPerTurn = 1_000

    /// A request: reads or changes the book in its turn, and returns what it did; or, if nudged stops first, is told
    /// why (`refuse`).
    private struct Request: Sendable {
        /// Whether it changes the book: a change waits while another is under way or decisions are still due, so
        /// changes apply in order, each after every decision due before it; a read does not wait.
        let changes: Bool
        let apply: @Sendable (inout State) -> Turn
        let refuse: @Sendable (APIFailure) -> Void
    }

    /// What one turn of a request did: its commits, in order, and the rest of it if it goes on in a later turn.
    private struct Turn: Sendable {
        var commits: [Commit]
        var rest: Request? = nil
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
        /// The rest of a request applied part way (it decides more than `decisionsPerTurn` events); it goes on
        /// before any other change.
        var underWay: Request?
        /// Changes that came while one was under way or decisions were due, in arrival order.
        var waiting: [Request] = []
        /// Whether a `nextTurn` waits in the stream already.
        var nextTurnQueued = false
        /// nudged is stopping: no request goes on past its first turn, and no change waits.
        var stopping = false

        /// A request under way, changes waiting, or decisions due that the last turn left: a `nextTurn` goes on.
        var hasWorkLeft: Bool { underWay != nil || !waiting.isEmpty || book.hasDecisionDue }

        func commit(
            _ outcome: ReminderBook.Outcome,
            answer: @escaping @Sendable (Result<Void, any Error>) -> Void
        ) -> Commit {
            Commit(outcome: outcome, generation: generation, answer: answer)
        }

        /// Schedules what the book holds, fires late or reports missed what fell due unhandled, at most `limit`
        /// events of it: at start a turn's worth (the rest goes on in later turns), and after a reload all of it, so
        /// that nothing is left due to wake the loop again. A commit like any other: if it fails, the next input
        /// reloads again, so a failing disk costs one attempt per input, never a loop.
        mutating func restore(limit: Int) -> Commit {
            commit(book.start(limit: limit)) { _ in }
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
        try await submit(state.restore(limit: Self.decisionsPerTurn), &state).durable()
        // A catch-up longer than a turn goes on by itself: under the manual clock no timer would wake for it.
        if state.hasWorkLeft {
            state.nextTurnQueued = true
            input.yield(.nextTurn)
        }

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await next in inputs {
                    let commits = take(next, &state)
                    // Work left for a later turn goes on once this turn's last commit is on disk: the loop never runs
                    // ahead of the writer by more than a turn, so a long move holds a turn's worth of commits, not
                    // all of them, and a stop waits for one turn's write.
                    let goesOn = state.hasWorkLeft && !state.nextTurnQueued
                    if goesOn { state.nextTurnQueued = true }
                    for (index, commit) in commits.enumerated() {
                        let queued = submit(commit, &state)
                        let paces = goesOn && index == commits.count - 1
                        group.addTask { [input] in
                            // After a failed write, the next input from outside goes on (`writeFailed`).
                            if await self.complete(commit, queued), paces { input.yield(.nextTurn) }
                        }
                    }
                    if goesOn && commits.isEmpty {
                        // The stream answers at once while it holds inputs: without this, the loop would keep its
                        // thread from turn to turn, and the tasks bringing requests in would wait.
                        await Task.yield()
                        input.yield(.nextTurn)
                    }
                }
            }
        } onGracefulShutdown: { [input] in
            input.finish()
        }
        state.underWay?.refuse(.stoppedPartWay)
        for request in state.waiting { request.refuse(.stopping) }
        await withTaskGroup(of: Void.self) { group in
            for sink in sinks { group.addTask { await sink.finish(within: Self.sinkDrainTimeout) } }
        }
    }

    /// Answers what is still in the stream once the loop has ended, so no request waits for ever.
    private func refuseInputsLeft() async {
        input.finish()
        for await next in inputs {
            switch next {
            case .request(let request): request.refuse(.stopping)
            case .wakeUp, .nextTurn, .stopping: break
            case .writeFailed(_, _, let done): done.resume()
            }
        }
    }

    /// nudged begins to stop: requests applied over several turns end with the turn under way (and are answered
    /// so), so that the server, which waits for their answers, is not held up by them.
    func beginStopping() {
        input.yield(.stopping)
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
                // A well-formed request about a reminder that is not there: 404, as for an item that is not.
                guard let due = afterDue ?? book.scheduler.pendingReminder(for: after)?.due else {
                    throw APIFailure(
                        status: .notFound,
                        code: "no_pending_reminder",
                        message: "item \(after) has no pending reminder to start the page after; pass afterDue too, as "
                            + "the previous page's nextDue gave it"
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
        let icon = try IconName(requested: request.iconName?.rawValue) ?? .noIcon
        return try await perform { book in
            let (list, outcome) = try book.addList(name: request.name, iconName: icon)
            return (book.library.wireList(list), outcome)
        }
    }

    func updateList(_ listID: Int, _ patch: Components.Schemas.ListPatch) async throws -> Components.Schemas.List {
        let icon = try IconName(requested: patch.iconName?.rawValue)
        return try await perform { book in
            // Not the default already: `false` says what is so. The default: some list must be, so which instead?
            if patch.isDefault == false, book.library.defaultList.listID == listID {
                throw APIFailure(
                    status: .conflict,
                    code: "default_list",
                    message:
                        "list \(listID) is the default list, and one list always is; to stop it being the default, "
                        + "make another list the default"
                )
            }
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
        return try await perform(changes: true) { book in
            let goal = try ReminderBook.goal(target, from: manual)
            return book.moveClock(manual, to: goal)
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

    typealias BatchAnswer = Result<[Components.Schemas.BatchResult], BatchRefusal>

    /// How far a batch has gone: the operation at `index` is next (a clock move under way, to `goal`, if set), and
    /// those before it answered `results`.
    struct BatchPosition: Sendable {
        var index = 0
        var results: [Components.Schemas.BatchResult] = []
        var goal: Date?
    }

    /// The operation of a batch that was refused, at `index`; `applied`: what those before it answered, once durable
    /// (none, when the batch was refused as it was read).
    struct BatchRefusal: Error {
        let index: Int
        let error: any Error
        var applied: [Components.Schemas.BatchResult] = []
    }

    /// Applies a batch's operations in order, no other change between them, their changes saved in commits of about
    /// `CommitChunks.size` changes and events; answers once all are durable and carried out. A clock move that
    /// decides more than `decisionsPerTurn` events goes on in later turns, where reads are answered meanwhile. The
    /// first operation refused stops the batch: those before it are kept, and the answer, once they are durable, is a
    /// `BatchRefusal`.
    func runBatch(_ steps: [BatchStep]) async throws -> [Components.Schemas.BatchResult] {
        let manual = try batchClock(steps)
        return try await perform(changes: true) { book in
            book.runBatch(steps, from: BatchPosition(), manualClock: manual)
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

    /// What a turn of an operation came to: its answer, or the rest of it, for a later turn.
    enum Progress<Value: Sendable>: Sendable {
        case done(Value)
        case goesOn(Staged<Value>)
    }

    /// A turn of an operation on the book: how far it came, and its outcomes, to commit in order.
    typealias Staged<Value: Sendable> =
        @Sendable (inout ReminderBook) throws -> (Progress<Value>, [ReminderBook.Outcome])

    /// Reads the book in the loop's turn, after every change applied before it; a change still waiting is not in it
    /// yet, and one under way (a long clock move) as far as it has gone.
    private func read<Value: Sendable>(
        _ body: @escaping @Sendable (ReminderBook) throws -> Value
    ) async throws -> Value {
        try await perform(changes: false) { book in (.done(try body(book)), []) }
    }

    /// Applies `operation` to the book in the loop's turn, and answers once its changes are durable and carried
    /// out. A refused operation changes nothing and is answered at once.
    private func perform<Value: Sendable>(
        _ operation: @escaping @Sendable (inout ReminderBook) throws -> (Value, ReminderBook.Outcome)
    ) async throws -> Value {
        try await perform(changes: true) { book in
            let (value, outcome) = try operation(&book)
            return (.done(value), [outcome])
        }
    }

    /// `perform` for an operation made of steps, each committed on its own, in order, and maybe of turns (a clock
    /// move, a batch): the answer comes once the last of them is durable and carried out (commits complete in the
    /// order they were submitted). Only its first turn may refuse it.
    private func perform<Value: Sendable>(
        changes: Bool,
        _ operation: @escaping Staged<Value>
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            @Sendable func request(_ operation: @escaping Staged<Value>) -> Request {
                Request(changes: changes) { state in
                    do {
                        let (progress, outcomes) = try operation(&state.book)
                        let steps = outcomes.filter { !$0.isEmpty }
                        switch progress {
                        case .goesOn(let rest):
                            return Turn(commits: steps.map { state.commit($0) { _ in } }, rest: request(rest))
                        case .done(let value):
                            guard let last = steps.last else {
                                continuation.resume(returning: value)
                                return Turn(commits: [])
                            }
                            return Turn(
                                commits: steps.dropLast().map { state.commit($0) { _ in } }
                                    + [state.commit(last) { continuation.resume(with: $0.map { value }) }]
                            )
                        }
                    } catch {
                        continuation.resume(throwing: error)
                        return Turn(commits: [])
                    }
                } refuse: {
                    continuation.resume(throwing: $0)
                }
            }
            let first = request(operation)
            if case .terminated = input.yield(.request(first)) { first.refuse(.stopping) }
        }
    }

    /// Applies one input; what it returns is committed outside the loop, in order.
    private func take(_ next: Input, _ state: inout State) -> [Commit] {
        switch next {
        case .request(let request):
            // Decisions are made in time order: what fell due before the request came is decided before it, even
            // if the timer's wake-up waits behind it in the stream. Else an edit made just after a due instant would
            // replace a reminder (or warning) that never fired. If more fell due than a turn decides, a change waits
            // for the rest, as it waits behind one under way.
            var commits = reloadIfStale(&state) + (state.book.hasDecisionDue ? [advance(&state)] : [])
            if request.changes, state.underWay != nil || !state.waiting.isEmpty || state.book.hasDecisionDue {
                if state.stopping { request.refuse(.stopping) } else { state.waiting.append(request) }
            } else {
                commits += apply(request, &state)
            }
            return commits
        case .wakeUp:
            wakeUpQueued.store(false, ordering: .releasing)
            let restore = reloadIfStale(&state)
            return restore + [advance(&state)]
        case .stopping:
            state.stopping = true
            state.underWay?.refuse(.stoppedPartWay)
            state.underWay = nil
            for request in state.waiting { request.refuse(.stopping) }
            state.waiting = []
            return []
        case .nextTurn:
            state.nextTurnQueued = false
            var commits = reloadIfStale(&state)
            if let underWay = state.underWay {
                state.underWay = nil
                commits += apply(underWay, &state)
            } else if state.book.hasDecisionDue {
                commits.append(advance(&state))
            } else {
                // In arrival order, each after what fell due before it, until one goes on in later turns or the
                // turn has decided its share.
                var decided = 0
                while state.underWay == nil, !state.book.hasDecisionDue, decided < Self.decisionsPerTurn,
                    !state.waiting.isEmpty
                {
                    let applied = apply(state.waiting.removeFirst(), &state)
                    decided += applied.reduce(0) { $0 + $1.outcome.events.count }
                    commits += applied
                }
            }
            return commits
        case .writeFailed(let appliedTo, let error, let done):
            defer { done.resume() }
            // The turn that paced on this write will not put its `nextTurn` in the stream: the next input will.
            state.nextTurnQueued = false
            // Of the commits computed on one generation, only the first to fail counts: the others failed with it.
            if appliedTo == state.generation && !state.stale {
                logger.error("saving failed (\(error)); the last saved state is reloaded before the next request")
                state.stale = true
            }
            return []
        }
    }

    /// Applies a request's turn; what is left of it goes on in a later one. (Only a change can leave a rest, and a
    /// change is applied only when none is under way; a read may come in between.)
    private func apply(_ request: Request, _ state: inout State) -> [Commit] {
        let turn = request.apply(&state)
        if let rest = turn.rest {
            if state.stopping { rest.refuse(.stoppedPartWay) } else { state.underWay = rest }
        }
        return turn.commits
    }

    /// Fires what is due now, as a commit of its own: a turn's worth of it.
    private func advance(_ state: inout State) -> Commit {
        state.commit(state.book.advance(limit: Self.decisionsPerTurn)) { [logger] result in
            if case .failure(let error) = result { logger.error("could not record fired reminders: \(error)") }
        }
    }

    /// A write failed: what is in memory may be ahead of disk, so start again from what is durable, and schedule
    /// its reminders as at start. The writer refuses commits until it hears the new generation, and commits from
    /// older generations after.
    private func reloadIfStale(_ state: inout State) -> [Commit] {
        guard state.stale else { return [] }
        state.stale = false
        // What it applied may be lost with the book; its answer must not say it was all saved.
        state.underWay?.refuse(.failedPartWay)
        state.underWay = nil
        state.generation += 1
        // The old book goes first, so the new copy of the library is not made beside it and the store's.
        state.book = ReminderBook(library: ChecklistLibrary(), clock: clock)
        state.book = newBook()
        writer.resynchronized(generation: state.generation)
        return [state.restore(limit: .max)]
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
    /// Whether it became durable.
    @discardableResult
    private func complete(_ commit: Commit, _ queued: QueuedCommit) async -> Bool {
        do {
            try await queued.durable()
            commit.answer(.success(()))
            return true
        } catch {
            await withCheckedContinuation { done in
                let failed = Input.writeFailed(appliedTo: commit.generation, error: error, done: done)
                if case .terminated = input.yield(failed) { done.resume() }
            }
            commit.answer(.failure(error))
            return false
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
        let listID = try namedList(id: request.listID, name: request.list) ?? library.defaultList.listID
        let (item, outcome) = try addItem(try request.item(listID: listID))
        return (try wireItem(item.itemID), outcome)
    }

    fileprivate mutating func edit(_ itemID: Int, _ patch: ItemPatch) throws -> (Components.Schemas.Item, Outcome) {
        guard library.item(id: itemID) != nil else { throw ModelError.unknownItem(itemID) }
        var edit = patch.edit
        edit.listID = try namedList(id: edit.listID, name: patch.list)
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

    /// Where a clock move goes: `target` from where the clock is now, if nudge can say that instant.
    fileprivate static func goal(_ target: (Date) -> Date, from manual: ManualWallClock) throws(ModelError) -> Date {
        let goal = target(manual.now())
        guard goal <= InstantFormat.range.upperBound else { throw .clockPastLatestInstant }
        return goal
    }

    /// A turn of a clock move to `goal`: its outcomes, and the rest of the move if there is more than a turn's worth.
    fileprivate mutating func moveClock(_ manual: ManualWallClock, to goal: Date) -> (
        ReminderService.Progress<Date>, [Outcome]
    ) {
        var commits = CommitChunks()
        var budget = ReminderService.decisionsPerTurn
        guard moveClock(manual, toward: goal, budget: &budget, into: &commits) else {
            return (.goesOn { book in book.moveClock(manual, to: goal) }, commits.outcomes)
        }
        return (.done(goal), commits.outcomes)
    }

    /// Sets `manual` to each due instant up to `goal`, deciding there, in due order, until `budget` events are
    /// decided; whether it reached `goal`.
    private mutating func moveClock(
        _ manual: ManualWallClock,
        toward goal: Date,
        budget: inout Int,
        into commits: inout CommitChunks
    ) -> Bool {
        while let due = scheduler.nextDue, due <= goal {
            guard budget > 0 else { return false }
            manual.set(max(due, manual.now()))
            let outcome = advance(limit: budget)
            budget -= outcome.events.count
            commits.append(outcome)
        }
        manual.set(goal)
        commits.append(advance())
        return true
    }

    /// A turn of a batch from `position`: the operations applied, up to the end, the first refused, or a clock move
    /// with more than the turn's budget to decide, which goes on in the next turn.
    fileprivate mutating func runBatch(
        _ steps: [ReminderService.BatchStep],
        from position: ReminderService.BatchPosition,
        manualClock: ManualWallClock?
    ) -> (ReminderService.Progress<ReminderService.BatchAnswer>, [Outcome]) {
        var commits = CommitChunks()
        var budget = ReminderService.decisionsPerTurn
        var results = position.results
        for index in position.index..<steps.count {
            // The goal of a clock move under way at `index`; a later step's move has its own.
            let resumedGoal = index == position.index ? position.goal : nil
            /// The batch goes on in the next turn, at `index`.
            func goesOn(goal: Date?) -> (ReminderService.Progress<ReminderService.BatchAnswer>, [Outcome]) {
                let rest = ReminderService.BatchPosition(index: index, results: results, goal: goal)
                return (
                    .goesOn { book in book.runBatch(steps, from: rest, manualClock: manualClock) }, commits.outcomes
                )
            }
            // As before each request: what fell due meanwhile is decided before the next step, a turn's worth at a
            // time.
            if hasDecisionDue {
                let outcome = advance(limit: max(budget, 0))
                budget -= outcome.events.count
                commits.append(outcome)
                if hasDecisionDue { return goesOn(goal: resumedGoal) }
            }
            do {
                switch steps[index] {
                case .moveClock(let target):
                    guard let manualClock else {
                        preconditionFailure("runBatch refuses a clock move under the wall clock")
                    }
                    let goal = try resumedGoal ?? Self.goal(target, from: manualClock)
                    guard moveClock(manualClock, toward: goal, budget: &budget, into: &commits) else {
                        return goesOn(goal: goal)
                    }
                    results.append(.init(op: .clock, clock: .init(now: Instant(goal), mode: .manual)))
                case let step:
                    results.append(try apply(step, into: &commits))
                }
            } catch {
                let refusal = ReminderService.BatchRefusal(index: index, error: error, applied: results)
                return (.done(.failure(refusal)), commits.outcomes)
            }
        }
        return (.done(.success(results)), commits.outcomes)
    }

    /// One operation of a batch but a clock move.
    private mutating func apply(
        _ step: ReminderService.BatchStep,
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
        case .moveClock:
            preconditionFailure("runBatch moves the clock itself, a turn at a time")
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

    /// The list a body names (`listID` or `list`), if it names one, which must be there. One that is not is a
    /// conflict with the lists as they are (409 `unknown_list`): 404 says that what the path names is not there.
    fileprivate func namedList(id: Int?, name: String?) throws(APIFailure) -> Int? {
        let unknown: ModelError
        do throws(ModelError) {
            let listID = try listID(id: id, name: name)
            guard let listID, library.list(id: listID) == nil else { return listID }
            unknown = .unknownList(listID)
        } catch {
            unknown = error
        }
        throw APIFailure(status: .conflict, code: unknown.code.rawValue, message: unknown.description)
    }

    /// The list a request names by ID or by name; nil when it names none. (An ID is not checked here.)
    fileprivate func listID(id: Int?, name: String?) throws(ModelError) -> Int? {
        if let id { return id }
        guard let name else { return nil }
        guard let list = library.list(named: name) else { throw ModelError.unknownList(named: name) }
        return list.listID
    }
}
