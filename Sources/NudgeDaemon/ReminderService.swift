import Foundation
import Logging
import NudgeAPI
import NudgeCore
import NudgeSinks
import NudgeStore

/// The heart of nudged: owns the checklists and their reminders, and turns each request or timer wake-up into a
/// durable change, then into deliveries, withdrawals, events and a re-armed timer.
///
/// Every operation is applied to the in-memory book first, in actor order, and answered only once its changes are
/// durable. If a write fails, the book is reloaded from what the store holds, so memory never runs ahead of disk.
actor ReminderService {
    private var book: ReminderBook
    /// Counts reloads of `book` after failed writes: an operation applied to an older one is void.
    private var generation = 0
    private let writer: StoreWriter
    private let sinks: [SinkQueue]
    let events: EventHub
    private let logger: Logger
    private let makeTimer: MakeTimer
    private var timer: (any ReminderTimer)?
    /// The timer's wake-ups (its instant came, or the wall clock was set), for `SchedulerService`'s loop; waiting
    /// wake-ups coalesce into one.
    nonisolated let wakeUps: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation

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
        book = ReminderBook(library: store.library, clock: clock, catchUpWindow: catchUpWindow)
        writer = StoreWriter(store: store)
        self.makeTimer = makeTimer
        self.sinks = sinks.map { SinkQueue($0, logger: logger) }
        events = EventHub()
        self.logger = logger
        (wakeUps, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Schedules what the store holds, fires late or reports missed what fell due while nudged was down, and starts
    /// the timer.
    func start() async throws {
        timer = try makeTimer { [wakeUp] in wakeUp.yield() }
        try await restore()
    }

    /// Schedules what the store holds, as `start` and a reload after a failed write do.
    private func restore() async throws {
        let outcome = book.start()
        setTimer(outcome.actions)
        try await writer.commit(outcome.changes, generation: generation)
        carryOut(outcome)
    }

    /// Stops the timer and gives the sinks a moment to finish what they were handed; every acknowledged change is
    /// already durable.
    func stop() async {
        timer?.stop()
        timer = nil
        wakeUp.finish()
        events.finish()
        await withTaskGroup(of: Void.self) { group in
            for sink in sinks { group.addTask { await sink.finish(within: Self.sinkDrainTimeout) } }
        }
    }

    /// How long a stop waits for sinks still delivering (a notify-send under way); well inside systemd's
    /// expectations of a clean stop.
    static let sinkDrainTimeout: Duration = .seconds(1)

    /// The timer fired or the wall clock was set.
    func advance() async {
        do {
            try await performChange { book in book.advance() }
        } catch {
            logger.error("could not record fired reminders: \(error)")
        }
    }

    // MARK: Reading

    var library: ChecklistLibrary { book.library }
    var pending: [Reminder] { book.scheduler.pendingReminders }

    func health(socket: String) -> Components.Schemas.Health {
        Components.Schemas.Health(
            status: "ok",
            pid: getpid(),
            store: writer.store.path,
            socket: socket,
            items: book.library.itemCount,
            pending: book.scheduler.pendingCount,
            nextDue: book.scheduler.nextDue.map(Instant.init),
            watchers: events.subscriberCount
        )
    }

    func item(_ itemID: Int) throws(ModelError) -> Components.Schemas.Item {
        guard let item = book.library.item(id: itemID), let list = book.library.list(containing: itemID) else {
            throw ModelError.unknownItem(itemID)
        }
        return wire(item, in: list)
    }

    /// An item as the API shows it: with its list, and its pending reminder's instant.
    private func wire(_ item: ChecklistItem, in list: Checklist) -> Components.Schemas.Item {
        Components.Schemas.Item(item, list: list, pendingDue: book.scheduler.pendingReminder(for: item.itemID)?.due)
    }

    /// Items of one list or all lists; unchecked ones only unless `includeChecked`.
    func items(listName: String?, includeChecked: Bool) throws(ModelError) -> [Components.Schemas.Item] {
        var lists = book.library.lists
        if let listName {
            guard let list = book.library.list(named: listName) else { throw ModelError.unknownList(named: listName) }
            lists = [list]
        }
        return lists.flatMap { list in
            list.items.filter { includeChecked || !$0.checked }.map {
                wire($0, in: list)
            }
        }
    }

    func lists() -> [Components.Schemas.List] { book.library.lists.map(Components.Schemas.List.init) }

    func list(_ listID: Int) throws(ModelError) -> Components.Schemas.List {
        guard let list = book.library.list(id: listID) else { throw ModelError.unknownList(listID) }
        return Components.Schemas.List(list)
    }

    // MARK: Changing

    func addItem(_ request: Components.Schemas.NewItem) async throws -> Components.Schemas.Item {
        let listID = try resolveList(id: request.listID, name: request.list) ?? book.library.lists[0].listID
        let (dueDate, shouldRemind) = request.reminder
        let item = try await perform { (book) throws(ModelError) in
            try book.addItem(text: request.text, listID: listID, dueDate: dueDate, shouldRemind: shouldRemind)
        }
        return try self.item(item.itemID)
    }

    func editItem(_ itemID: Int, _ patch: ItemPatch) async throws -> Components.Schemas.Item {
        var edit = patch.edit
        edit.listID = try resolveList(id: edit.listID, name: patch.list)
        _ = try await perform { (book) throws(ModelError) in try book.editItem(itemID: itemID, edit) }
        return try item(itemID)
    }

    func removeItem(_ itemID: Int) async throws {
        try await performChange { (book) throws(ModelError) in try book.removeItem(itemID: itemID) }
    }

    func addList(_ request: Components.Schemas.NewList) async throws -> Components.Schemas.List {
        let icon = try IconName(requested: request.iconName) ?? .noIcon
        let list = try await perform { (book) throws(ModelError) in try book.addList(name: request.name, iconName: icon)
        }
        return try self.list(list.listID)
    }

    func updateList(_ listID: Int, _ patch: Components.Schemas.ListPatch) async throws -> Components.Schemas.List {
        let icon = try IconName(requested: patch.iconName)
        try await performChange { (book) throws(ModelError) in
            try book.updateList(listID: listID, name: patch.name, iconName: icon)
        }
        return try list(listID)
    }

    func removeList(_ listID: Int) async throws {
        try await performChange { (book) throws(ModelError) in try book.removeList(listID: listID) }
    }

    // MARK: Private

    private func resolveList(id: Int?, name: String?) throws(ModelError) -> Int? {
        if let id { return id }
        guard let name else { return nil }
        guard let list = book.library.list(named: name) else { throw ModelError.unknownList(named: name) }
        return list.listID
    }

    /// `perform` for operations that produce no value.
    private func performChange(
        _ operation: (inout ReminderBook) throws(ModelError) -> ReminderBook.Outcome
    ) async throws {
        _ = try await perform { (book) throws(ModelError) in ((), try operation(&book)) }
    }

    /// Applies an operation in memory, waits until its changes are durable, then carries out what it decided.
    private func perform<Value>(
        _ operation: (inout ReminderBook) throws(ModelError) -> (Value, ReminderBook.Outcome)
    ) async throws -> Value {
        let (value, outcome) = try operation(&book)
        let appliedTo = generation
        // Now, in the order the scheduler decided, rather than after the commit: operations may finish their
        // commits in another order than they were applied.
        setTimer(outcome.actions)
        do {
            try await writer.commit(outcome.changes, generation: appliedTo)
        } catch {
            await resynchronize(after: error, appliedTo: appliedTo)
            throw error
        }
        carryOut(outcome)
        return value
    }

    /// A write failed: what is in memory may be ahead of disk, so start again from what is durable. Of the
    /// operations applied to one generation of the book, only the first to get here reloads (the others' changes
    /// failed with it); the writer refuses commits until then, and commits from older generations after.
    private func resynchronize(after error: any Error, appliedTo: Int) async {
        guard appliedTo == generation else { return }
        logger.error("saving failed (\(error)); reloading the last saved state")
        generation += 1
        book = ReminderBook(
            library: writer.store.library,
            clock: book.clock,
            catchUpWindow: book.scheduler.catchUpWindow
        )
        writer.resynchronized(generation: generation)
        // The new book has nothing pending yet: schedule the reminders of what is durable, as at start.
        do {
            try await restore()
        } catch {
            // The disk still fails. Reminders that fell due meanwhile were not delivered; their firing is not
            // durable, so the next start delivers them. Let later changes try the disk again.
            logger.error("could not record reminders that fell due while reloading: \(error)")
            writer.resynchronized(generation: generation)
        }
    }

    /// Sets the timer as the scheduler decided: its actions are the only say in when nudged wakes.
    private func setTimer(_ actions: [SchedulerAction]) {
        for action in actions {
            switch action {
            case .armTimer(let instant): timer?.arm(at: instant)
            case .disarmTimer: timer?.arm(at: nil)
            case .deliver, .withdraw: break
            }
        }
    }

    /// Hands deliveries, withdrawals and events to every sink's queue, in the order the scheduler decided them.
    /// Never waits for a sink.
    private func carryOut(_ outcome: ReminderBook.Outcome) {
        for action in outcome.actions {
            switch action {
            case .deliver(let delivery):
                for sink in sinks { sink.enqueue(.deliver(delivery)) }
            case .withdraw(let itemID):
                for sink in sinks { sink.enqueue(.withdraw(itemID: itemID)) }
            case .armTimer, .disarmTimer:
                break  // Done by `setTimer` when the operation was applied.
            }
        }
        for event in outcome.events {
            for sink in sinks { sink.enqueue(.observe(event)) }
        }
        for event in outcome.events {
            logger.info(
                "\(event.kind.rawValue) item \(event.itemID)",
                metadata: ["due": "\(event.due.formatted(.iso8601))", "event": "\(event.kind.rawValue)"]
            )
        }
        events.publish(outcome.events)
    }
}
