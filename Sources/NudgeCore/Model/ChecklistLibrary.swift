import Foundation
import NudgeCalendar

/// Every checklist and the ID counters, as one value: what the store persists in one atomic write.
///
/// IDs are allocated monotonically and never reused. `nextItemID` lives beside the items (the seed kept it in
/// UserDefaults, apart from the data, so a crash between the two writes could hand an ID out twice), and applying
/// any change that carries an ID moves the counter past it.
public struct ChecklistLibrary: Sendable, Equatable {
    /// The name of the list a new store starts with, the default until the user chooses another.
    public static let firstListName = "Inbox"

    public private(set) var nextItemID: Int
    public private(set) var nextListID: Int
    /// The ID the next scheduler decision (`ReminderEvent`) gets. Events are not in the library, but their IDs are
    /// allocated like item IDs: the counter is stored with the items, so no ID is handed out twice.
    public private(set) var nextEventID: Int
    /// Kept sorted with `Checklist.isOrderedBefore`.
    public private(set) var lists: [Checklist]
    /// The list the user chose as the default (`nudge list default NAME`); nil until they choose, or once it is
    /// removed. `defaultList` is what to use.
    public private(set) var chosenDefaultListID: Int?
    /// A UUID made with the store, never changed: it makes the UIDs of exported tasks unique across stores
    /// (`CalendarInterchange.uid(of:storeID:)`).
    public let storeID: String

    /// Where each item sits, so edits and fires are O(1). Rebuilt lazily after a change that moves positions.
    private var locations: [Int: ItemLocation] = [:]
    /// How many items a day's digest may list (open, reminding, due on a day: `mayBeListedInDigest`), kept with
    /// `locations`: while there are none, nudged does not wake for a digest.
    public private(set) var digestItemCount = 0

    private struct ItemLocation: Sendable, Equatable {
        var listIndex: Int
        var itemIndex: Int
    }

    /// A new library as on first run: one list, "Inbox", the default.
    public init() {
        nextItemID = 1
        nextListID = 2
        nextEventID = 1
        lists = [Checklist(listID: 1, name: Self.firstListName, iconName: .inbox)]
        chosenDefaultListID = 1
        storeID = Self.newStoreID()
        rebuildLocations()
    }

    /// A library as a store holds it, checked and repaired as when decoded: every ID in range and used once (a
    /// `DecodingError` naming the field otherwise), counters moved past every ID, lists sorted.
    /// A `defaultListID` naming no list is dropped, as if the list had been removed. Without a `storeID` (an older
    /// store), a new one is made.
    public init(
        nextItemID: Int,
        nextListID: Int,
        nextEventID: Int = 1,
        defaultListID: Int? = nil,
        storeID: String? = nil,
        lists: [Checklist]
    ) throws {
        self.nextItemID = nextItemID
        self.nextListID = nextListID
        self.nextEventID = nextEventID
        self.lists = lists
        self.chosenDefaultListID = lists.contains { $0.listID == defaultListID } ? defaultListID : nil
        self.storeID = storeID ?? Self.newStoreID()
        try Self.validateIDs(nextItemID: nextItemID, nextListID: nextListID, nextEventID: nextEventID, lists: lists)
        // A file edited by hand, or written by an older build, must still never lead to a reused ID.
        let highestItemID = lists.lazy.flatMap(\.items).map(\.itemID).max() ?? 0
        self.nextItemID = max(nextItemID, highestItemID + 1)
        self.nextListID = max(nextListID, (lists.map(\.listID).max() ?? 0) + 1)
        self.lists.sort(by: Checklist.isOrderedBefore)
        rebuildLocations()
    }

    /// IDs above 2^53 are refused: normal use never gets near it, a JSON client would round such an ID, and
    /// `id + 1` must never overflow however the file was edited.
    public static let maximumID = 1 << 53

