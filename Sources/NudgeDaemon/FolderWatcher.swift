import Foundation
import Logging
import NudgeCalendar
import NudgeCore
import NudgeSystem
import NudgeVdir
import ServiceLifecycle
import Synchronization

/// Follows the linked lists' folders while nudged runs (`FolderNotifier`, inotify): a task file created, written,
/// renamed over, removed or changed in its mode is read again, and the list brought to it as at start
/// (`ReminderBook.applyFolder`, which changes only what differs); the other files are not read again, so a change
/// costs its files, not the folder's. A folder removed or moved away is read as unavailable, and its parent is
/// watched for its return, when it is read again whole; an overflow of the kernel's queue reads every folder again
/// whole, and a file system mounted or unmounted (a disk that comes back) every folder that is another directory now.
/// No timer runs: the kernel wakes the notifier.
///
/// One task does all of it, in order: the changes the kernel reports and the requests to follow the lists as the book
/// has them now (`follow()`, after a link or an unlink) gather while a round runs, and the next round takes them all
/// at once, so a sync that rewrites a thousand files reads the folder a few times, not a thousand.
final class FolderWatcher: Service, Sendable {
    private let service: ReminderService
    /// The lists the settings link (`links`), linked first.
    private let links: [(name: String, folder: String)]
    private let logger: Logger
    private let notifier: FolderNotifier?
    /// What waits for the next round; shared with the notifier's thread, which is made before `self` is.
    private let pending = PendingWork()
    /// A round is due; one wake-up stands for any number.
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct Pending {
        var changes: [FolderNotifier.Change] = []
        var follow = false
        /// Lists to read again, whatever the kernel reported, with their folders and the files to read.
        var readAgain: [Int: FolderRead] = [:]
        /// Lists whose folder nudge is writing to, with how many writes are under way (`holding`).
        var held: [Int: Int] = [:]
        /// How many writes to each list's folder began since nudged started: a reading that a write overlapped is
        /// not taken.
        var writesBegun: [Int: Int] = [:]
    }

    private final class PendingWork: Sendable {
        let state = Mutex(Pending())
    }

    /// A linked list's folder to read again: the files `names`, or (nil) the whole folder.
    fileprivate struct FolderRead {
        let folder: String
        var names: Set<String>?
    }

    /// One linked list a watch is for, and whether it watches the folder's parent while the folder is gone.
    private struct Watched: Sendable {
        let listID: Int
        let folder: String
        let isParent: Bool
    }

    init(service: ReminderService, links: [(name: String, folder: String)] = [], logger: Logger) {
        self.service = service
        self.links = links
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (pending, wake) = (pending, wake)
        do {
            notifier = try FolderNotifier { changes in
                pending.state.withLock { $0.changes += changes }
                wake.yield()
            }
        } catch {
            logger.warning("cannot watch linked folders (inotify: \(error)); they are read when nudged starts")
            notifier = nil
        }
    }

    func run() async throws {
        await service.link(links, logger: logger)
        guard let notifier else {
            // Nothing to watch with: nudged goes on without it (a service that ends would stop it).
            try? await gracefulShutdown()
            return
        }
        follow()
        var watched: [Int32: [Watched]] = [:]
        var taken: [Int: VdirCollection] = [:]
        await withGracefulShutdownHandler {
            for await _ in wakeUps {
                let work = pending.state.withLock { pending in
                    defer { pending = Pending(held: pending.held, writesBegun: pending.writesBegun) }
                    return pending
                }
                await round(work, watched: &watched, taken: &taken, notifier: notifier)
            }
        } onGracefulShutdown: { [wake] in
            wake.finish()
        }
        notifier.stop()
    }

    /// Asks for the watches to be made to match the linked lists as the book has them then (at start, and after a
    /// list is linked or unlinked); a folder watched anew is read again, for what changed before its watch.
    func follow() {
        pending.state.withLock { $0.follow = true }
        wake.yield()
    }

    /// Runs `body`, a write of nudge's to list `listID`'s folder and the book's taking of it, with the folder's reading
    /// held off until it ends: the book takes nudge's change as the user's, and the reading that the write's own
    /// inotify event brings finds nothing left to change.
    func holding<Value: Sendable>(_ listID: Int, _ body: () async throws -> Value) async throws -> Value {
        pending.state.withLock { pending in
            pending.held[listID, default: 0] += 1
            pending.writesBegun[listID, default: 0] += 1
        }
        defer {
            pending.state.withLock { pending in
                pending.held[listID, default: 1] -= 1
                if pending.held[listID] == 0 { pending.held[listID] = nil }
            }
            wake.yield()
        }
        return try await body()
    }

