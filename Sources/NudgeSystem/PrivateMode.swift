import Glibc
import SystemPackage

/// nudged's files are the user's alone: the store 0600 and nudge's directories 0700, whatever made them looser.
public enum PrivateMode {
    /// Narrows `path`'s mode to `mode` when it allows more, if this user owns it; returns the mode it had, or nil
    /// when nothing changed (already private, someone else's, a symbolic link, or not there). The file is opened
    /// without following a link and changed through that descriptor, so a link swapped in meanwhile changes nothing.
    public static func tighten(_ path: String, to mode: mode_t) throws(Errno) -> mode_t? {
        let descriptor: FileDescriptor
        do {
            // Non-blocking, so that a FIFO at the path cannot hang the open.
            descriptor = try SystemCall.typed {
                try FileDescriptor.open(FilePath(path), .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
            }
        } catch {
            if error == .noSuchFileOrDirectory || error == .tooManySymbolicLinkLevels { return nil }
            throw error
        }
        // Opened read-only: a failed close cannot lose anything.
        defer { try? descriptor.close() }
        let status = try SystemCall.typed { try descriptor.stat() }.rawValue
        let current = status.st_mode & 0o7777
        guard current & ~mode != 0, status.st_uid == SystemCall.userID() else { return nil }
        try SystemCall.fchmod(descriptor, FilePermissions(rawValue: mode))
        return current
    }

    /// Whether a directory is one of nudge's own, which nudged may tighten: `nudge` (`$XDG_DATA_HOME/nudge`,
    /// `$XDG_RUNTIME_DIR/nudge`) or `nudge-$UID` (the fallback under /tmp). Other directories a user points it at
    /// (`/tmp`, a shared folder) are theirs to set.
    public static func isNudgeDirectory(_ path: String) -> Bool {
        let name = FilePath(path).lastComponent?.string
        return name == "nudge" || name == "nudge-\(SystemCall.userID())"
    }
}
