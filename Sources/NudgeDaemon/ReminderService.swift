import Foundation
import Logging
import NudgeCalendar
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
/// later turns, reads are answered between them, and changes wait for it, in order. A change is carried out (sinks,
/// events) and answered only once it is durable, in the order it was applied; the loop does not wait for that itself,
/// so changes that arrive during a write go to disk together in the next one (group commit). If a write fails, the book may be ahead of the disk: before the next input, the loop
/// asks the writer (`StoreWriter.takeFailure`) and reloads the book from what the store holds. Nothing is
/// acknowledged that is not on disk, and nothing is read that is not.
///
/// It speaks the core's types only: callers read the book (`read`) or change it (`write`) in the loop's turn, as
/// the API does (`API/`), the notification listener and the configuration reloader.
final class ReminderService: Service {
    /// Where the events decided go once durable, for the clients watching them.
    let events: EventHub
    let writer: StoreWriter
    private let sinks: [SinkQueue]
    let clock: any WallClock
    /// The zone database every book reads and evaluates repeat rules with, one for the daemon's life.
    let zones: ZoneRulesStore
    /// What a new book gets (after a failed write); a reload may change it.
    private let catchUpWindow: Mutex<TimeInterval>
    /// When the day's digest goes out, in seconds after midnight (`ReminderBook.digestTime`).
    private let digestTime: Int
    private let logger: Logger
    private let makeTimer: MakeTimer
    /// The linked lists' folders as read at start, applied before anything fires.
    private let foldersAtStart: [LinkedFolders.Reading]
    private let inputs: AsyncStream<Input>
    private let input: AsyncStream<Input>.Continuation
    /// Whether a wake-up waits in the stream already: one is enough, however often the timer wakes meanwhile.
    private let wakeUpQueued = Atomic<Bool>(false)

    /// Makes the timer, given what it calls when it wakes.
    typealias MakeTimer = @Sendable (_ onWake: @escaping @Sendable () -> Void) throws -> any ReminderTimer

    init(
        store: any DurableStore,
        clock: any WallClock,
        zones: ZoneRulesStore,
        catchUpWindow: TimeInterval,
        digestTime: Int = ChecklistItem.dayReminderTime,
        sinks: [any ReminderSink],
        events: EventHub,
        logger: Logger,
        foldersAtStart: [LinkedFolders.Reading] = [],
        timer makeTimer: @escaping MakeTimer = { try WallClockTimer(onWake: $0) }
    ) {
        writer = StoreWriter(store: store)
        self.events = events
        self.sinks = sinks.map { SinkQueue($0, logger: logger) }
        self.clock = clock
        self.zones = zones
        self.catchUpWindow = Mutex(catchUpWindow)
        self.digestTime = digestTime
        self.logger = logger
        self.makeTimer = makeTimer
        self.foldersAtStart = foldersAtStart
        (inputs, input) = AsyncStream.makeStream()
    }

    /// About the most events one turn of the loop decides (it ends once it has decided this many; the decision or
    /// change that crosses the bound completes): a clock move, a batch or a catch-up that decides more goes on in
    /// later turns, so requests that read (`/v1/health`) and a stop are never held up for long behind it.
    static let decisionsPerTurn = 1_000

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
        // Before the first request, which waits in the stream: a store that cannot record this stops nudged. The
        // linked folders first, so that a task done or removed there while nudged was down does not fire now.
        if !foldersAtStart.isEmpty {
            try await submit(Commit(outcome: state.book.apply(foldersAtStart)) { _ in }, &state).durable()
        }
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
                            // Failed or not: a failure is the writer's to record, and the next turn reloads.
                            await self.complete(commit, queued)
                            if paces { input.yield(.nextTurn) }
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

    /// A reload's new `--catch-up-window`, for reminders found late from now on.
    func setCatchUpWindow(_ window: TimeInterval) async throws {
        try await write { book in
            self.catchUpWindow.withLock { $0 = window }
            book.setCatchUpWindow(window)
            return ((), ReminderBook.Outcome())
        }
    }

    // MARK: Reading and writing the book

    /// Reads the book in the loop's turn, after every change applied before it; a change still waiting is not in it
    /// yet, and one under way (a long clock move) as far as it has gone.
    func read<Value: Sendable>(
        _ body: @escaping @Sendable (ReminderBook) throws -> Value
    ) async throws -> Value {
        try await perform(changes: false) { book in (.done(try body(book)), []) }
    }

    /// Applies `operation` to the book in the loop's turn, and answers once its changes are durable and carried
    /// out. A refused operation changes nothing and is answered at once.
    func write<Value: Sendable>(
        _ operation: @escaping @Sendable (inout ReminderBook) throws -> (Value, ReminderBook.Outcome)
    ) async throws -> Value {
        try await perform(changes: true) { book in
            let (value, outcome) = try operation(&book)
            return (.done(value), [outcome])
        }
    }