    /// How many writes to list `listID`'s folder have begun (`holding`): a reading taken while the count moved may
    /// hold a file from before a write, or after it.
    func writesBegun(_ listID: Int) -> Int {
        pending.state.withLock { $0.writesBegun[listID] ?? 0 }
    }

    /// Asks for list `listID`'s folder to be read in the next round: a reading was not taken for a write beside it.
    func readLater(listID: Int, folder: String) {
        pending.state.withLock { $0.readAgain[listID] = FolderRead(folder: folder, names: nil) }
        wake.yield()
    }

    /// Reads again the files the changes touched, each folder once however many of its files changed; `taken` is each
    /// list's reading the book took last, which the next reads only the changed files of.
    private func round(
        _ work: Pending,
        watched: inout [Int32: [Watched]],
        taken: inout [Int: VdirCollection],
        notifier: FolderNotifier
    ) async {
        var lists = work.readAgain
        var refollow = work.follow
        func read(_ listID: Int, _ folder: String, _ names: Set<String>?) { lists.read(listID, folder, names) }
        for change in work.changes {
            if change.overflowed {
                for entry in watched.values.joined() { read(entry.listID, entry.folder, nil) }
                refollow = true
                continue
            }
            if change.mountsChanged {
                // Each folder is looked at, not read: a partial reading of no file reads it whole if it is another
                // directory now (a disk mounted over it, or gone from under it), and a folder away is looked for.
                for entry in watched.values.joined() { read(entry.listID, entry.folder, entry.isParent ? nil : []) }
                refollow = true
                continue
            }
            for entry in watched[change.watch] ?? [] {
                if entry.isParent {
                    // The folder came back (made again, moved back, readable again): watch it, and read it.
                    guard change.name == (entry.folder as NSString).lastPathComponent else { continue }
                    refollow = true
                } else if change.folderGone {
                    refollow = true
                }
                read(entry.listID, entry.folder, entry.isParent ? nil : change.name.map { [$0] })
            }
        }
        repeat {
            if refollow {
                refollow = false
                for (listID, folder) in await rewatch(&watched, notifier: notifier) { read(listID, folder, nil) }
            }
            for (listID, request) in lists.sorted(by: { $0.key < $1.key }) {
                // A folder found gone on the way: its parent is watched instead, for its return.
                if await !rescan(listID: listID, request, taken: &taken) { refollow = true }
            }
            lists = [:]
        } while refollow
        // A list unlinked, or linked to another folder, or whose folder is gone: read whole when it is read next.
        taken = taken.filter { listID, collection in
            watched.values.joined().contains { $0.listID == listID && $0.folder == collection.folder && !$0.isParent }
        }
    }

    /// Makes the watches match the linked lists: each linked folder watched, or its parent while it cannot be, and
    /// nothing else. The lists whose folder is watched anew, to be read again.
    private func rewatch(_ watched: inout [Int32: [Watched]], notifier: FolderNotifier) async -> [Int: String] {
        guard
            let linked = try? await service.read({ book in
                book.library.lists.compactMap { list in list.link.map { (list.listID, $0.folder) } }
            })
        else { return [:] }
        let before = Set(watched.values.joined().filter { !$0.isParent }.map(\.listID))
        var wanted: [Int32: [Watched]] = [:]
        var anew: [Int: String] = [:]
        for (listID, folder) in linked {
            do {
                let watch = try notifier.watch(folder)
                wanted[watch, default: []].append(Watched(listID: listID, folder: folder, isParent: false))
                if !before.contains(listID) { anew[listID] = folder }
            } catch {
                let parent = (folder as NSString).deletingLastPathComponent
                guard let watch = try? notifier.watch(parent) else {
                    logger.warning("cannot watch \(folder) or its parent (\(error)); it is read when nudged starts")
                    continue
                }
                wanted[watch, default: []].append(Watched(listID: listID, folder: folder, isParent: true))
            }
        }
        for watch in watched.keys where wanted[watch] == nil { notifier.unwatch(watch) }
        watched = wanted
        return anew
    }

