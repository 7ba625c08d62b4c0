import Foundation
import NudgeCalendar
import NudgeCore
import NudgeSystem
import Testing

@testable import NudgeVdir

/// nudge's writes to a folder: whole files renamed into place, and only over a file still as nudge last read it.
@Suite struct VdirWriteTests {
    typealias Folder = VdirCollectionTests.Folder
    let zones = ZoneRulesStore()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func read(_ folder: Folder) throws -> VdirCollection {
        try VdirCollection.read(folder.path, timeZone: .gmt, zones: zones)
    }

    func change(_ entry: VdirCollection.Entry, in folder: Folder, _ kind: TaskFileChange.Kind) -> TaskFileChange {
        TaskFileChange(
            listID: 2,
            folder: folder.path,
            fileName: entry.fileName,
            stamp: entry.stamp,
            kind: kind,
            now: now
        )
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func aRewriteReplacesTheFileKeepingItsModeAndReadsItBack() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.ics", VdirCollectionTests.task(uid: "a", summary: "Pay rent"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: folder.path + "/a.ics")
        let entry = try #require(try read(folder).entries.first)
        let written = try #require(
            try VdirCollection.write(
                change(entry, in: folder, .rewrite(.completing(at: now))),
                timeZone: .gmt,
                zones: zones
            ).first
        )
        #expect(written.task.checked && written.task.text == "Pay rent" && written.stamp != entry.stamp)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/a.ics")
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        // Read again, it is what the write said; no temporary file is left.
        #expect(try read(folder).entries.first?.stamp == written.stamp)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["a.ics"])
    }

    /// Another program's change since nudge read the file (the same size and second, another byte), a file removed,
    /// or one replaced: nothing is written, and nothing removed.
    @Test func aFileChangedSinceItWasReadIsNeitherWrittenNorRemoved() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.ics", VdirCollectionTests.task(uid: "a", summary: "Pay rent"))
        let entry = try #require(try read(folder).entries.first)
        let path = folder.path + "/a.ics"
        // In place, the same length: only the digest tells.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64(try bytes(path).range(of: Data("Pay".utf8))!.lowerBound))
        try handle.write(contentsOf: Data("Pat".utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 0)], ofItemAtPath: path)
        var stale = entry
        stale = VdirCollection.Entry(
            fileName: entry.fileName,
            task: entry.task,
            stamp: FileStamp(
                size: entry.stamp.size,
                inode: entry.stamp.inode,
                modified: try SystemCall.fileStatus(path, followingLinks: false).modified,
                digest: entry.stamp.digest
            )
        )
        let before = try bytes(path)
        for kind in [TaskFileChange.Kind.rewrite(.reopening), .remove] {
            #expect(throws: ModelError.changedOnDisk(path)) {
                try VdirCollection.write(change(stale, in: folder, kind), timeZone: .gmt, zones: zones)
            }
        }
        #expect(try bytes(path) == before)
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: ModelError.changedOnDisk(path)) {
            try VdirCollection.write(change(entry, in: folder, .remove), timeZone: .gmt, zones: zones)
        }
    }

    @Test func aNewTaskIsANewFileAndARemovalRemovesTheFile() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let text = VdirCollectionTests.task(uid: "new", summary: "Buy stamps")
        let create = TaskFileChange(
            listID: 2,
            folder: folder.path,
            fileName: "new.ics",
            stamp: nil,
            kind: .create(Array(text.utf8)),
            now: now
        )
        let created = try #require(try VdirCollection.write(create, timeZone: .gmt, zones: zones).first)
        #expect(created.task.uid == "new" && created.fileName == "new.ics")
        // Never over a file that is there.
        #expect(throws: VdirError.self) { try VdirCollection.write(create, timeZone: .gmt, zones: zones) }
        let entry = try #require(try read(folder).entries.first)
        #expect(try VdirCollection.write(change(entry, in: folder, .remove), timeZone: .gmt, zones: zones).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
