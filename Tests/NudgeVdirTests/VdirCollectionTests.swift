import Foundation
import NudgeCalendar
import NudgeCore
import NudgeSystem
import PropertyBased
import Testing

@testable import NudgeVdir

/// Reading a vdir collection folder: what todoman writes, and the files nudge skips, each said why.
@Suite struct VdirCollectionTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let zones = ZoneRulesStore()
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// A folder of its own, removed after.
    struct Folder {
        let path = NSTemporaryDirectory() + "nudge-vdir-" + UUID().uuidString

        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static func task(uid: String?, summary: String?, extra: String = "") -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VTODO"]
        if let uid { lines.append("UID:" + uid) }
        if let summary { lines.append("SUMMARY:" + summary) }
        lines += extra.isEmpty ? [] : [extra]
        return (lines + ["END:VTODO", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    /// todoman, the real one (`scripts/install-deps --tests` installs it), adds tasks to a folder with a
    /// `displayname`; each of its files is one task, with the due date, priority and UID todoman wrote.
    @Test func whatTodomanWritesIsReadAsOneTaskPerFile() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let config = NSTemporaryDirectory() + "nudge-todoman-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: config) }
        try FileManager.default.createDirectory(atPath: config + "/todoman", withIntermediateDirectories: true)
        let lists = (folder.path as NSString).deletingLastPathComponent
        let name = (folder.path as NSString).lastPathComponent
        try """
        path = "\(lists)/\(name)"
        date_format = "%Y-%m-%d"
        time_format = "%H:%M"
        default_due = 0
        """.write(toFile: config + "/todoman/config.py", atomically: true, encoding: .utf8)
        try folder.write("displayname", "Errands\n")
        @discardableResult func todo(_ arguments: [String]) throws -> Data {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.packageRoot + "/.build/test-tools/python/bin/todo")
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            // Its configuration, and its cache of task numbers, of this test's own.
            environment["XDG_CONFIG_HOME"] = config
            environment["XDG_CACHE_HOME"] = config
            environment["TZ"] = "Europe/Berlin"
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "todo \(arguments) failed (scripts/install-deps --tests)")
            return data
        }
        try todo(["new", "-l", "Errands", "--due", "2027-01-20 09:00", "--priority", "high", "Pay rent"])
        try todo(["new", "-l", "Errands", "Call the plumber"])
        try todo(["new", "-l", "Errands", "--due", "2027-01-21 18:30", "Water the plants"])
        // todoman numbers its tasks in its cache: found by their summary.
        let listed = try JSONSerialization.jsonObject(with: todo(["--porcelain", "list"])) as? [[String: Any]] ?? []
        let plants = try #require(listed.first { $0["summary"] as? String == "Water the plants" }?["id"] as? Int)
        try todo(["done", String(plants)])

        let collection = try VdirCollection.read(folder.path, timeZone: berlin, zones: Self.zones)
        #expect(collection.displayName == "Errands")
        #expect(collection.skipped == [] && collection.otherFiles == 0)
        let byText = Dictionary(uniqueKeysWithValues: collection.entries.map { ($0.task.text, $0) })
        #expect(byText.keys.sorted() == ["Call the plumber", "Pay rent", "Water the plants"])
        let rent = try #require(byText["Pay rent"])
        #expect(rent.task.dueDate == ISO8601DateFormatter().date(from: "2027-01-20T08:00:00Z"))
        #expect(rent.task.priority == .high && !rent.task.checked)
        // todoman names a file after its UID.
        #expect(rent.fileName == (rent.task.uid ?? "?") + ".ics")
        #expect(byText["Call the plumber"]?.task.dueDate == nil)
        #expect(byText["Water the plants"]?.task.checked == true)
        #expect(collection.entries.allSatisfy { $0.stamp.size > 0 && $0.stamp.digest.count == 32 })
    }

    /// Each file nudge cannot take as one task is skipped with why, and the others are read all the same; files of
    /// events are left alone, and names that are not items' (temporaries, metadata) are not read.
    @Test func aFileNudgeCannotTakeIsSkippedSayingWhyAndTheRestAreRead() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.ics", Self.task(uid: "a", summary: "first"))
        try folder.write("b.ics", "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:broken\r\n")
        try folder.write(
            "c.ics",
            Self.task(uid: "c1", summary: "one") + Self.task(uid: "c2", summary: "two")
        )
        try folder.write("d.ics", Self.task(uid: "d", summary: nil))
        try folder.write("e.ics", Self.task(uid: "a", summary: "same UID as a.ics"))
        try folder.write(
            "f.ics",
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:f\r\nSUMMARY:meeting\r\nDTSTART:20270101T090000Z\r\nEND:VEVENT\r\n"
                + "END:VCALENDAR\r\n"
        )
        try folder.write("g.ics", String(repeating: "X", count: VdirCollection.maximumFileSize + 1))
        try Data([0x42, 0x45, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: folder.path + "/h.ics"))
        // A bare VTODO after a byte-order mark, as Evolution and Windows programs write one, is a task.
        try folder.write("bom.ics", "\u{FEFF}BEGIN:VTODO\r\nUID:bom\r\nSUMMARY:marked\r\nEND:VTODO\r\n")
        try folder.write(".a.ics.tmp", Self.task(uid: "t", summary: "a temporary"))
        try folder.write(".hidden.ics", Self.task(uid: "t", summary: "a temporary"))
        try folder.write("color", "#ff0000")
        try FileManager.default.createDirectory(atPath: folder.path + "/sub.ics", withIntermediateDirectories: true)

        let collection = try VdirCollection.read(folder.path, timeZone: berlin, zones: Self.zones)
        #expect(collection.entries.map(\.fileName) == ["a.ics", "bom.ics"])
        #expect(collection.otherFiles == 1)
        let reasons = Dictionary(uniqueKeysWithValues: collection.skipped.map { ($0.fileName, $0.reason) })
        #expect(reasons.keys.sorted() == ["b.ics", "c.ics", "d.ics", "e.ics", "g.ics", "h.ics", "sub.ics"])
        print("vdir: skipped " + collection.skipped.map(\.description).joined(separator: "; "))
        #expect(reasons["b.ics"]?.contains("line") == true, "\(reasons)")
        #expect(reasons["c.ics"]?.contains("2 tasks (UIDs c1, c2)") == true)
        #expect(reasons["d.ics"]?.contains("no SUMMARY") == true)
        #expect(reasons["e.ics"] == "its UID a is the task of a.ics already")
        #expect(reasons["g.ics"]?.contains("larger than 1 MiB") == true)
        #expect(reasons["h.ics"]?.contains("not UTF-8") == true)
        #expect(reasons["sub.ics"] == "not a regular file")
        #expect(collection.displayName == nil)

        // Fixed, a file brings its task in.
        try folder.write("d.ics", Self.task(uid: "d", summary: "now with a summary"))
        let again = try VdirCollection.read(folder.path, timeZone: berlin, zones: Self.zones)
        #expect(again.entries.map(\.fileName) == ["a.ics", "bom.ics", "d.ics"])
    }

    /// A link to a file outside the folder is not followed (another user's link must not make nudge read, or later
    /// write, a file of theirs); a link within it is read. A FIFO named like an item does not block the reading.
    @Test func aLinkOutOfTheFolderAndAFIFOAreSkipped() throws {
        let folder = try Folder()
        let outside = try Folder()
        defer {
            folder.remove()
            outside.remove()
        }
        try outside.write("secret.ics", Self.task(uid: "s", summary: "outside"))
        try folder.write("real.ics", Self.task(uid: "r", summary: "inside"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/out.ics",
            withDestinationPath: outside.path + "/secret.ics"
        )
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/in.ics", withDestinationPath: "real.ics")
        #expect(mkfifo(folder.path + "/pipe.ics", 0o600) == 0)

        let collection = try VdirCollection.read(folder.path, timeZone: berlin, zones: Self.zones)
        let reasons = Dictionary(uniqueKeysWithValues: collection.skipped.map { ($0.fileName, $0.reason) })
        #expect(reasons["out.ics"]?.contains("a symbolic link out of the folder") == true, "\(reasons)")
        #expect(reasons["pipe.ics"] == "not a regular file")
        // The link within the folder names the same task as the file it links to: the first by name wins.
        #expect(collection.entries.map(\.fileName) == ["in.ics"])
        #expect(reasons["real.ics"] == "its UID r is the task of in.ics already")
    }

    /// A folder that is not there (a disk not mounted) is unavailable, not empty: the caller keeps what it had.
    @Test func aMissingFolderIsUnavailableNotEmpty() throws {
        #expect(throws: VdirError.self) {
            try VdirCollection.read("/nonexistent/nudge-vdir", timeZone: berlin, zones: Self.zones)
        }
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("file", "not a folder")
        let error = try #require(throws: VdirError.self) {
            try VdirCollection.read(folder.path + "/file", timeZone: berlin, zones: Self.zones)
        }
        #expect(error.description.contains("unavailable: Not a directory"), "\(error)")
    }

    static let pieces = [
        "BEGIN:VTODO", "begin:vtodo", "BEGIN:VTOD", "O", "BEGIN:VEVENT", " ", "\t", "\u{FEFF}", "\r\n", "\n", "\r",
        "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}", "\u{A0}", "\u{3000}", "\u{301}", "é", "X", "ı",
    ]

    @Test func holdsTaskLooksAtBytesAndSaysWhatTheTextSays() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...12)) { picks in
            let text = picks.map { Self.pieces[$0] }.joined()
            #expect(VdirCollection.holdsTask(text) == VdirCollection.holdsTaskAsText(text), "\(text.debugDescription)")
        }
    }

    @Test func aLineOfBlanksAroundBeginVTODOInAnyCaseHoldsATask() {
        #expect(VdirCollection.holdsTask("BEGIN:VCALENDAR\r\n \tBegin:VTodo \r\nEND:VCALENDAR\r\n"))
        #expect(VdirCollection.holdsTask("\u{FEFF}BEGIN:VTODO\n"))
        #expect(!VdirCollection.holdsTask("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nX-BEGIN:VTODO\r\n"))
        #expect(!VdirCollection.holdsTask("BEGIN:VTODO\u{301}\r\n"), "a mark makes another character")
    }
}
