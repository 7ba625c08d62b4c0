import CLinux
import Foundation
import Glibc
import Logging
import NIOPosix
import NudgeCalendar
import NudgeCore
import NudgeVdir

/// The folders linked lists are kept in (`ListLink`), read off the loop on NIO's pool of threads for blocking work (a
/// folder of 10,000 files is many system calls); the book decides what they change (`ReminderBook.applyFolder`).
enum LinkedFolders {
    /// One linked list's folder as read.
    struct Reading: Sendable {
        let listID: Int
        let folder: String
        let contents: Result<FolderContents, VdirError>
    }

    /// What `folder` holds, or why it cannot be listed.
    static func read(_ folder: String, timeZone: TimeZone, zones: ZoneRulesStore) async
        -> Result<FolderContents, VdirError>
    {
        await collection(folder, timeZone: timeZone, zones: zones).map(\.contents)
    }

    /// `folder` read whole, or, with the collection read before (`previous`, of the same folder), only the files
    /// `names` again (`VdirCollection.reading`): whole, if the folder is no longer the directory read before.
    static func collection(
        _ folder: String,
        again names: Set<String>? = nil,
        of previous: VdirCollection? = nil,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    ) async -> Result<VdirCollection, VdirError> {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                if let names, let previous, previous.folder == folder,
                    let collection = try? previous.reading(names, timeZone: timeZone, zones: zones)
                {
                    return .success(collection)
                }
                return Result { () throws(VdirError) in
                    try VdirCollection.read(folder, timeZone: timeZone, zones: zones)
                }
            }
        } catch {
            return .failure(.unavailable(folder: folder, reason: "not read: \(error)"))
        }
    }

    /// Hands back to the system the memory a whole folder's reading and its taking left free (`malloc_trim`), on the
    /// pool of threads for blocking work: glibc keeps it otherwise, and a folder of 10,000 tasks leaves about 2 KB a
    /// task (`scripts/bench vdir`).
    static func handBackFreeMemory() async {
        _ = try? await NIOThreadPool.singleton.runIfActive { malloc_trim(0) }
    }

    /// Makes `change` in its folder and reads the file back (`VdirCollection.write`), on the pool of threads for
    /// blocking work.
    static func write(_ change: TaskFileChange, timeZone: TimeZone, zones: ZoneRulesStore) async throws
        -> [FolderTask]
    {
        try await NIOThreadPool.singleton.runIfActive {
            try VdirCollection.write(change, timeZone: timeZone, zones: zones)
        }
    }

    /// Every linked list's folder in `library`, read at start, before anything fires (`ReminderService` applies them
    /// first): a task checked off or removed there while nudged was down must not fire late. What is skipped, and a
    /// folder unavailable, is logged.
    static func readAll(in library: ChecklistLibrary, timeZone: TimeZone, zones: ZoneRulesStore, logger: Logger)
        async -> [Reading]
    {
        var readings: [Reading] = []
        for list in library.lists {
            guard let folder = list.link?.folder else { continue }
            let contents = await read(folder, timeZone: timeZone, zones: zones)
            switch contents {
            case .success(let read):
                log(read.skipped, in: folder, logger: logger)
            case .failure(let error):
                logger.warning("\(error); the items of list \"\(list.name)\" stay as last read")
            }
            readings.append(Reading(listID: list.listID, folder: folder, contents: contents))
        }
        return readings
    }

    /// Says in the log why each of `skipped`, files of `folder`, was not taken: fixing one brings its task in.
    static func log(_ skipped: [SkippedFile], in folder: String, logger: Logger) {
        for file in skipped { logger.warning("\(folder)/\(file.fileName) skipped: \(file.reason)") }
    }
}

extension ReminderService {
    /// Makes `change` to a task file of a linked list's folder, then has the book take the file as written
    /// (`applyWrittenFile`), as it would take any change of the folder's; answers with `answer` of the item that
    /// holds the file now (none for a file removed). The file is the truth: the book changes only as the file did.
    /// The events are the user's (`source`), not the folder's, and the change is one `nudge undo` sees (and refuses:
    /// the file is the truth). A file another program changed meanwhile is not written (409 `changed_on_disk`), and
    /// one that cannot be written is the folder's fault (422 `folder_unavailable`): either way the folder is read
    /// again before the answer, so the item then shows what the folder holds.
    func write<Value: Sendable>(
        _ change: TaskFileChange,
        folders: FolderWatcher?,
        source: ReminderEvent.Source? = nil,
        answer: @escaping @Sendable (ReminderBook, ChecklistItem?) throws -> Value
    ) async throws -> Value {
        let (timeZone, zones) = try await read { book in (book.timeZone, book.zones) }
        let writeAndTake = { () async throws -> Value in
            let written: [FolderTask]
            do {
                written = try await LinkedFolders.write(change, timeZone: timeZone, zones: zones)
            } catch let error as ModelError where error.code == .changedOnDisk {
                await self.readAgain(change, folders: folders, timeZone: timeZone, zones: zones)
                throw error
            } catch let error as VdirError {
                await self.readAgain(change, folders: folders, timeZone: timeZone, zones: zones)
                throw APIFailure(status: .unprocessableContent, code: .folderUnavailable, message: error.description)
            }
            return try await self.write { book in
                var ((item, outcome), step) = try book.recordingUndo { book in
                    try book.applyWrittenFile(change, written)
                }
                for index in outcome.events.indices { outcome.events[index].source = source }
                outcome.append(contentsOf: book.reportChange(step))
                return (try answer(book, item), outcome)
            }
        }
        guard let folders else { return try await writeAndTake() }
        return try await folders.holding(change.listID, writeAndTake)
    }

