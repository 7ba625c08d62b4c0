import Foundation
import HeapModule
import NudgeCalendar

/// The replacement rules as a pure state machine: at most one pending reminder per item ID, and an item is pending
/// iff `ChecklistItem.wantsReminder`: `shouldRemind && !checked && reminderInstant > now` (its snoozed instant, else
/// its due date), or an instant within the last second not handled yet, which the next `advance` fires. A pending
/// reminder carries its advance warnings still to come, and is queued at the soonest of them, then at its due instant:
/// one entry per item, so an edit replaces warnings and reminder together. While a fire awaits acknowledgement and the
/// item nags (`ChecklistItem.nextRepeat`), the entry is the next repeat if that comes first, holding the item's own
/// reminder until the repeat is decided.
///
/// Every input carries the time it happens at and returns the actions to take and the events to report; the
/// scheduler does no I/O, reads no clock and never sleeps. Whoever holds it arms a timer for the instant the last
/// `.armTimer` named, and calls `advance(to:)` when it fires or the wall clock changes.
public struct ReminderScheduler: Sendable {
    /// A delivery decided this long after its instant or later counts as late.
    public static let lateThreshold: TimeInterval = 1
    /// Reminders that fell due longer ago than this while nothing was watching are reported missed, not delivered.
    public static let defaultCatchUpWindow: TimeInterval = 24 * 60 * 60

    public var catchUpWindow: TimeInterval
    /// The zone repeat rules are evaluated in, unless a rule names its own.
    public let timeZone: TimeZone
    /// The zone database repeat rules are read and evaluated with.
    public let zones: ZoneRulesStore

    private var pending: [Int: PendingEntry] = [:]
    /// Due order. Replacing a reminder leaves its old entry behind; `sequence` tells the live entry from stale ones.
    private var queue = Heap<QueueEntry>()
    private var nextSequence: UInt64 = 0
    /// The holder's timer, as far as our outputs told it.
    private var timer = TimerState.disarmed

    private enum TimerState: Equatable, Sendable {
        case disarmed
        case armed(Date)
        /// It fired or the clock jumped: whatever it was, the next output says what it must be.
        case unknown
    }

    private struct PendingEntry: Sendable {
        var reminder: Reminder
        var sequence: UInt64
        /// When `reminder` is a repeat (`Nag`): the item's own reminder, due after it, which comes back once the repeat
        /// is decided, or at once if its instant came too (nudged asleep past both).
        var displaced: Displaced?
    }

    /// A reminder put aside by a repeat, boxed: every entry holds a pointer's worth, not a second reminder.
    private final class Displaced: Sendable {
        let reminder: Reminder
        init(_ reminder: Reminder) { self.reminder = reminder }
    }

    private struct QueueEntry: Comparable, Sendable {
        var due: Date
        var itemID: Int
        var sequence: UInt64

        static func < (a: QueueEntry, b: QueueEntry) -> Bool {
            (a.due, a.itemID, a.sequence) < (b.due, b.itemID, b.sequence)
        }
    }

    /// When the day's digest is next decided (`ReminderBook` decides what it brings): the timer wakes for it as
    /// for a reminder.
    public private(set) var digestInstant: Date?

    /// Parsed repeat rules by their expression: items that share a rule share one parse.
    private var rules: [String: RepeatRule] = [:]

    public init(
        catchUpWindow: TimeInterval = Self.defaultCatchUpWindow,
        timeZone: TimeZone = .current,
        zones: ZoneRulesStore = ZoneRulesStore()
    ) {
        self.catchUpWindow = catchUpWindow
        self.timeZone = timeZone
        self.zones = zones
    }

    // MARK: Reading

    public var pendingCount: Int { pending.count }

    /// The earliest pending instant, warning, reminder or digest; the timer is armed for it.
    public var nextDue: Date? {
        switch (queue.min?.due, digestInstant) {
        case (let due?, let digest?): min(due, digest)
        case (let due, let digest): due ?? digest
        }
    }

    public func pendingReminder(for itemID: Int) -> Reminder? { pending[itemID]?.reminder }

    /// Every pending reminder, soonest first.
    public var pendingReminders: [Reminder] {
        pendingPage(after: nil, limit: pending.count).reminders
    }

