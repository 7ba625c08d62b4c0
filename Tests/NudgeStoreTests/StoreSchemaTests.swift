import Foundation
import NudgeCore
import Testing

@testable import NudgeStore

extension NudgeStoreTests {
    /// Every field of every stored record, set to a value other than the blank record's, comes back from the
    /// snapshot (Foundation's decoder and the fast reader) and from a change-log record. A field added to a model type
    /// and forgotten in `StoreSchema` fails here: the sample must set it (`everyPropertyDiffersFromTheBlank`), and a
    /// key the table does not have comes back blank.
    @Suite struct StoreSchemaTests {
        static let instant = Date(timeIntervalSince1970: 1_800_000_000.5)

        /// An item with every field set, none to what a blank item holds.
        static let item = ChecklistItem(
            itemID: 42,
            text: "every field",
            checked: true,
            completedAt: instant - 30,
            dueDate: instant + 3600,
            dueDay: CalendarDay(year: 2027, month: 3, day: 28),
            shouldRemind: true,
            createdAt: instant - 86_400,
            updatedAt: instant - 60,
            lastFiredAt: instant + 1,
            repeatRule: "Mon..Fri *-*-* 09:30:00",
            repeatAfter: 14 * 86_400 + 0.5,
            completedThrough: instant - 7 * 86_400,
            priority: .high,
            catchUp: .within(5400),
            snoozedUntil: instant + 7200,
            warnings: [86_400, 600],
            warnedThrough: instant - 120,
            unacknowledgedSince: instant - 90,
            nag: Nag(every: 900, times: 4, untilSeen: true, escalateAfter: 2),
            repeatCount: 3,
            calendarUID: "uid-from-elsewhere@example.org",
            fileName: "uid-from-elsewhere.ics"
        )

        /// A link with every field set, none to what a blank link holds.
        static let link = ListLink(folder: "/home/someone/.local/share/tasks/errands", remindsAtDue: false)

        static let list = Checklist(
            listID: 7,
            name: "Errands",
            iconName: .groceries,
            items: [item],
            digestTime: 7 * 3600 + 1800,
            digestSentOn: CalendarDay(year: 2027, month: 3, day: 27),
            link: link
        )

        static func library() throws -> ChecklistLibrary {
            try ChecklistLibrary(
                nextItemID: 100,
                nextListID: 9,
                nextEventID: 77,
                defaultListID: 7,
                storeID: "0f4c-store",
                lists: [Checklist(listID: 1, name: "Inbox", iconName: .inbox), list]
            )
        }

        /// An event with every field set, none to its zero value.
        static let event: ReminderEvent = {
            var event = ReminderEvent(
                .missed,
                of: Reminder(itemID: 42, text: "every field", listName: "Errands", due: instant, priority: .high),
                at: instant + 30,
                previousDue: instant - 30,
                lateBy: 29.5,
                coalesced: 3,
                warning: 600
            )
            event.id = 76
            event.catchUp = .never
            event.source = .notification
            event.itemIDs = [42, 43]
            event.day = CalendarDay(iso: "2027-01-15")
            event.undid = 70
            event.repeatNumber = 4
            // A step with an item added, one changed and one removed: each image with every field, coded by the
            // items' table.
            var before = item
            before.text = "before"
            event.undo = UndoStep(touches: [
                .init(itemID: 1, before: nil, after: .init(item, in: 7)),
                .init(itemID: 2, before: .init(before, in: 7), after: .init(item, in: 8)),
                .init(itemID: 3, before: .init(item, in: 8), after: nil),
            ])
            return event
        }()

        /// The property names a value holds whose value differs from `blank`'s; every one must, for the sample to
        /// prove anything.
        static func propertiesLeftBlank<Value>(_ value: Value, blank: Value, ignoring: Set<String> = []) -> [String] {
            let blankValues = Dictionary(
                uniqueKeysWithValues: Mirror(reflecting: blank).children.map { ($0.label ?? "", "\($0.value)") }
            )
            return Mirror(reflecting: value).children.compactMap { child in
                guard let label = child.label, !ignoring.contains(label) else { return nil }
                return "\(child.value)" == blankValues[label] ? label : nil
            }
        }