    /// Links list `listID` to `folder` (an absolute path, as `standardizingPath` spells it): reads the folder off the
    /// loop, then has the book link the list to what it holds (`ReminderBook.linkList`), and answers with `answer` of
    /// the list as it is then. Throws `VdirError.unavailable` if the folder cannot be listed, and the book's refusal.
    func link<Value: Sendable>(
        listID: Int,
        to folder: String,
        remindsAtDue: Bool,
        answer: @escaping @Sendable (ReminderBook, Checklist) throws -> Value
    ) async throws -> Value {
        // An unknown list is said before a folder is read for it.
        let (timeZone, zones) = try await read { book in
            guard book.library.list(id: listID) != nil else { throw ModelError.unknownList(listID) }
            return (book.timeZone, book.zones)
        }
        let contents = try await LinkedFolders.read(folder, timeZone: timeZone, zones: zones).get()
        let linked = try await write { book in
            let outcome = try book.linkList(
                listID: listID,
                ListLink(folder: folder, remindsAtDue: remindsAtDue),
                contents: contents
            )
            guard let list = book.library.list(id: listID) else { throw ModelError.unknownList(listID) }
            return (try answer(book, list), outcome)
        }
        await LinkedFolders.handBackFreeMemory()
        return linked
    }

    /// Links the lists the settings name (`links`: name and folder) when nudged starts, as `nudge list link` would:
    /// a list of that name is made if there is none, and linked, unless a list is linked to that folder already
    /// (under the name its `displayname` gave it, maybe). One that cannot be linked (its folder unavailable, items of
    /// its own) is logged, and a list made for it removed again; nudged goes on.
    func link(_ links: [(name: String, folder: String)], logger: Logger) async {
        for (name, folder) in links {
            var made: Int?
            do {
                let (listID, linkedTo, isNew) = try await write { book in
                    if let list = book.library.lists.first(where: { $0.link?.folder == folder })
                        ?? book.library.list(named: name)
                    {
                        return ((list.listID, list.link?.folder, false), .init())
                    }
                    let (list, outcome) = try book.addList(name: name)
                    return ((list.listID, nil, true), outcome)
                }
                if linkedTo == folder { continue }
                if isNew { made = listID }
                try await link(listID: listID, to: folder, remindsAtDue: true) { _, _ in () }
                logger.info("linked list \"\(name)\" to \(folder), as the setting links says")
            } catch {
                logger.warning("links: list \"\(name)\" is not linked to \(folder): \(error)")
                if let made { _ = try? await write { book in ((), try book.removeList(listID: made)) } }
            }
        }
    }

    /// Reads `change`'s folder again and brings its list to it, after a write that found the file changed or could
    /// not be made: what the user sees next is the folder as it is. A reading another write of nudge's began beside
    /// is not taken (it may hold a file from before that write), and `folders` reads the folder again later.
    private func readAgain(
        _ change: TaskFileChange,
        folders: FolderWatcher?,
        timeZone: TimeZone,
        zones: ZoneRulesStore
    ) async {
        let writesBefore = folders?.writesBegun(change.listID)
        let contents = await LinkedFolders.read(change.folder, timeZone: timeZone, zones: zones)
        let reading = LinkedFolders.Reading(listID: change.listID, folder: change.folder, contents: contents)
        _ = try? await write { book in
            if let folders, folders.writesBegun(change.listID) != writesBefore {
                folders.readLater(listID: change.listID, folder: change.folder)
                return ((), ReminderBook.Outcome())
            }
            return ((), book.apply([reading]))
        }
    }
}

extension ReminderBook {
    /// Brings each list to its folder as read (`applyFolder`), or marks the folder unavailable; a reading of a list
    /// linked elsewhere since, or no longer, is passed over.
    mutating func apply(_ readings: [LinkedFolders.Reading]) -> Outcome {
        var outcome = Outcome()
        for reading in readings where library.list(id: reading.listID)?.link?.folder == reading.folder {
            switch reading.contents {
            case .success(let contents):
                // Linked and read: nothing in it the model refuses as a whole.
                if let applied = try? applyFolder(listID: reading.listID, contents) {
                    outcome.append(contentsOf: applied)
                }
            case .failure(.unavailable(_, let reason)), .failure(.unwritable(_, let reason)):
                folderUnavailable(listID: reading.listID, reason: reason)
            }
        }
        return outcome
    }
}
