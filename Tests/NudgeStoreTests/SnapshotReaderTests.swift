import Foundation
import NudgeCalendar
import NudgeCore
import Testing

@testable import NudgeStore

/// The machine's zone database, for repeat rules.
private let zones = ZoneRulesStore()

extension NudgeStoreTests {
    /// The fast snapshot reader reads exactly what Foundation reads, for any library nudge can write, and gives up
    /// (leaving the message to Foundation) on anything else.
    @Suite struct SnapshotReaderTests {
        @Test(arguments: [0, 1, 14, 15, 16, 300, 70_000])
        func readsWhatFoundationReads(items: Int) throws {
            var library = ChecklistLibrary()
            try library.apply(library.makeAddList(name: "Ärzte 🩺", iconName: .appointments))
            // The chosen default list, and its absence (a new library chooses Inbox).
            if items % 2 == 1 { try library.apply(library.makeSetDefaultList(listID: 2)) }
            let texts = [
                "milk", "", "naïve café", "日本語のテキスト", "emoji 👩‍👩‍👧 and tabs\tand\nnewlines",
                String(repeating: "long ", count: 40),
            ]
            for number in 0..<items {
                // Every combination of fields shows up, from the number's residues.
                let pick = { (modulus: Int) in (number * 7919 + number / 3) % modulus }
                let text = texts[pick(texts.count)] + " \(number)"
                var item = ChecklistItem(
                    itemID: library.nextItemID,
                    text: text.isEmpty ? "x" : text,
                    checked: pick(2) == 0,
                    dueDate: pick(3) == 0 ? nil : Date(timeIntervalSince1970: Double(pick(4_000_000_007)) / 1000),
                    shouldRemind: pick(5) < 3,
                    createdAt: Date(timeIntervalSinceReferenceDate: -Double(pick(1_000_003))),
                    lastFiredAt: pick(4) == 1 ? Date(timeIntervalSince1970: 1_800_000_000.25) : nil,
                    repeatRule: pick(6) == 2 ? "Mon..Fri *-*-* 09:30:00" : nil,
                    repeatAfter: pick(6) == 3 ? 14 * 86_400 : nil,
                    completedThrough: pick(7) == 3 ? Date(timeIntervalSince1970: 1_700_000_000) : nil,
                    priority: Priority.allCases[pick(3)],
                    catchUp: [nil, .always, .never, .within(5400)][pick(4)],
                    snoozedUntil: pick(8) == 5 ? Date(timeIntervalSince1970: 1_800_000_600.5) : nil,
                    warnings: [[], [3600], [86_400, 600, 0.5]][pick(3)],
                    warnedThrough: pick(9) == 4 ? Date(timeIntervalSince1970: 1_800_000_000 - 3600) : nil
                )
                item.updatedAt = item.createdAt + 0.125
                try library.apply(.putItem(item, listID: number % 2 + 1))
            }
            if items > 0 { try library.apply(.removeItem(itemID: items / 2 + 1)) }
            let snapshot = StoreSnapshot(library: library, logSequence: items * 3)
            let bytes = Array(try LibraryCoding.encode(snapshot, path: "test"))

            let fast = try #require(SnapshotReader.read(bytes))
            let foundation = try PropertyListDecoder().decode(StoreSnapshot.self, from: Data(bytes))
            #expect(fast == foundation)
            #expect(fast.library == library)
            #expect(fast.logSequence == items * 3)
        }

        @Test func givesUpOnWhatItDoesNotExpectAndFoundationNamesTheField() throws {
            var library = ChecklistLibrary()
            try library.apply(library.makeAddItem(NewItem(text: "x", listID: 1), now: testNow, zones: zones))
            let bytes = try LibraryCoding.encode(StoreSnapshot(library: library, logSequence: 1), path: "test")
            var root = try #require(
                try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: Any]
            )
            var lists = try #require(root["lists"] as? [[String: Any]])
            var items = try #require(lists[0]["items"] as? [[String: Any]])
            items[0]["checked"] = "yes"
            lists[0]["items"] = items
            root["lists"] = lists
            let edited = Array(try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0))

            #expect(SnapshotReader.read(edited) == nil)
            let error = #expect(throws: StoreError.self) { try LibraryCoding.decode(edited, path: "edited") }
            #expect(error?.description.contains("lists[0].items[0].checked") == true)
        }
    }
}