        @Test func everyPropertyDiffersFromTheBlank() throws {
            #expect(Self.propertiesLeftBlank(Self.item, blank: ChecklistItem.blank) == [])
            #expect(Self.propertiesLeftBlank(Self.list, blank: Checklist.blank) == [])
            #expect(Self.propertiesLeftBlank(Self.link, blank: ListLink.blank) == [])
            let fields = StoreSnapshot(library: try Self.library(), logSequence: 12).fields
            #expect(Self.propertiesLeftBlank(fields, blank: SnapshotFields(formatVersion: 0)) == [])
            // The library's properties, each stored through `SnapshotFields` (`locations` is an index built on load,
            // `digestItemCount` a count kept with it).
            let libraryProperties = Set(Mirror(reflecting: try Self.library()).children.compactMap(\.label))
            #expect(
                libraryProperties
                    == [
                        "nextItemID", "nextListID", "nextEventID", "lists", "chosenDefaultListID", "storeID",
                        "locations", "digestItemCount",
                    ],
                "a library property was added: store it in SnapshotFields (StoreSchema.swift), then list it here"
            )
            let blankEvent = ReminderEvent(
                .scheduled,
                of: Reminder(itemID: 0, text: "", listName: "", due: .distantPast),
                at: .distantPast
            )
            #expect(Self.propertiesLeftBlank(Self.event, blank: blankEvent) == [])
        }

        @Test func theSnapshotGivesEveryFieldBackThroughBothReaders() throws {
            let snapshot = StoreSnapshot(library: try Self.library(), logSequence: 12)
            let bytes = Array(try LibraryCoding.encode(snapshot, path: "test"))
            let fast = try #require(SnapshotReader.read(bytes), "the fast reader gave up on what nudge writes")
            let full = try PropertyListDecoder().decode(StoreSnapshot.self, from: Data(bytes))
            #expect(fast == snapshot)
            #expect(full == snapshot)
            #expect(try LibraryCoding.decode(bytes, path: "test") == snapshot)
            #expect(fast.library.list(id: 7)?.items == [Self.item])
        }

        @Test func aChangeLogRecordGivesEveryChangeAndEventBack() throws {
            let record = LogRecord(
                sequence: 5,
                nextItemID: 100,
                nextListID: 9,
                nextEventID: 77,
                changes: [
                    .addList(Self.list),
                    .updateList(listID: 7, name: "Chores", iconName: .chores),
                    .setDefaultList(listID: 7),
                    .setDigestTime(listID: 7, digestTime: 7 * 3600 + 1800),
                    .setDigestTime(listID: 7, digestTime: nil),
                    .markDigestSent(listID: 7, day: try #require(CalendarDay(iso: "2027-03-27"))),
                    .setLink(listID: 7, link: Self.link),
                    .setLink(listID: 7, link: nil),
                    .putItem(Self.item, listID: 7),
                    .removeItem(itemID: 42),
                    .removeList(listID: 7),
                ],
                events: [Self.event]
            )
            let framed = try ChangeLogFormat.frame(record, path: "test")
            var read: [LogRecord] = []
            _ = try ChangeLogFormat.scan(ChangeLogFormat.header + framed, path: "test") { record, _ in
                read.append(record)
            }
            #expect(read == [record])
        }

        /// A key no table has is refused, naming it, by Foundation's decoder; the fast reader gives up rather than
        /// drop it.
        @Test func aKeyTheSchemaDoesNotHaveIsRefusedNotDropped() throws {
            let bytes = try LibraryCoding.encode(StoreSnapshot(library: try Self.library(), logSequence: 1), path: "t")
            var root = try #require(
                try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: Any]
            )
            var lists = try #require(root["lists"] as? [[String: Any]])
            var items = try #require(lists[0]["items"] as? [[String: Any]])
            items[0]["nagEvery"] = 600
            lists[0]["items"] = items
            root["lists"] = lists
            let edited = Array(try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0))

            #expect(SnapshotReader.read(edited) == nil)
            let error = #expect(throws: StoreError.self) { try LibraryCoding.decode(edited, path: "edited") }
            #expect(error?.code == .invalidContent)
            #expect(error?.description.contains("lists[0].items[0].nagEvery") == true, "\(String(describing: error))")
        }

        @Test func theFormatsAreNumberedOneUpWithoutGaps() {
            #expect(StoreSchema.formats.map(\.version) == Array(1...StoreSchema.currentVersion))
        }
    }
}
