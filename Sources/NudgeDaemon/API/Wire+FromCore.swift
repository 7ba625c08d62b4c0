import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore
import NudgeStore

// Core → wire: how the model and the scheduler's decisions are shown in answers and on the event stream. A field
// added to the document's answers is filled in here.

extension Components.Schemas.Item {
    init(_ item: ChecklistItem, list: Checklist, pendingDue: Date?) {
        self.init(
            itemID: item.itemID,
            listID: list.listID,
            listName: list.name,
            text: item.text,
            checked: item.checked,
            completedAt: item.completedAt.map(Instant.init),
            // An item due on a day says the day; the instant it reminds at is its pending reminder's.
            dueDate: item.dueDay == nil ? item.dueDate.map(Instant.init) : nil,
            dueDay: item.dueDay,
            shouldRemind: item.shouldRemind,
            createdAt: Instant(item.createdAt),
            updatedAt: Instant(item.updatedAt),
            lastFiredAt: item.lastFiredAt.map(Instant.init),
            _repeat: item.repeatRule,
            repeatAfter: item.repeatAfter.map(DurationText.iso8601),
            priority: Components.Schemas.Priority(item.priority),
            catchUp: item.catchUp?.description,
            nag: item.nag?.description,
            completedThrough: item.completedThrough.map(Instant.init),
            snoozedUntil: item.snoozedUntil.map(Instant.init),
            warnings: item.warnings.isEmpty ? nil : item.warnings.map(DurationText.iso8601),
            warnedThrough: item.warnedThrough.map(Instant.init),
            unacknowledgedSince: item.unacknowledgedSince.map(Instant.init),
            pendingDue: pendingDue.map(Instant.init),
            uid: item.calendarUID,
            file: item.fileName
        )
    }
}

extension Components.Schemas.Digest {
    init(_ digest: Digest) {
        func entries(_ entries: [Digest.Entry]) -> [Components.Schemas.DigestEntry] {
            entries.map {
                .init(itemID: $0.itemID, listID: $0.listID, listName: $0.listName, text: $0.text, dueDay: $0.dueDay)
            }
        }
        self.init(
            day: digest.day,
            count: digest.count,
            summary: digest.summary,
            overdueCount: digest.overdueCount,
            dueTodayCount: digest.dueTodayCount,
            overdue: entries(digest.overdue),
            dueToday: entries(digest.dueToday)
        )
    }
}

extension ReminderBook {
    /// A list as the API shows it: its counts, and for a linked list its folder as last read.
    func wireList(_ list: Checklist) -> Components.Schemas.List {
        Components.Schemas.List(
            listID: list.listID,
            name: list.name,
            // The two enums are the same list of names, the document's and the store's.
            iconName: Components.Schemas.IconName(rawValue: list.iconName.rawValue) ?? .noIcon,
            itemCount: list.items.count,
            uncheckedCount: list.uncheckedCount,
            status: list.statusText,
            isDefault: list.listID == library.defaultList.listID,
            digestTime: list.digestTime.map(TimeOfDay.text),
            link: list.link.map { Components.Schemas.ListLink($0, state: folderStates[list.listID] ?? .unread) }
        )
    }
}

extension Components.Schemas.ListLink {
    init(_ link: NudgeCore.ListLink, state: FolderState) {
        var (skipped, limited, otherFiles, reason): ([SkippedFile], [SkippedFile], Int, String?) = ([], [], 0, nil)
        let shown: StatePayload
        switch state {
        case .unread: shown = .unread
        case .unavailable(let why): (shown, reason) = (.unavailable, why)
        case .read(let files, let less, let others): (shown, skipped, limited, otherFiles) = (.ok, files, less, others)
        }
        self.init(
            folder: link.folder,
            remindDue: link.remindsAtDue,
            state: shown,
            reason: reason,
            skipped: skipped.map { .init(file: $0.fileName, reason: $0.reason) },
            limited: limited.map { .init(file: $0.fileName, reason: $0.reason) },
            otherFiles: otherFiles
        )
    }
}

extension Components.Schemas.Reminder {
    init(_ reminder: Reminder) {
        self.init(
            itemID: reminder.itemID,
            text: reminder.text,
            listName: reminder.listName,
            due: Instant(reminder.due),
            warnings: reminder.warnings.isEmpty ? nil : reminder.warnings.map(Instant.init)
        )
    }
}

extension Components.Schemas.Event {
    init(_ event: ReminderEvent) {
        self.init(
            id: event.id,
            kind: Components.Schemas.EventKind(event.kind),
            itemID: event.itemID,
            due: Instant(event.due),
            at: Instant(event.at),
            text: event.text,
            listName: event.listName,
            previousDue: event.previousDue.map(Instant.init),
            lateBy: event.lateBy,
            coalesced: event.coalesced,
            priority: event.priority.map(Components.Schemas.Priority.init),
            catchUp: event.catchUp?.description,
            warning: event.warning.map(DurationText.iso8601),
            source: event.source.map { Components.Schemas.Event.SourcePayload(rawValue: $0.rawValue) ?? .notification },
            itemIDs: event.itemIDs,
            day: event.day,
            undid: event.undid,
            repeatNumber: event.repeatNumber
        )
    }
}

extension Components.Schemas.EventPage {
    init(_ page: EventPage) {
        self.init(
            events: page.events.map(Components.Schemas.Event.init),
            next: page.next,
            dropped: page.dropped > 0 ? page.dropped : nil,
            latest: page.latest
        )
    }
}

extension Components.Schemas.Priority {
    init(_ priority: Priority) {
        switch priority {
        case .low: self = .low
        case .normal: self = .normal
        case .high: self = .high
        }
    }
}

extension Components.Schemas.EventKind {
    init(_ kind: ReminderEvent.Kind) {
        switch kind {
        case .scheduled: self = .scheduled
        case .replaced: self = .replaced
        case .cancelled: self = .cancelled
        case .fired: self = .fired
        case .missed: self = .missed
        case .snoozed: self = .snoozed
        case .completed: self = .completed
        case .warned: self = .warned
        case .dismissed: self = .dismissed
        case .acknowledged: self = .acknowledged
        case .renotified: self = .renotified
        case .exhausted: self = .exhausted
        case .expired: self = .expired
        case .digest: self = .digest
        case .changed: self = .changed
        case .undone: self = .undone
        }
    }
}

extension Components.Schemas.ErrorBody {
    init(_ failure: APIFailure) {
        self.init(
            error: .init(
                code: failure.code.description,
                message: failure.message,
                operation: failure.operation,
                applied: failure.applied
            )
        )
    }
}

extension Components.Schemas.ImportReport {
    init(_ results: [CalendarImportResult]) {
        func count(_ outcome: CalendarImportResult.Outcome) -> Int { results.count { $0.outcome == outcome } }
        self.init(
            created: count(.created),
            updated: count(.updated),
            unchanged: count(.unchanged),
            skipped: count(.skipped),
            results: results.map { result in
                Components.Schemas.ImportResult(
                    line: result.line,
                    uid: result.uid,
                    summary: result.summary,
                    outcome: Components.Schemas.ImportResult.OutcomePayload(rawValue: result.outcome.rawValue)!,
                    itemID: result.itemID,
                    notes: result.notes
                )
            }
        )
    }
}
