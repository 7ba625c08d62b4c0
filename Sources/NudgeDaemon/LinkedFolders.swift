import Foundation
import Logging
import NIOPosix
import NudgeCalendar
import NudgeCore
import NudgeVdir
import ServiceLifecycle

/// The folders linked lists are kept in (`ListLink`): read off the loop, on NIO's pool of threads for blocking work
/// (a folder of 10,000 files is many system calls), and handed to the book, which decides what they change. Every
/// linked folder is read when nudged starts, so what changed while it was down comes in.
struct LinkedFolders: Service {
    let service: ReminderService
    let logger: Logger

    /// What `folder` holds, or why it cannot be listed.
    static func read(_ folder: String, timeZone: TimeZone, zones: ZoneRulesStore) async
        -> Result<FolderContents, VdirError>
    {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                Result { () throws(VdirError) in
                    try VdirCollection.read(folder, timeZone: timeZone, zones: zones).contents
                }
            }
        } catch {
            return .failure(.unavailable(folder: folder, reason: "not read: \(error)"))
        }
    }

    func run() async throws {
        let (linked, timeZone, zones) = try await service.read { book in
            (
                book.library.lists.compactMap { list in list.link.map { (list.listID, $0.folder) } }, book.timeZone,
                book.zones
            )
        }
        for (listID, folder) in linked {
            await rescan(listID: listID, folder: folder, timeZone: timeZone, zones: zones)
        }
        try? await gracefulShutdown()
    }

    /// Reads list `listID`'s folder and brings the list to it, if the list is still linked to that folder by then; a
    /// folder that cannot be listed leaves the list as it was, marked unavailable.
    private func rescan(listID: Int, folder: String, timeZone: TimeZone, zones: ZoneRulesStore) async {
        let read = await Self.read(folder, timeZone: timeZone, zones: zones)
        switch read {
        case .success(let contents):
            for skipped in contents.skipped {
                logger.warning("\(folder)/\(skipped.fileName) skipped: \(skipped.reason)")
            }
        case .failure(let error):
            logger.warning("\(error); the list's items stay as last read")
        }
        do {
            try await service.write { book in
                // Unlinked, or linked elsewhere, while the folder was read: what was read is no longer the list's.
                guard book.library.list(id: listID)?.link?.folder == folder else { return ((), ReminderBook.Outcome()) }
                switch read {
                case .success(let contents): return ((), try book.applyFolder(listID: listID, contents))
                case .failure(let error):
                    guard case .unavailable(_, let reason) = error else { return ((), ReminderBook.Outcome()) }
                    book.folderUnavailable(listID: listID, reason: reason)
                    return ((), ReminderBook.Outcome())
                }
            }
        } catch {
            logger.warning("cannot bring in the tasks of \(folder): \(error)")
        }
    }
}
