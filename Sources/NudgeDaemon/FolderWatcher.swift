import Foundation
import Logging
import NudgeCalendar
import NudgeCore
import NudgeSystem
import ServiceLifecycle
import Synchronization

/// Follows the linked lists' folders while nudged runs (`FolderNotifier`, inotify): a task file created, written,
/// renamed over or removed there brings the list to its folder again, as at start (`ReminderBook.applyFolder`, which
/// changes only what differs). A folder removed or moved away is read as unavailable, and its parent is watched for
/// its return, when it is read again; an overflow of the kernel's queue reads every folder again. Nothing is polled.
final class FolderWatcher: Service, Sendable {
    private let service: ReminderService
    private let logger: Logger
    private let batches: AsyncStream<[FolderNotifier.Change]>
    private let batchesEnd: AsyncStream<[FolderNotifier.Change]>.Continuation
    private let notifier: FolderNotifier?
    /// By watch: the linked lists it is for, and whether it watches a folder's parent while the folder is gone.
    private let watched = Mutex<[Int32: [Watched]]>([:])

    private struct Watched: Sendable {
        let listID: Int
        let folder: String
        let isParent: Bool
    }

    init(service: ReminderService, logger: Logger) {
        self.service = service
        self.logger = logger
        let (batches, continuation) = AsyncStream.makeStream(of: [FolderNotifier.Change].self)
        self.batches = batches
        batchesEnd = continuation
        do {
            notifier = try FolderNotifier { continuation.yield($0) }
        } catch {
            logger.warning("cannot watch linked folders (inotify: \(error)); they are read when nudged starts")
            notifier = nil
            continuation.finish()
        }
    }

    func run() async throws {
        await follow()
        await withGracefulShutdownHandler {
            for await batch in batches { await handle(batch) }
        } onGracefulShutdown: { [notifier, batchesEnd] in
            notifier?.stop()
            batchesEnd.finish()
        }
        notifier?.stop()
    }

    /// Makes the watches match the linked lists as the book has them now: each linked folder watched, or its parent
    /// while it is gone, and nothing else. Called at start and after a list is linked or unlinked.
    func follow() async {
        guard let notifier,
            let linked = try? await service.read({ book in
                book.library.lists.compactMap { list in list.link.map { (list.listID, $0.folder) } }
            })
        else { return }
        var wanted: [Int32: [Watched]] = [:]
        for (listID, folder) in linked {
            do {
                wanted[try notifier.watch(folder), default: []].append(
                    Watched(listID: listID, folder: folder, isParent: false)
                )
            } catch {
                let parent = (folder as NSString).deletingLastPathComponent
                guard let watch = try? notifier.watch(parent) else {
                    logger.warning("cannot watch \(folder) or its parent (\(error)); it is read when nudged starts")
                    continue
                }
                wanted[watch, default: []].append(Watched(listID: listID, folder: folder, isParent: true))
            }
        }
        let before = watched.withLock { watched in
            defer { watched = wanted }
            return watched
        }
        for watch in before.keys where wanted[watch] == nil { notifier.unwatch(watch) }
    }

    /// Reads again each folder a batch of changes touched, once however many of its files changed.
    private func handle(_ batch: [FolderNotifier.Change]) async {
        let watched = watched.withLock { $0 }
        var lists: [Int: String] = [:]
        var refollow = false
        for change in batch {
            if change.overflowed {
                for entry in watched.values.joined() { lists[entry.listID] = entry.folder }
                refollow = true
                continue
            }
            for entry in watched[change.watch] ?? [] {
                if entry.isParent {
                    // The folder came back (made again, or moved back): watch it, and read it.
                    guard change.name == (entry.folder as NSString).lastPathComponent else { continue }
                    refollow = true
                } else if change.folderGone {
                    refollow = true
                }
                lists[entry.listID] = entry.folder
            }
        }
        if refollow { await follow() }
        for (listID, folder) in lists.sorted(by: { $0.key < $1.key }) { await rescan(listID: listID, folder: folder) }
    }

    private func rescan(listID: Int, folder: String) async {
        guard let (timeZone, zones) = try? await service.read({ book in (book.timeZone, book.zones) }) else { return }
        let reading = LinkedFolders.Reading(
            listID: listID,
            folder: folder,
            contents: await LinkedFolders.read(folder, timeZone: timeZone, zones: zones)
        )
        do {
            let newlySkipped = try await service.write { book in
                let before = book.folderStates[listID]
                let outcome = book.apply([reading])
                return (Self.newlySkipped(before: before, after: book.folderStates[listID]), outcome)
            }
            for skipped in newlySkipped { logger.warning("\(folder)/\(skipped.fileName) skipped: \(skipped.reason)") }
        } catch {
            logger.warning("cannot bring in the tasks of \(folder): \(error)")
        }
    }

    /// The files skipped now that were not before, for the log: a file is said once, not at every change beside it.
    private static func newlySkipped(before: FolderState?, after: FolderState?) -> [SkippedFile] {
        guard case .read(let now, _) = after else { return [] }
        guard case .read(let earlier, _) = before else { return now }
        return now.filter { !earlier.contains($0) }
    }
}