    /// `write` for an operation made of steps, each committed on its own, in order, and maybe of turns (a clock
    /// move, a batch): the answer comes once the last of them is durable and carried out (commits complete in the
    /// order they were submitted). Only its first turn may refuse it.
    func write<Value: Sendable>(inTurns operation: @escaping Staged<Value>) async throws -> Value {
        try await perform(changes: true, operation)
    }

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
                            return Turn(commits: steps.map { Commit(outcome: $0) { _ in } }, rest: request(rest))
                        case .done(let value):
                            guard let last = steps.last else {
                                continuation.resume(returning: value)
                                return Turn(commits: [])
                            }
                            return Turn(
                                commits: steps.dropLast().map { Commit(outcome: $0) { _ in } }
                                    + [Commit(outcome: last) { continuation.resume(with: $0.map { value }) }]
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

    // MARK: The loop

    /// Applies one input; what it returns is committed outside the loop, in order.
    private func take(_ next: Input, _ state: inout State) -> [Commit] {
        switch next {
        case .request(let request):
            // Decisions are made in time order: what fell due before the request came is decided before it, even
            // if the timer's wake-up waits behind it in the stream. Else an edit made just after a due instant would
            // replace a reminder (or warning) that never fired. If more fell due than a turn decides, a change waits
            // for the rest, as it waits behind one under way.
            var commits = reloadAfterFailure(&state) + (state.book.hasDecisionDue ? [advance(&state)] : [])
            if request.changes, state.underWay != nil || !state.waiting.isEmpty || state.book.hasDecisionDue {
                if state.stopping { request.refuse(.stopping) } else { state.waiting.append(request) }
            } else {
                commits += apply(request, &state)
            }
            return commits
        case .wakeUp:
            wakeUpQueued.store(false, ordering: .releasing)
            let restore = reloadAfterFailure(&state)
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
            var commits = reloadAfterFailure(&state)
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
        Commit(outcome: state.book.advance(limit: Self.decisionsPerTurn)) { [logger] result in
            if case .failure(let error) = result { logger.error("could not record fired reminders: \(error)") }
        }
    }

    /// If a write failed since the last input, what is in memory may be ahead of disk: start again from what is
    /// durable, and schedule its reminders as at start. (The writer refused every commit meanwhile.)
    private func reloadAfterFailure(_ state: inout State) -> [Commit] {
        guard let failure = writer.takeFailure() else { return [] }
        logger.error("saving failed (\(failure)); the last saved state is reloaded")
        // What it applied may be lost with the book; its answer must not say it was all saved.
        state.underWay?.refuse(.failedPartWay)
        state.underWay = nil
        // The old book goes first, so the new copy of the library is not made beside it and the store's.
        state.book = ReminderBook(library: ChecklistLibrary(), clock: clock, zones: zones)
        state.book = newBook()
        return [state.restore(limit: .max)]
    }

    /// Hands an applied operation's changes to the writer, behind those applied before it, and sets the timer.
    private func submit(_ commit: Commit, _ state: inout State) -> QueuedCommit {
        let queued = writer.submit(commit.outcome.changes, events: commit.outcome.events) { [self] in
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
        return ReminderBook(
            library: library,
            clock: clock,
            catchUpWindow: catchUpWindow.withLock { $0 },
            zones: zones,
            digestTime: digestTime
        )
    }

    /// Waits until a commit is durable (the writer carries it out then), and answers. A failure is recorded by the
    /// writer before the commit hears it, so the asker's next request is taken after a reload, against what is
    /// durable.
    private func complete(_ commit: Commit, _ queued: QueuedCommit) async {
        do {
            try await queued.durable()
            commit.answer(.success(()))
        } catch {
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
            case .deliverDigest(let digest):
                for sink in sinks { sink.enqueue(.deliverDigest(digest)) }
            case .withdraw(let itemID):
                for sink in sinks { sink.enqueue(.withdraw(itemID: itemID)) }
            case .armTimer, .disarmTimer:
                break  // Done by `State.setTimer` when the operation was applied.
            }
        }
        // What a change did to its items is the store's, kept for undo: sinks and watchers get the event without it.
        let reported = outcome.events.map { event in
            var event = event
            event.undo = nil
            return event
        }
        for event in reported {
            for sink in sinks { sink.enqueue(.observe(event)) }
            let about =
                if event.kind == .digest {
                    "digest of \(event.day?.iso ?? "?")"
                } else if event.itemID == 0 {
                    "\(event.kind.rawValue) \(event.itemIDs?.count ?? 0) items"
                } else {
                    "\(event.kind.rawValue) item \(event.itemID)"
                }
            logger.info(
                "\(about)",
                metadata: ["due": "\(event.due.formatted(.iso8601))", "event": "\(event.kind.rawValue)"]
            )
        }
        events.publish(reported)
    }
}
