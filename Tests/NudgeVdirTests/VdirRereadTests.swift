import Foundation
import NudgeCalendar
import NudgeCore
import PropertyBased
import Testing

@testable import NudgeVdir

/// A change of a few files read as those files (`VdirCollection.reading`): what the watcher does on each change the
/// kernel reports, so a folder of ten thousand costs one file a change.
@Suite struct VdirRereadTests {
    typealias Folder = VdirCollectionTests.Folder
    static let zones = VdirCollectionTests.zones
    static let files = ["a.ics", "b.ics", "c.ics", "d.ics"]

    /// Makes change `step` in `folder`, as todoman, vdirsyncer or a user would, and returns the names the kernel
    /// reports for it: a file of a task (of one of three UIDs, so two files often share one), of a task nudge
    /// skips, or of an event, written whole or renamed over; a file removed or renamed to another's name; the
    /// `displayname` written or removed; a symbolic link to another file (whose change names that file alone); a
    /// rename told half.
    static func make(_ step: Int, _ index: Int, in folder: Folder) throws -> Set<String> {
        let kinds = 11
        let name = files[step / kinds % files.count]
        let other = files[(step / kinds + 1) % files.count]
        let uid = "u\(step / (kinds * files.count) % 3)"
        let path = folder.path + "/" + name
        switch step % kinds {
        case 0:
            try folder.write(name, VdirCollectionTests.task(uid: uid, summary: "task \(step)"))
        case 1:
            try folder.write(name, VdirCollectionTests.task(uid: uid, summary: nil))
        case 2:
            try folder.write(name, "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        case 3:
            try? FileManager.default.removeItem(atPath: path)
        case 4:
            rename(path, folder.path + "/" + other)
            return [name, other]
        case 5:
            try folder.write("displayname", "List \(uid)\n")
            return ["displayname"]
        case 6:
            try? FileManager.default.removeItem(atPath: folder.path + "/displayname")
            return ["displayname"]
        case 7:
            let temporary = "." + name + ".tmp"
            try folder.write(temporary, VdirCollectionTests.task(uid: uid, summary: "renamed over \(step)"))
            rename(folder.path + "/" + temporary, path)
            return [temporary, name]
        case 8:
            // Same content, a new modification time (a `touch`): through a symbolic link, the kernel names its target.
            utime(path, nil)
            return [URL(fileURLWithPath: path).resolvingSymlinksInPath().lastPathComponent]
        case 9:
            try? FileManager.default.removeItem(atPath: path)
            symlink(other, path)
        default:
            // A rename to a new name whose second half the kernel tells in its next read of its queue.
            rename(path, folder.path + "/moved-\(index).ics")
            return [name]
        }
        return [name]
    }

    /// A task as read, with its file.
    static func shown(_ entry: VdirCollection.Entry) -> String {
        "task \(entry.task.uid ?? "-") \(entry.task.text) \(entry.stamp)"
    }

    /// The tasks a reading holds, as read, by file name.
    static func tasks(_ collection: VdirCollection) -> [String: String] {
        Dictionary(uniqueKeysWithValues: collection.entries.map { ($0.fileName, shown($0)) })
    }

    /// What a reading says of the folder beside its tasks: which files' tasks are taken, the files skipped and why.
    static func standing(_ collection: VdirCollection) -> [String] {
        let contents = collection.contents
        return contents.taskFiles.map { "\($0): task" }
            + contents.skipped.map { "\($0.fileName): skipped, \($0.reason)" }
            + ["\(contents.otherFiles) other files, named \(contents.displayName ?? "-")"]
    }

    /// Each change read as its files beside the reading before, kept as the watcher keeps it (without its tasks), and
    /// taken as the book takes it (the tasks of the files read anew, the others as they were), ends as the folder read
    /// whole: the same tasks, each as read from its file now, and the same files skipped.
    @Test func readingTheChangedFilesAgainIsReadingTheWholeFolder() async throws {
        await propertyCheck(count: 150, input: Gen.int(in: 0...1_999).array(of: 1...24)) { steps in
            let folder = try Folder()
            defer { folder.remove() }
            var collection = try VdirCollection.read(folder.path, timeZone: .gmt, zones: Self.zones)
            #expect(collection.readAnew == nil)
            var taken = Self.tasks(collection)
            for (index, step) in steps.enumerated() {
                let changed = try Self.make(step, index, in: folder)
                collection = try collection.withoutTasks.reading(changed, timeZone: .gmt, zones: Self.zones)
                let whole = try VdirCollection.read(folder.path, timeZone: .gmt, zones: Self.zones)
                let readAnew = try #require(collection.readAnew)
                let taskFilesReadAnew = Set(collection.contents.taskFiles).intersection(readAnew)
                #expect(Set(collection.entries.map(\.fileName)) == taskFilesReadAnew)
                for name in readAnew { taken[name] = nil }
                taken.merge(Self.tasks(collection)) { $1 }
                #expect(taken == Self.tasks(whole), "after step \(step) of \(steps)")
                #expect(Self.standing(collection) == Self.standing(whole), "after step \(step) of \(steps)")
            }
        }
    }

    /// The other files of a UID a change touched are read again, and so on for the UIDs they hold now: one found gone
    /// (renamed, the rename not told yet) is looked for under its new name, and one that holds another UID now has
    /// that UID's files read too, whose standing it may change.
    @Test func theFilesOfEachUIDTouchedAreReadUntilNoneIsLeft() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.ics", VdirCollectionTests.task(uid: "u", summary: "the task of u"))
        try folder.write("b.ics", VdirCollectionTests.task(uid: "u", summary: "a duplicate of a.ics"))
        try folder.write("c.ics", VdirCollectionTests.task(uid: "u", summary: "another duplicate of a.ics"))
        try folder.write("n.ics", VdirCollectionTests.task(uid: "w", summary: "the task of w"))
        let collection = try VdirCollection.read(folder.path, timeZone: .gmt, zones: Self.zones)
        #expect(collection.entries.map(\.fileName) == ["a.ics", "n.ics"])
        try folder.write("b.ics", VdirCollectionTests.task(uid: "v", summary: "its own task now"))
        rename(folder.path + "/a.ics", folder.path + "/z.ics")
        try folder.write("c.ics", VdirCollectionTests.task(uid: "w", summary: "before n.ics, the task of w now"))
        let read = try collection.withoutTasks.reading(["b.ics"], timeZone: .gmt, zones: Self.zones)
        #expect(read.readAnew == ["a.ics", "b.ics", "c.ics", "n.ics", "z.ics"])
        #expect(read.entries.map(\.fileName) == ["b.ics", "c.ics", "z.ics"])
        #expect(read.skipped.map(\.description) == ["n.ics: its UID w is the task of c.ics already"])
    }

    @Test func aFolderMovedAwayIsNotReadAsEveryFileGone() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.ics", VdirCollectionTests.task(uid: "a", summary: "one"))
        let collection = try VdirCollection.read(folder.path, timeZone: .gmt, zones: Self.zones)
        let away = folder.path + "-away"
        defer { try? FileManager.default.removeItem(atPath: away) }
        try FileManager.default.moveItem(atPath: folder.path, toPath: away)
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: false)
        #expect(throws: VdirError.self) {
            try collection.reading(["a.ics"], timeZone: .gmt, zones: Self.zones)
        }
    }
}