    /// A page of pending reminders, soonest first (then by item ID): up to `limit` after the one due at `after.due`
    /// for item `after.itemID`, and whether more follow. One pass over the pending reminders, keeping the `limit`
    /// soonest in a heap, so its memory is the page's, whatever the count.
    public func pendingPage(after: (due: Date, itemID: Int)?, limit: Int) -> (reminders: [Reminder], more: Bool) {
        struct Ordered: Comparable {
            var reminder: Reminder
            static func < (a: Ordered, b: Ordered) -> Bool {
                (a.reminder.due, a.reminder.itemID) < (b.reminder.due, b.reminder.itemID)
            }
            static func == (a: Ordered, b: Ordered) -> Bool { a.reminder.itemID == b.reminder.itemID }
        }
        var soonest = Heap<Ordered>()
        for entry in pending.values {
            let reminder = entry.reminder
            if let after, (reminder.due, reminder.itemID) <= (after.due, after.itemID) { continue }
            soonest.insert(Ordered(reminder: reminder))
            if soonest.count > limit + 1 { _ = soonest.popMax() }
        }
        var page: [Reminder] = []
        page.reserveCapacity(soonest.count)
        while let next = soonest.popMin() { page.append(next.reminder) }
        let more = page.count > limit
        return (Array(page.prefix(limit)), more)
    }

    // MARK: Inputs

    /// An item was added or edited (any field, including checked), or a decision about it recorded: its pending
    /// reminder, if any, is removed, and a new one is scheduled iff the item wants one at `now` or has a repeat to
    /// come.
    public mutating func itemChanged(_ item: ChecklistItem, listName: String, now: Date) -> SchedulerOutput {
        var output = SchedulerOutput()
        let previous = pending.removeValue(forKey: item.itemID)?.reminder
        // A warning on show says "due in 1h" of a reminder that no longer stands as it was: take it down.
        let withdrawsWarning = previous?.hasWarned == true
        // Warnings already past when the item changes do not fire.
        let own = item.wantsReminder(at: now) ? item.reminderInstant : nil
        if let (reminder, displaced) = pendingReminder(for: item, listName: listName, due: own, warningsAfter: now) {
            enqueue(reminder, displacing: displaced)
            output.events.append(
                ReminderEvent(
                    previous == nil ? .scheduled : .replaced,
                    of: reminder,
                    at: now,
                    previousDue: previous?.due
                )
            )
            if withdrawsWarning { output.actions.append(.withdraw(itemID: item.itemID)) }
        } else {
            if let previous { output.events.append(ReminderEvent(.cancelled, of: previous, at: now)) }
            if item.checked || !item.shouldRemind || withdrawsWarning {
                output.actions.append(.withdraw(itemID: item.itemID))
            }
        }
        rearm(&output)
        return output
    }

    /// The day's digest is next decided at `instant` (nil: never): the timer wakes for it.
    public mutating func setDigestInstant(_ instant: Date?) -> SchedulerOutput {
        var output = SchedulerOutput()
        digestInstant = instant
        rearm(&output)
        return output
    }

    /// Items were deleted (one, or every item of a deleted list): their pending reminders are cancelled and
    /// anything shown of them is withdrawn.
    public mutating func itemsRemoved(_ itemIDs: some Sequence<Int>, now: Date) -> SchedulerOutput {
        var output = SchedulerOutput()
        for itemID in itemIDs {
            if let previous = pending.removeValue(forKey: itemID)?.reminder {
                output.events.append(ReminderEvent(.cancelled, of: previous, at: now))
            }
            output.actions.append(.withdraw(itemID: itemID))
        }
        rearm(&output)
        return output
    }

    /// A list was renamed: pending reminders of its items carry the new name, without counting as a replacement.
    public mutating func relabel(itemIDs: some Sequence<Int>, listName: String) {
        for itemID in itemIDs {
            pending[itemID]?.reminder.listName = listName
            if var displaced = pending[itemID]?.displaced?.reminder {
                displaced.listName = listName
                pending[itemID]?.displaced = Displaced(displaced)
            }
        }
    }

    /// The time is now `now` (the timer fired, or the wall clock jumped): everything due fires, in due order and
    /// then by item ID. A reminder already older than the catch-up window is reported missed instead.
    ///
    /// At most `limit` events are decided (give or take the last decision's): what is left stays due (`nextDue` is
    /// at or before `now`) for the next call, so a backlog of a million is decided a part at a time.
    ///
    /// Calling this consumes the holder's timer, so the output always says how to re-arm it.
    public mutating func advance(to now: Date, limit: Int = .max) -> SchedulerOutput {
        timer = .unknown
        var output = SchedulerOutput()
        while output.events.count < limit, queue.min.map({ $0.due <= now }) == true, let head = queue.popMin() {
            guard let entry = pending[head.itemID], entry.sequence == head.sequence else { continue }
            pending[head.itemID] = nil
            var reminder = entry.reminder
            if reminder.repeating != nil {
                // The item's own reminder came too: it is decided instead, and its fire replaces the repeat.
                if let own = entry.displaced?.reminder, own.nextInstant <= now {
                    enqueue(own)
                } else {
                    renotify(reminder, now: now, into: &output)
                }
                continue
            }
            if reminder.due > now, !reminder.warnings.isEmpty {
                warn(&reminder, now: now, into: &output)
                enqueue(reminder)
                continue
            }
            // Occurrences of a recurring item that passed unwatched are one decision, about the latest of them
            // (like systemd's Persistent=true): never a burst.
            var coalesced: Int?
            if !reminder.isSnoozed, let rule = reminder.rule,
                let passed = rule.passed(from: reminder.due, upTo: now, in: timeZone),
                passed.count > 1
            {
                reminder.due = passed.latest
                coalesced = passed.count
            }
            let lateBy = now.timeIntervalSince(reminder.due)
            decide(.fired, reminder, now: now, lateBy: lateBy, coalesced: coalesced, into: &output)
        }
        rearm(&output)
        return output
    }

