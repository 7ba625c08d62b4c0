import Foundation
import Glibc
import Logging
import NudgeSystem
import SystemPackage

/// The socket's directory must be ours alone: it is created 0700; one of nudge's own that others can enter is made
/// 0700 again (and the log says so); any other that someone else owns or others can enter is refused rather than used.
enum SocketDirectory {
    static func prepare(for socket: String, logger: Logger) throws {
        let directory = (socket as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw DaemonError.socket("cannot create the socket directory \(directory): \(error.localizedDescription)")
        }
        // The fallback under /tmp (nudge-$UID) belongs to whoever made it first: it must be ours, and nobody else may
        // add or rename entries in it, or they could put a directory of theirs in place of the socket's.
        let parent = (directory as NSString).deletingLastPathComponent
        if (parent as NSString).lastPathComponent == "nudge-\(SystemCall.userID())" {
            let owner = try inspect(parent)
            guard owner.st_uid == SystemCall.userID(), owner.st_mode & 0o022 == 0 else {
                throw DaemonError.socket(
                    "\(parent) is not yours alone (owner uid \(owner.st_uid), mode "
                        + "\(String(owner.st_mode & 0o7777, radix: 8))): someone else could take over the socket; "
                        + "remove it, or set XDG_RUNTIME_DIR"
                )
            }
        }
        let info = try inspect(directory)
        guard (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == SystemCall.userID() else {
            throw DaemonError.socket(
                "the socket directory \(directory) is not a directory owned by uid \(SystemCall.userID()); "
                    + "remove it or choose another --socket"
            )
        }
        guard info.st_mode & 0o077 != 0 else { return }
        guard PrivateMode.isNudgeDirectory(directory) else {
            throw DaemonError.socket(
                "the socket directory \(directory) is open to others "
                    + "(mode \(String(info.st_mode & 0o7777, radix: 8))); "
                    + "choose a --socket in a directory only you can enter, such as $XDG_RUNTIME_DIR/nudge"
            )
        }
        do {
            if let was = try PrivateMode.tighten(directory, to: 0o700) {
                logger.notice("made \(directory) private: its mode was \(String(was, radix: 8)), now 700")
            }
        } catch {
            throw DaemonError.socket("cannot make the socket directory \(directory) private (chmod 0700): \(error)")
        }
    }

    private static func inspect(_ path: String) throws -> stat {
        var info = stat()
        do {
            _ = try SystemCall.valueOrErrno { lstat(path, &info) }
        } catch {
            throw DaemonError.socket("cannot inspect the socket directory \(path): \(error)")
        }
        return info
    }

    /// A socket file left by a nudged that died is removed; one that still answers belongs to a live nudged.
    static func removeStaleSocket(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if isListening(path) {
            throw DaemonError.socket(
                "another nudged is already serving \(path); stop it, or start this one with another --socket"
            )
        }
        do {
            try SystemCall.unlink(path)
        } catch  where error != .noSuchFileOrDirectory {
            throw DaemonError.socket("cannot remove the stale socket \(path): \(error)")
        } catch {
            // Gone already: what we wanted.
        }
    }

    private static func isListening(_ path: String) -> Bool {
        guard let address = UnixSocketAddress(path),
            let descriptor = try? SystemCall.valueOrErrno({
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            })
        else { return false }
        defer { try? FileDescriptor(rawValue: descriptor).close() }
        return (try? SystemCall.valueOrErrno { address.withSockaddr { connect(descriptor, $0, $1) } }) != nil
    }
}
