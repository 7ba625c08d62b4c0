import CLinux
import Foundation
import Synchronization
import SystemPackage

/// Linux's inotify for folders: the kernel says when an entry of a watched folder is created, written, renamed or
/// removed, or the folder itself goes. A thread of its own waits in `poll` on the inotify descriptor and a wake-up
/// eventfd, which costs nothing while nothing changes: no polling, no timer, so an idle nudged stays asleep.
public final class FolderNotifier: Sendable {
    /// What the kernel said of one watched folder.
    public struct Change: Sendable, Equatable {
        /// The watch (`watch(_:)`) it is about; -1 for a queue overflow, which is about every watch.
        public let watch: Int32
        /// The entry that changed; nil for the folder itself.
        public let name: String?
        /// The kernel's queue overflowed: changes were lost, and every watched folder must be read again whole.
        public let overflowed: Bool
        /// The folder itself was removed or moved away (its watch is gone, or follows it elsewhere).
        public let folderGone: Bool
        /// A file system was mounted or unmounted somewhere, which no watch hears: a folder mounted over is another
        /// directory, to be watched and read anew.
        public let mountsChanged: Bool

        public init(watch: Int32, name: String?, overflowed: Bool, folderGone: Bool, mountsChanged: Bool = false) {
            self.watch = watch
            self.name = name
            self.overflowed = overflowed
            self.folderGone = folderGone
            self.mountsChanged = mountsChanged
        }
    }

    private let inotify: Int32
    private let wakeFD: Int32
    private let stopped = Atomic<Bool>(false)

    /// What a watch asks of the kernel: entries made, written whole, renamed in or out, removed, or changed in their
    /// mode or times (a file made readable, a folder made enterable again), and the folder itself removed or moved;
    /// only directories.
    static let events =
        UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_ATTRIB)
        | UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// Starts the thread, which calls `onChanges` with what each read of the kernel's queue gives, in order, until
    /// `stop()`.
    public init(onChanges: @escaping @Sendable ([Change]) -> Void) throws(Errno) {
        inotify = try SystemCall.valueOrErrno { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
        do {
            wakeFD = try SystemCall.valueOrErrno { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        } catch {
            _ = Glibc.close(inotify)
            throw error
        }
        let (inotify, wakeFD) = (self.inotify, self.wakeFD)
        startThread(named: "nudge-folders") {
            Self.run(inotify: inotify, wakeFD: wakeFD, onChanges: onChanges)
        }
    }

    /// The descriptors are closed only here, once nothing can use them: the thread may have ended on its own (a
    /// failed read), and a `stop()` after that must not write to a number reused since.
    deinit {
        _ = Glibc.close(inotify)
        _ = Glibc.close(wakeFD)
    }

    /// Watches `folder`; the watch number its changes carry. Watching a folder watched already gives its number again.
    public func watch(_ folder: String) throws(Errno) -> Int32 {
        guard !stopped.load(ordering: .acquiring) else { throw .badFileDescriptor }
        return try SystemCall.valueOrErrno { inotify_add_watch(inotify, folder, Self.events) }
    }

    /// Ends watch `watch` (one already gone with its folder is no error).
    public func unwatch(_ watch: Int32) {
        guard !stopped.load(ordering: .acquiring) else { return }
        _ = inotify_rm_watch(inotify, watch)
    }

    /// Ends the thread; no change is reported after it returns from what it is reporting.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? SystemCall.signalEvent(FileDescriptor(rawValue: wakeFD))
    }

    private static func run(inotify: Int32, wakeFD: Int32, onChanges: @Sendable ([Change]) -> Void) {
        // Room for many events at once; one is at most 16 bytes and a name of NAME_MAX + 1.
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // The kernel wakes a poll of the mount table with POLLPRI when it changes (proc(5)), and that poll takes the
        // change: no read is needed, nothing is polled on a timer. Without it (no /proc), mounts go unheard.
        let mounts = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        defer { if mounts >= 0 { _ = Glibc.close(mounts) } }
        while true {
            var descriptors = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0),
            ]
            guard (try? SystemCall.poll(&descriptors, milliseconds: -1)) != nil else { return }
            if descriptors[1].revents != 0 { return }
            if descriptors[2].revents != 0 {
                onChanges([Change(watch: -1, name: nil, overflowed: false, folderGone: false, mountsChanged: true)])
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0, errno == EAGAIN || errno == EINTR { continue }
                return
            }
            onChanges(changes(in: buffer[..<count]))
        }
    }

    /// The events a read gave, in order.
    static func changes(in bytes: ArraySlice<UInt8>) -> [Change] {
        var changes: [Change] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let event = bytes[offset..<offset + header].withUnsafeBytes { $0.loadUnaligned(as: inotify_event.self) }
            let nameStart = offset + header
            let nameEnd = min(nameStart + Int(event.len), bytes.endIndex)
            // The name is padded with NULs to its length.
            let name = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            let mask = event.mask
            changes.append(
                Change(
                    watch: event.wd,
                    name: name.isEmpty ? nil : String(decoding: name, as: UTF8.self),
                    overflowed: mask & UInt32(IN_Q_OVERFLOW) != 0,
                    folderGone: mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0
                )
            )
            offset = nameEnd
        }
        return changes
    }
}