    /// Rebuilds the pending reminders from stored items after a start, then catches up: a reminder whose instant
    /// passed unhandled while nothing was watching fires once, late, within the catch-up window, and is reported
    /// missed beyond it; so does the latest warning that passed unhandled, if the due instant is still ahead, and the
    /// latest repeat of a fire awaiting acknowledgement. Items that want neither produce no events.
    public mutating func restore(
        _ items: some Collection<(item: ChecklistItem, listName: String)>,
        now: Date,
        limit: Int = .max
    ) -> SchedulerOutput {
        let ownReminder = { (item: ChecklistItem) in
            item.wantsReminder(at: now) || item.overdueInstant(at: now) != nil
        }
        let restores = { (item: ChecklistItem) in ownReminder(item) || item.nextRepeat != nil }
        // Sized first for the reminders to come, not for every item: at a million, tables grown by doubling hold
        // hundreds of megabytes twice for a moment, and tables sized for checked-off items too waste as much.
        let count = items.count { restores($0.item) }
        pending.reserveCapacity(pending.count + count)
        queue.reserveCapacity(queue.count + count)
        for (item, listName) in items where restores(item) {
            pending.removeValue(forKey: item.itemID)
            // A warning instant before the item was last edited was already past when it was set; one settled
            // (`warnedThrough`) was sent, missed or passed over. Only those after both can still be due.
            let own = ownReminder(item) ? item.reminderInstant : nil
            if let (reminder, displaced) = pendingReminder(
                for: item,
                listName: listName,
                due: own,
                warningsAfter: item.updatedAt
            ) {
                enqueue(reminder, displacing: displaced)
            }
        }
        return advance(to: now, limit: limit)
    }

    // MARK: Private

    /// The one reminder an item has pending: its own, due at `due` (nil: none), or the next repeat of its fire
    /// awaiting acknowledgement (`ChecklistItem.nextRepeat`) if that comes first, displacing its own until then. A
    /// repeat has no warnings.
    private mutating func pendingReminder(for item: ChecklistItem, listName: String, due: Date?, warningsAfter: Date)
        -> (Reminder, displaced: Reminder?)?
    {
        let own = due.map { reminder(for: item, listName: listName, due: $0, warningsAfter: warningsAfter) }
        guard let next = item.nextRepeat, let nag = item.nag, let firedAt = item.unacknowledgedSince,
            own.map({ next.instant < $0.nextInstant }) ?? true
        else { return own.map { ($0, nil) } }
        var repeating = reminder(for: item, listName: listName, due: next.instant, warningsAfter: .distantFuture)
        (repeating.rule, repeating.isSnoozed) = (nil, false)
        repeating.repeating = Reminder.Repeat(
            number: next.number,
            nag: nag,
            firedAt: firedAt,
            firedDue: item.lastFiredAt ?? firedAt
        )
        return (repeating, own)
    }

    /// A repeat's instant came: the reminder that fired is delivered again (`renotified`, about the due instant that
    /// fired, late from the repeat's instant), at high priority once the nag escalates. Repeats that passed unwatched
    /// (nudged down, the machine asleep) are one late repeat, the latest, never a burst, and never missed however late:
    /// the reminder still awaits someone. The last a nag allows is followed by `exhausted`.
    private func renotify(_ reminder: Reminder, now: Date, into output: inout SchedulerOutput) {
        guard let pending = reminder.repeating else { return }
        var reminder = reminder
        let latest = max(pending.number, pending.nag.latestRepeat(by: now, firedAt: pending.firedAt))
        let coalesced = latest - pending.number + 1
        let repeating = Reminder.Repeat(
            number: latest,
            nag: pending.nag,
            firedAt: pending.firedAt,
            firedDue: pending.firedDue
        )
        reminder.due = repeating.firedDue
        reminder.repeating = repeating
        if repeating.nag.escalates(latest) { reminder.priority = .high }
        let lateBy = now.timeIntervalSince(repeating.nag.instant(ofRepeat: latest, firedAt: repeating.firedAt))
        output.actions.append(
            .deliver(
                Delivery(reminder: reminder, firedAt: now, lateBy: lateBy, coalesced: coalesced > 1 ? coalesced : nil)
            )
        )
        var event = ReminderEvent(
            .renotified,
            of: reminder,
            at: now,
            lateBy: lateBy,
            coalesced: coalesced > 1 ? coalesced : nil
        )
        event.repeatNumber = latest
        output.events.append(event)
        if latest >= repeating.nag.times {
            var exhausted = ReminderEvent(.exhausted, of: reminder, at: now)
            exhausted.repeatNumber = latest
            output.events.append(exhausted)
        }
    }