    /// Every ID must be in range and used once: items are indexed by ID, so a duplicate would leave one item
    /// unreachable and its reminder unreplaceable.
    private static func validateIDs(nextItemID: Int, nextListID: Int, nextEventID: Int, lists: [Checklist]) throws {
        let range = 1...maximumID
        func refuse(_ path: [PathKey], _ problem: String) -> DecodingError {
            .dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: problem))
        }
        func outOfRange(_ id: Int) -> String { "\(id) is outside the allowed range 1...\(maximumID)" }
        if !range.contains(nextItemID) { throw refuse([.key("nextItemID")], outOfRange(nextItemID)) }
        if !range.contains(nextListID) { throw refuse([.key("nextListID")], outOfRange(nextListID)) }
        if !range.contains(nextEventID) { throw refuse([.key("nextEventID")], outOfRange(nextEventID)) }
        var listPlaces: [Int: Int] = [:]
        var itemPlaces: [Int: (list: Int, item: Int)] = [:]
        for (listIndex, list) in lists.enumerated() {
            let listPath: [PathKey] = [.key("lists"), .index(listIndex), .key("listID")]
            if !range.contains(list.listID) { throw refuse(listPath, outOfRange(list.listID)) }
            if let other = listPlaces[list.listID] {
                throw refuse(listPath, "list ID \(list.listID) is used twice, here and at lists[\(other)]")
            }
            listPlaces[list.listID] = listIndex
            for (itemIndex, item) in list.items.enumerated() {
                let itemPath: [PathKey] = [
                    .key("lists"), .index(listIndex), .key("items"), .index(itemIndex), .key("itemID"),
                ]
                if !range.contains(item.itemID) { throw refuse(itemPath, outOfRange(item.itemID)) }
                if let other = itemPlaces[item.itemID] {
                    throw refuse(
                        itemPath,
                        "item ID \(item.itemID) is used twice, here and at lists[\(other.list)].items[\(other.item)]"
                    )
                }
                itemPlaces[item.itemID] = (listIndex, itemIndex)
            }
        }
    }

    /// A coding path element, so decoding errors name the exact field.
    private enum PathKey: CodingKey {
        case key(String)
        case index(Int)

        var stringValue: String {
            switch self {
            case .key(let name): name
            case .index(let index): "Index \(index)"
            }
        }
        var intValue: Int? { if case .index(let index) = self { index } else { nil } }
        init?(stringValue: String) { self = .key(stringValue) }
        init?(intValue: Int) { self = .index(intValue) }
    }

    public static func == (a: ChecklistLibrary, b: ChecklistLibrary) -> Bool {
        a.nextItemID == b.nextItemID && a.nextListID == b.nextListID
            && a.nextEventID == b.nextEventID && a.chosenDefaultListID == b.chosenDefaultListID
            && a.storeID == b.storeID
            && a.lists == b.lists
    }

    private static func newStoreID() -> String { UUID().uuidString.lowercased() }

    // MARK: Memory

    /// How many items an array read or copied with `count` items reserves room for. A list that outgrows its array
    /// moves whole to one twice its size, and the old one is freed only after: at a million items, 184 MB held
    /// twice, in nudged's copy and in the store's. Room for a quarter more puts that off until the list has grown by
    /// a quarter; room never written costs address space, not memory.
    public static func roomToGrow(forCount count: Int) -> Int {
        count < 1_024 ? count : count + count / 4
    }

    /// Makes this library's item arrays its own now, each with `roomToGrow`, rather than at its first change, when
    /// each array would be copied with no room (copy-on-write), and moved again at its first add.
    public mutating func makeRoomToGrow() {
        for index in lists.indices {
            lists[index].items.reserveCapacity(Self.roomToGrow(forCount: lists[index].items.count))
        }
    }

    // MARK: Reading

    public var itemCount: Int { locations.count }

    /// Where an item goes when no list is named: the one the user chose, else the oldest list (the lowest ID), so
    /// the default never moves when lists are added or renamed. A library always has a list.
    public var defaultList: Checklist {
        chosenDefaultListID.flatMap(list(id:)) ?? lists.min { $0.listID < $1.listID }!
    }

    public func list(id listID: Int) -> Checklist? {
        lists.first { $0.listID == listID }
    }

    /// The list with this name, ignoring case.
    public func list(named name: String) -> Checklist? {
        lists.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    public func item(id itemID: Int) -> ChecklistItem? {
        guard let location = locations[itemID] else { return nil }
        return lists[location.listIndex].items[location.itemIndex]
    }

    /// The list holding an item.
    public func list(containing itemID: Int) -> Checklist? {
        locations[itemID].map { lists[$0.listIndex] }
    }

    /// A page of items in ID order: up to `limit` with IDs above `after` that `matches` accepts (given the item and
    /// its list), with their lists, and whether more may follow. Its cost grows with the page and the IDs it steps
    /// over, not with the store; when the IDs above `after` are sparse (a hand-edited store), it sorts the candidates
    /// instead of stepping.
    public func itemPage(
        after: Int,
        limit: Int,
        where matches: (ChecklistItem, Checklist) -> Bool
    ) -> (items: [(item: ChecklistItem, list: Checklist)], more: Bool) {
        func entry(_ itemID: Int) -> (item: ChecklistItem, list: Checklist)? {
            guard let location = locations[itemID] else { return nil }
            let list = lists[location.listIndex]
            let item = list.items[location.itemIndex]
            return matches(item, list) ? (item, list) : nil
        }
        var page: [(item: ChecklistItem, list: Checklist)] = []
        // `after` comes from a client: no ID is at or above `nextItemID`, and `after + 1` must not overflow.
        guard after < nextItemID - 1 else { return ([], false) }
        let first = max(after, 0) + 1
        if nextItemID - first <= 4 * (itemCount + limit) {
            var itemID = first
            while itemID < nextItemID, page.count <= limit {
                if let found = entry(itemID) { page.append(found) }
                itemID += 1
            }
        } else {
            for itemID in locations.keys.filter({ $0 >= first }).sorted() {
                guard page.count <= limit else { break }
                if let found = entry(itemID) { page.append(found) }
            }
        }
        let more = page.count > limit
        return (Array(page.prefix(limit)), more)
    }

    // MARK: Making changes (validated; nothing is applied until `apply`)

    /// A change that adds a list with the next list ID.
    public func makeAddList(name: String, iconName: IconName = .noIcon) throws(ModelError) -> ChecklistChange {
        let name = try validListName(name, renaming: nil)
        return .addList(Checklist(listID: nextListID, name: name, iconName: iconName))
    }

    public func makeUpdateList(listID: Int, name: String? = nil, iconName: IconName? = nil) throws(ModelError)
        -> ChecklistChange
    {
        guard let list = list(id: listID) else { throw .unknownList(listID) }
        let newName = try name.map { name throws(ModelError) in try validListName(name, renaming: listID) }
        return .updateList(listID: listID, name: newName ?? list.name, iconName: iconName ?? list.iconName)
    }

    public func makeSetDefaultList(listID: Int) throws(ModelError) -> ChecklistChange {
        guard let list = list(id: listID) else { throw .unknownList(listID) }
        if list.link != nil { throw .defaultListLinked(list.name) }
        return .setDefaultList(listID: listID)
    }

    public func makeRemoveList(listID: Int) throws(ModelError) -> ChecklistChange {
        guard let list = list(id: listID) else { throw .unknownList(listID) }
        guard lists.count > 1 else { throw .lastList(list.name) }
        return .removeList(listID: listID)
    }

    /// A change that keeps the list in `link`'s folder from now on, or with nil no longer. A list is linked while it
    /// has no items (its items are then the folder's), and a folder to one list at a time.
    public func makeSetLink(listID: Int, link: ListLink?) throws(ModelError) -> ChecklistChange {
        guard let list = list(id: listID) else { throw .unknownList(listID) }
        guard let link else { return .setLink(listID: listID, link: nil) }
        guard link.folder.hasPrefix("/") else { throw .folderNotAbsolute(link.folder) }
        if list.link == nil, !list.items.isEmpty { throw .listNotEmpty(list.name, count: list.items.count) }
        if listID == defaultList.listID { throw .defaultListLinked(list.name) }
        if let other = lists.first(where: { $0.listID != listID && $0.link?.folder == link.folder }) {
            throw .folderLinkedTwice(link.folder, to: other.name)
        }
        return .setLink(listID: listID, link: link)
    }

    /// A change that adds an item with the next item ID. With a repeat rule, the due date is the rule's first
    /// occurrence at or after `dueDate` or the start of `dueDay` (or after `now`).
    public func makeAddItem(_ new: NewItem, now: Date, timeZone: TimeZone = .current, zones: ZoneRulesStore)
        throws(ModelError)
        -> ChecklistChange
    {
        guard list(id: new.listID) != nil else { throw .unknownList(new.listID) }
        if let dueDate = new.dueDate, let dueDay = new.dueDay { throw .dueTwice(dueDate, dueDay) }
        if let rule = new.repeatRule, let length = new.repeatAfter { throw .repeatTwice(rule, after: length) }
        var item = ChecklistItem(
            itemID: nextItemID,
            text: try validText(new.text),
            dueDate: new.dueDate,
            shouldRemind: new.shouldRemind,
            createdAt: now,
            repeatAfter: try new.repeatAfter.map { length throws(ModelError) in try RepeatAfter.validated(length) },
            priority: new.priority,
            catchUp: new.catchUp,
            warnings: try Warnings.normalized(new.warnings),
            nag: try new.nag.map { nag throws(ModelError) in try nag.validated() },
            calendarUID: new.calendarUID,
            fileName: new.fileName
        )
        if let repeatRule = new.repeatRule {
            (item.repeatRule, item.dueDate) = try Self.startSeries(
                repeatRule,
                from: new.dueDate ?? new.dueDay?.start(in: timeZone),
                now: now,
                in: timeZone,
                zones: zones
            )
        } else if let dueDay = new.dueDay {
            item.setDueDay(dueDay, in: timeZone)
        }
        return .putItem(item, listID: new.listID)
    }

    /// A change that edits an item; `updatedAt` becomes `now` even when no field changes, because every edit
    /// replaces the item's reminder.
    ///
    /// On a recurring item: a new rule or due date restarts the series at its first occurrence at or after the
    /// due date (or after `now`); clearing the rule or the due date ends it; checking it off completes one
    /// occurrence (`completingOccurrence`) and leaves it open. On one that repeats after completion, checking it off
    /// leaves it open and due again that long after (`RepeatAfter.completing`).
    public func makeEditItem(
        itemID: Int,
        _ edit: ItemEdit,
        now: Date,
        timeZone: TimeZone = .current,
        zones: ZoneRulesStore
    ) throws(ModelError) -> ChecklistChange {
        guard var item = item(id: itemID), let currentList = list(containing: itemID) else {
            throw .unknownItem(itemID)
        }
        let wasChecked = item.checked
        if let dueDate = edit.dueDate, let dueDay = edit.dueDay { throw .dueTwice(dueDate, dueDay) }
        if let rule = edit.repeatRule, let length = edit.repeatAfter { throw .repeatTwice(rule, after: length) }
        if let listID = edit.listID, list(id: listID) == nil { throw .unknownList(listID) }
        if let text = edit.text { item.text = try validText(text) }
        if let checked = edit.checked { item.checked = checked }
        if edit.clearsDueDate {
            (item.dueDate, item.dueDay) = (nil, nil)
        } else if let dueDate = edit.dueDate {
            (item.dueDate, item.dueDay) = (dueDate, nil)
        } else if let dueDay = edit.dueDay {
            item.setDueDay(dueDay, in: timeZone)
        }
        let newDue = edit.dueDate != nil || edit.dueDay != nil
        if let shouldRemind = edit.shouldRemind { item.shouldRemind = shouldRemind }
        if let priority = edit.priority { item.priority = priority }
        // A new due date or rule says when to be reminded: it ends a snooze. So do checking off and switching
        // reminding off, and a snoozed instant already past is spent: left behind, it would hide the due date.
        if newDue || edit.clearsDueDate || edit.repeatRule != nil || edit.clearsRepeat || item.checked
            || !item.shouldRemind || (item.snoozedUntil.map { $0 <= now } ?? false)
        {
            item.snoozedUntil = nil
        }
        if edit.clearsCatchUp { item.catchUp = nil } else if let catchUp = edit.catchUp { item.catchUp = catchUp }
        if let warnings = edit.warnings { item.warnings = try Warnings.normalized(warnings) }
        if edit.clearsNag { item.nag = nil } else if let nag = edit.nag { item.nag = try nag.validated() }
        // An item repeats one way: a repeat after completion takes the place of a rule, and a rule of it.
        if let length = edit.repeatAfter {
            item.repeatAfter = try RepeatAfter.validated(length)
        } else if edit.clearsRepeat || edit.repeatRule != nil {
            // The round it last completed is no occurrence of a rule.
            if item.repeatAfter != nil { item.completedThrough = nil }
            item.repeatAfter = nil
        }
        // A rule set with the due date removed is a rule alone: the series starts at its next occurrence. An item
        // that repeats after completion keeps repeating without a due date (the next check-off sets one).
        if edit.clearsRepeat || edit.repeatAfter != nil || (edit.clearsDueDate && edit.repeatRule == nil) {
            if item.repeatRule != nil || item.repeatAfter == nil { item.completedThrough = nil }
            item.repeatRule = nil
        } else if let rule = edit.repeatRule ?? (newDue ? item.repeatRule : nil) {
            // A series is due at its occurrences: a day given with it is where the series starts.
            (item.repeatRule, item.dueDate) = try Self.startSeries(
                rule,
                from: edit.dueDate ?? edit.dueDay?.start(in: timeZone),
                anchor: item.dueDate,
                now: now,
                in: timeZone,
                zones: zones
            )
            item.dueDay = nil
        }
        if edit.checked == true, let rule = item.repeatRule, item.dueDate != nil {
            item = try Self.completingOccurrence(of: item, rule: rule, in: timeZone, zones: zones)
        } else if item.checked, !wasChecked, let length = item.repeatAfter {
            item = RepeatAfter.completing(item, length: length, at: edit.completedAt ?? now, in: timeZone)
        }
        Self.catchUpSeries(&item, now: now, in: timeZone, zones: zones)
        // Every edit replaces the reminder, and acknowledges one that fired.
        item.acknowledge()
        if item.checked, let completedAt = edit.completedAt {
            item.completedAt = completedAt
        } else {
            item.settleCompletion(wasChecked: wasChecked, at: now)
        }
        item.updatedAt = now
        return .putItem(item, listID: edit.listID ?? currentList.listID)
    }

    /// Checks off the occurrence of a recurring item due at `due` (the one a notification showed), and any before it;
    /// nil when that is done already. The series goes on from its first occurrence after `due`.
    public func makeCompletingOccurrence(
        itemID: Int,
        through due: Date,
        now: Date,
        timeZone: TimeZone = .current,
        zones: ZoneRulesStore
    )
        throws(ModelError) -> ChecklistChange?
    {
        guard var item = item(id: itemID), let list = list(containing: itemID) else { throw .unknownItem(itemID) }
        guard let expression = item.repeatRule, !item.checked, due > (item.completedThrough ?? .distantPast) else {
            return nil
        }
        item.completedThrough = due
        if let pending = item.dueDate, pending <= due {
            item.snoozedUntil = nil
            if let next = try RepeatRule(expression, localZone: timeZone, zones: zones).next(after: due, in: timeZone) {
                item.dueDate = next
            } else {
                item.checked = true
            }
        }
        item.settleCompletion(wasChecked: false, at: now)
        item.acknowledge()
        item.updatedAt = now
        return .putItem(item, listID: list.listID)
    }

    /// Records that the reminder for `due` was handled at `now` (`fired`: delivered, and awaiting acknowledgement;
    /// else missed), without counting as an edit. A recurring item moves on to its first occurrence after both, if it
    /// has one.
    public func makeMarkHandled(
        itemID: Int,
        due: Date,
        fired: Bool,
        now: Date,
        timeZone: TimeZone = .current,
        zones: ZoneRulesStore
    ) throws(ModelError) -> ChecklistChange {
        guard var item = item(id: itemID), let list = list(containing: itemID) else { throw .unknownItem(itemID) }
        item.lastFiredAt = due
        // One shown replaces what an earlier fire awaited; one never shown awaits nobody, and is later than that fire.
        if fired { item.awaitAcknowledgement(since: now) } else { item.acknowledge() }
        item.snoozedUntil = nil
        // The warnings this reminder passed over are settled too: the next one starts with those still ahead, at a
        // restart as now.
        if !item.warnings.isEmpty { item.warnedThrough = max(item.warnedThrough ?? now, now) }
        // An occurrence still ahead of a snoozed fire stays the next one. Otherwise the series goes on after the
        // fire and after now: a snoozed fire found late stands for the occurrences it was late past (a series whose
        // due date fell behind the clock would never fire again). A rule that no longer parses (a store edited by
        // hand, or moved to a zone without the abbreviation it names) leaves a one-shot reminder.
        if let expression = item.repeatRule, item.dueDate.map({ $0 <= due }) ?? true,
            let rule = try? RepeatRule(expression, localZone: timeZone, zones: zones),
            let next = rule.next(after: max(due, now), in: timeZone)
        {
            item.dueDate = next
        }
        return .putItem(item, listID: list.listID)
    }

    /// Records that repeat `number` of the item's fire awaiting acknowledgement was decided (`renotified`), without
    /// counting as an edit: a restart does not repeat it again.
    public func makeMarkRepeated(itemID: Int, number: Int) throws(ModelError) -> ChecklistChange {
        guard var item = item(id: itemID), let list = list(containing: itemID) else { throw .unknownItem(itemID) }
        item.repeatCount = number
        return .putItem(item, listID: list.listID)
    }

    /// Records that the advance warning at `instant` was handled (sent, or found too late and missed), and so every
    /// one before it, without counting as an edit: a restart does not send them again.
    public func makeMarkWarned(itemID: Int, instant: Date) throws(ModelError) -> ChecklistChange {
        guard var item = item(id: itemID), let list = list(containing: itemID) else { throw .unknownItem(itemID) }
        item.warnedThrough = instant
        return .putItem(item, listID: list.listID)
    }

    /// A change that snoozes an item's reminder to `until`: it fires then, whether a reminder was pending or had
    /// already fired, and the due date stays as it is. Reminding is switched on.
    public func makeSnooze(itemID: Int, until: Date, now: Date) throws(ModelError) -> ChecklistChange {
        guard var item = item(id: itemID), let list = list(containing: itemID) else { throw .unknownItem(itemID) }
        guard !item.checked else { throw .itemChecked(itemID) }
        guard until > now else { throw .snoozeNotAhead(until, now: now) }
        guard until <= InstantFormat.range.upperBound else { throw .snoozePastLatestInstant }
        item.snoozedUntil = until
        item.shouldRemind = true
        item.acknowledge()
        item.updatedAt = now
        return .putItem(item, listID: list.listID)
    }

    /// A change that acknowledges the item's fired reminder (`nudge ack`), without counting as an edit; nil when none
    /// awaits acknowledgement.
    public func makeAcknowledge(itemID: Int) throws(ModelError) -> ChecklistChange? {
        guard var item = item(id: itemID), let list = list(containing: itemID) else { throw .unknownItem(itemID) }
        guard item.unacknowledgedSince != nil else { return nil }
        item.acknowledge()
        return .putItem(item, listID: list.listID)
    }

    public func makeRemoveItem(itemID: Int) throws(ModelError) -> ChecklistChange {
        guard item(id: itemID) != nil else { throw .unknownItem(itemID) }
        return .removeItem(itemID: itemID)
    }

    // MARK: Applying

    /// Applies a change. Deterministic, so the store and the service, applying the same changes, hold equal values.
    public mutating func apply(_ change: ChecklistChange) throws(ModelError) {
        switch change {
        case .addList(let list):
            if self.list(id: list.listID) != nil { throw .duplicateListID(list.listID) }
            lists.append(list)
            nextListID = max(nextListID, list.listID + 1)
            nextItemID = max(nextItemID, (list.items.map(\.itemID).max() ?? 0) + 1)
            sortAndReindex()
        case .updateList(let listID, let name, let iconName):
            guard let index = lists.firstIndex(where: { $0.listID == listID }) else { throw .unknownList(listID) }
            lists[index].name = name
            lists[index].iconName = iconName
            sortAndReindex()
        case .removeList(let listID):
            guard let index = lists.firstIndex(where: { $0.listID == listID }) else { throw .unknownList(listID) }
            lists.remove(at: index)
            if chosenDefaultListID == listID { chosenDefaultListID = nil }
            rebuildLocations()
        case .setDefaultList(let listID):
            guard list(id: listID) != nil else { throw .unknownList(listID) }
            chosenDefaultListID = listID
        case .setDigestTime(let listID, let digestTime):
            guard let index = lists.firstIndex(where: { $0.listID == listID }) else { throw .unknownList(listID) }
            lists[index].digestTime = digestTime
        case .setLink(let listID, let link):
            guard let index = lists.firstIndex(where: { $0.listID == listID }) else { throw .unknownList(listID) }
            lists[index].link = link
        case .markDigestSent(let listID, let day):
            guard let index = lists.firstIndex(where: { $0.listID == listID }) else { throw .unknownList(listID) }
            lists[index].digestSentOn = day
        case .putItem(let item, let listID):
            guard let listIndex = lists.firstIndex(where: { $0.listID == listID }) else {
                throw .unknownList(listID)
            }
            nextItemID = max(nextItemID, item.itemID + 1)
            if let location = locations[item.itemID], location.listIndex == listIndex {
                let before = lists[listIndex].items[location.itemIndex]
                lists[listIndex].items[location.itemIndex] = item
                digestItemCount += (item.mayBeListedInDigest ? 1 : 0) - (before.mayBeListedInDigest ? 1 : 0)
                return
            }
            if locations[item.itemID] != nil { removeItemFromItsList(item.itemID) }
            if item.mayBeListedInDigest { digestItemCount += 1 }
            // A full array grows by a quarter (`roomToGrow`), not to twice its size as `append` would: a folder of
            // ten thousand tasks linked at once would leave room for six thousand more, in nudged's copy and the
            // store's.
            let count = lists[listIndex].items.count
            if count >= 1_024, count == lists[listIndex].items.capacity {
                lists[listIndex].items.reserveCapacity(Self.roomToGrow(forCount: count))
            }
            lists[listIndex].items.append(item)
            locations[item.itemID] = ItemLocation(listIndex: listIndex, itemIndex: lists[listIndex].items.count - 1)
        case .removeItem(let itemID):
            guard locations[itemID] != nil else { throw .unknownItem(itemID) }
            removeItemFromItsList(itemID)
        }
    }

    /// Moves the ID counters up to at least these values, never down: a change log records the counters after each
    /// batch, so an ID handed out once is never handed out again, whatever the batch removed.
    public mutating func raiseCounters(nextItemID: Int, nextListID: Int, nextEventID: Int) {
        self.nextItemID = max(self.nextItemID, min(nextItemID, Self.maximumID))
        self.nextListID = max(self.nextListID, min(nextListID, Self.maximumID))
        self.nextEventID = max(self.nextEventID, min(nextEventID, Self.maximumID))
    }

    /// Gives each event the next event ID, in order.
    public mutating func allocateIDs(for events: inout [ReminderEvent]) {
        for index in events.indices {
            events[index].id = nextEventID
            nextEventID += 1
        }
    }

    // MARK: Private

    /// A recurring item whose due date fell behind (it was not reminding, so nothing moved it on) is due at its next
    /// occurrence again; else switching reminding on would schedule nothing, ever.
    static func catchUpSeries(_ item: inout ChecklistItem, now: Date, in zone: TimeZone, zones: ZoneRulesStore) {
        if let expression = item.repeatRule, let due = item.dueDate, due <= now, !item.checked,
            let rule = try? RepeatRule(expression, localZone: zone, zones: zones),
            let next = rule.next(after: now, in: zone)
        {
            item.dueDate = next
        }
    }

    /// A series' rule in normalized form, and its first occurrence at or after `start` but after `now`. A
    /// recurrence given without its DTSTART is counted from `start`, else from `anchor` (the due date an edited item
    /// has), else from `now` to the whole minute.
    static func startSeries(
        _ text: String,
        from start: Date?,
        anchor: Date? = nil,
        now: Date,
        in zone: TimeZone,
        zones: ZoneRulesStore
    ) throws(ModelError) -> (rule: String, first: Date) {
        let minute = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60)
        let rule = try RepeatRule(text, localZone: zone, zones: zones, start: start ?? anchor ?? minute)
        let first: Date?
        if let start, start > now {
            first = rule.first(atOrAfter: start, in: zone)
        } else {
            first = rule.next(after: now, in: zone)
        }
        guard let first else { throw .repeatWithoutOccurrence(rule.expression, after: max(start ?? now, now)) }
        return (rule.expression, first)
    }

    /// Checking off a recurring item completes its current occurrence: the one that last fired, if it is not
    /// completed yet, else the pending one, and then the series moves on to the occurrence after it. The item
    /// stays open; with no occurrence left, it is checked off for good.
    private static func completingOccurrence(
        of item: ChecklistItem,
        rule expression: String,
        in zone: TimeZone,
        zones: ZoneRulesStore
    )
        throws(ModelError) -> ChecklistItem
    {
        var item = item
        guard let pending = item.dueDate else { return item }
        item.checked = false
        item.snoozedUntil = nil
        if let fired = item.lastFiredAt, fired > (item.completedThrough ?? .distantPast), fired < pending {
            item.completedThrough = fired
            return item
        }
        item.completedThrough = pending
        if let next = try RepeatRule(expression, localZone: zone, zones: zones).next(after: pending, in: zone) {
            item.dueDate = next
        } else {
            item.checked = true
        }
        return item
    }

    private func validText(_ text: String) throws(ModelError) -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .emptyText("item text") }
        return text
    }

    private func validListName(_ name: String, renaming listID: Int?) throws(ModelError) -> String {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .emptyText("list name") }
        if let existing = list(named: name), existing.listID != listID { throw .duplicateListName(name) }
        return name
    }

    private mutating func removeItemFromItsList(_ itemID: Int) {
        guard let location = locations[itemID] else { return }
        if lists[location.listIndex].items[location.itemIndex].mayBeListedInDigest { digestItemCount -= 1 }
        lists[location.listIndex].items.remove(at: location.itemIndex)
        locations[itemID] = nil
        // Only the items after the removed one moved.
        for index in location.itemIndex..<lists[location.listIndex].items.count {
            locations[lists[location.listIndex].items[index].itemID]?.itemIndex = index
        }
    }

    private mutating func sortAndReindex() {
        lists.sort(by: Checklist.isOrderedBefore)
        rebuildLocations()
    }

    private mutating func rebuildLocations() {
        locations.removeAll(keepingCapacity: true)
        digestItemCount = 0
        for (listIndex, list) in lists.enumerated() {
            for (itemIndex, item) in list.items.enumerated() {
                locations[item.itemID] = ItemLocation(listIndex: listIndex, itemIndex: itemIndex)
                if item.mayBeListedInDigest { digestItemCount += 1 }
            }
        }
    }
}