    /// Reads list `listID`'s folder as `request` asks (whole, or a few files again beside the reading the book took
    /// last, `taken`) and brings the list to it; false if the folder could not be listed.
    private func rescan(listID: Int, _ request: FolderRead, taken: inout [Int: VdirCollection]) async -> Bool {
        guard let (timeZone, zones) = try? await service.read({ book in (book.timeZone, book.zones) }) else {
            // Stopping: nothing more is read. Else the next reading is whole, for the files this one leaves out.
            taken[listID] = nil
            return true
        }
        let folder = request.folder
        let writesBefore = pending.state.withLock { $0.writesBegun[listID] }
        let collection = await LinkedFolders.collection(
            folder,
            again: request.names,
            of: taken[listID],
            timeZone: timeZone,
            zones: zones
        )
        let reading = LinkedFolders.Reading(listID: listID, folder: folder, contents: collection.map(\.contents))
        do {
            let (isTaken, newlySkipped) = try await service.write { [pending] book in
                // Asked in the loop's turn, where a write's taking is ordered: a write of nudge's under way
                // (`holding`), or one since the reading began, which may have seen the file before it or after. The
                // files are read again once the book has taken the write (its end wakes the next round); else the
                // book would take the folder as it was before the user's change, or take that change as the
                // folder's.
                let overlapped = pending.state.withLock { pending in
                    guard pending.held[listID] != nil || pending.writesBegun[listID] != writesBefore else {
                        return false
                    }
                    pending.readAgain.read(listID, folder, request.names)
                    return true
                }
                if overlapped { return ((false, [SkippedFile]()), ReminderBook.Outcome()) }
                let linkedHere = book.library.list(id: listID)?.link?.folder == folder
                // A reading of a few files is beside the one the book took: if the book has none now (its folder
                // unavailable since, or its store reloaded after a failed write), the folder is read whole, if the
                // list is still linked to it.
                if case .success(let read) = collection, read.readAnew != nil, !book.hasTakenFolder(of: listID),
                    linkedHere
                {
                    self.readLater(listID: listID, folder: folder)
                    return ((false, [SkippedFile]()), ReminderBook.Outcome())
                }
                let before = book.folderStates[listID]
                let outcome = book.apply([reading])
                let after = book.folderStates[listID]
                // Taken as the folder as it is: not passed over (linked elsewhere since), nor unavailable.
                var isTaken = linkedHere
                if case .read = after {} else { isTaken = false }
                return ((isTaken, Self.newlySkipped(before: before, after: after)), outcome)
            }
            LinkedFolders.log(newlySkipped, in: folder, logger: logger)
            // The next reading of a few files is beside this one, once the book has it (and its tasks); else it is
            // whole.
            taken[listID] = isTaken ? (try? collection.get())?.withoutTasks : nil
            if request.names == nil { await LinkedFolders.handBackFreeMemory() }
        } catch {
            logger.warning("cannot bring in the tasks of \(folder): \(error)")
            taken[listID] = nil
        }
        if case .failure = collection { return false }
        return true
    }

    /// The files skipped now that were not before, for the log: a file is said once, not at every change beside it.
    private static func newlySkipped(before: FolderState?, after: FolderState?) -> [SkippedFile] {
        guard case .read(let now, _, _) = after else { return [] }
        guard case .read(let earlier, _, _) = before else { return now }
        return now.filter { !earlier.contains($0) }
    }
}

extension [Int: FolderWatcher.FolderRead] {
    /// Asks for the files `names` of list `listID`'s `folder` to be read (nil: the whole folder), with what is asked
    /// already; the whole folder, if what is asked is of another folder (the list linked elsewhere since).
    fileprivate mutating func read(_ listID: Int, _ folder: String, _ names: Set<String>?) {
        guard let asked = self[listID], asked.folder == folder else {
            self[listID] = FolderWatcher.FolderRead(folder: folder, names: self[listID] == nil ? names : nil)
            return
        }
        guard let more = names, let known = asked.names else {
            self[listID] = FolderWatcher.FolderRead(folder: folder, names: nil)
            return
        }
        self[listID] = FolderWatcher.FolderRead(folder: folder, names: known.union(more))
    }
}