    private mutating func reminder(for item: ChecklistItem, listName: String, due: Date, warningsAfter: Date)
        -> Reminder
    {
        Reminder(
            itemID: item.itemID,
            text: item.text,
            listName: listName,
            due: due,
            rule: rule(item.repeatRule),
            priority: item.priority,
            catchUp: item.catchUp,
            isSnoozed: item.snoozedUntil != nil,
            warnings: item.warningInstants(after: warningsAfter)
        )
    }

    /// The reminder's due instant is ahead and warnings reached `now`: the latest of them is sent (the earlier
    /// ones, found late with it, would only say less) and they are spent. A warning found later than the catch-up
    /// window allows is reported missed instead.
    private func warn(_ reminder: inout Reminder, now: Date, into output: inout SchedulerOutput) {
        let passed = reminder.warnings.prefix { $0 <= now }
        guard let instant = passed.last else { return }
        reminder.warnings.removeFirst(passed.count)
        reminder.hasWarned = true
        let lateBy = now.timeIntervalSince(instant)
        let lead = reminder.due.timeIntervalSince(instant)
        decide(.warned, reminder, now: now, lateBy: lateBy, warning: lead, into: &output)
    }

    /// A fire or a warning `lateBy` after its instant: delivered as `kind`, or reported missed when that is past the
    /// reminder's catch-up window, its own or ours.
    private func decide(
        _ kind: ReminderEvent.Kind,
        _ reminder: Reminder,
        now: Date,
        lateBy: TimeInterval,
        coalesced: Int? = nil,
        warning: TimeInterval? = nil,
        into output: inout SchedulerOutput
    ) {
        let window = reminder.catchUp?.window ?? catchUpWindow
        guard lateBy <= window, reminder.catchUp != .never || lateBy < window else {
            var missed = ReminderEvent(
                .missed,
                of: reminder,
                at: now,
                lateBy: lateBy,
                coalesced: coalesced,
                warning: warning
            )
            // Why: the window it was found outside of, the item's own or the daemon's.
            missed.catchUp = reminder.catchUp ?? .within(window)
            return output.events.append(missed)
        }
        let delivery = Delivery(
            reminder: reminder,
            firedAt: now,
            lateBy: lateBy,
            coalesced: coalesced,
            warning: warning
        )
        output.actions.append(.deliver(delivery))
        output.events.append(
            ReminderEvent(kind, of: reminder, at: now, lateBy: lateBy, coalesced: coalesced, warning: warning)
        )
    }

    /// The parsed rule; an expression the store holds was accepted when it was set, so it parses again (should a
    /// hand-edited file hold one that does not, the item is a one-shot reminder at its due date).
    private mutating func rule(_ expression: String?) -> RepeatRule? {
        guard let expression else { return nil }
        if let rule = rules[expression] { return rule }
        guard let rule = try? RepeatRule(expression, localZone: timeZone, zones: zones) else { return nil }
        // Bounded: distinct rules are few, but nothing stops a client from making every one different.
        if rules.count >= 10_000 { rules.removeAll(keepingCapacity: true) }
        rules[expression] = rule
        return rule
    }

    private mutating func enqueue(_ reminder: Reminder, displacing displaced: Reminder? = nil) {
        nextSequence += 1
        pending[reminder.itemID] = PendingEntry(
            reminder: reminder,
            sequence: nextSequence,
            displaced: displaced.map(Displaced.init)
        )
        queue.insert(QueueEntry(due: reminder.nextInstant, itemID: reminder.itemID, sequence: nextSequence))
    }

    /// Drops stale entries so that `queue.min` is live, and tells the holder if the timer must move.
    private mutating func rearm(_ output: inout SchedulerOutput) {
        if queue.count > 2 * pending.count + 64 {
            queue = Heap(queue.unordered.filter { pending[$0.itemID]?.sequence == $0.sequence })
        }
        while let head = queue.min, pending[head.itemID]?.sequence != head.sequence { _ = queue.popMin() }
        let wanted = nextDue.map { TimerState.armed($0) } ?? .disarmed
        guard wanted != timer else { return }
        timer = wanted
        output.actions.append(nextDue.map { .armTimer(at: $0) } ?? .disarmTimer)
    }
}
