import Glibc
import SystemPackage

/// nudged's files are the user's alone: the store 0600 and nudge's directories 0700, whatever made them looser.
public enum PrivateMode {
    /// Narrows `path`'s mode to `mode` when it allows more, if this user owns it; returns the mode it had, or nil
    /// when nothing changed (already private, someone else's, or not there).
    public static func tighten(_ path: String, to mode: mode_t) throws(Errno) -> mode_t? {
        var info = stat()
        do {
            _ = try SystemCall.valueOrErrno { lstat(path, &info) }
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw error
        }
        let current = info.st_mode & 0o7777
        guard current & ~mode != 0, info.st_uid == getuid(), info.st_mode & S_IFMT != S_IFLNK else { return nil }
        _ = try SystemCall.valueOrErrno { chmod(path, mode) }
        return current
    }

    /// Whether a directory is one of nudge's own (`…/nudge`, `/tmp/nudge-$UID`), which nudged may tighten; other
    /// directories a user points it at (`/tmp`, a shared folder) are theirs to set.
    public static func isNudgeDirectory(_ path: String) -> Bool {
        FilePath(path).lastComponent?.string.hasPrefix("nudge") ?? false
    }
}
