import Foundation
import NudgeSystem

/// Where nudged keeps its store and its socket (DESIGN §5): a flag wins, then `NUDGE_STORE` / `NUDGE_SOCKET`,
/// then the XDG defaults. nudged and nudge compute the socket the same way, so they meet without configuration.
public struct ServicePaths: Sendable, Equatable {
    public var store: String
    public var socket: String
    /// How the socket's directory was chosen, for the start-up log line.
    public var runtimeDirectoryReason: String

    /// Beside the socket, in nudged's runtime directory, named after it (`nudged.notifications.json`), so daemons
    /// whose sockets share a directory keep theirs apart: which desktop notification shows which item, kept across a
    /// restart of nudged (not of the machine, or the session).
    public var notificationsFile: String {
        (socket as NSString).deletingPathExtension + ".notifications.json"
    }

    /// - Parameters:
    ///   - environment: the process environment (injected for tests).
    ///   - uid: the real user ID.
    ///   - directoryExists: whether a directory exists (injected for tests).
    public init(
        storeFlag: String? = nil,
        socketFlag: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        uid: UInt32 = SystemCall.userID(),
        directoryExists: (String) -> Bool = ServicePaths.directoryExists
    ) {
        let (runtime, reason) = Self.runtimeDirectory(environment: environment, uid: uid, directoryExists)
        runtimeDirectoryReason = reason
        if let socketFlag {
            socket = socketFlag
            runtimeDirectoryReason = "--socket"
        } else if let socketVariable = environment["NUDGE_SOCKET"], !socketVariable.isEmpty {
            socket = socketVariable
            runtimeDirectoryReason = "NUDGE_SOCKET"
        } else {
            socket = runtime + "/nudge/nudged.sock"
        }
        if let storeFlag {
            store = storeFlag
        } else if let storeVariable = environment["NUDGE_STORE"], !storeVariable.isEmpty {
            store = storeVariable
        } else {
            store = Self.dataHome(environment: environment) + "/nudge/Checklists.plist"
        }
    }

    /// The runtime directory the socket goes under (as `<dir>/nudge/nudged.sock`): `$XDG_RUNTIME_DIR`; without it
    /// (root over ssh, containers) `/run/user/$UID` if it exists, else `/tmp/nudge-$UID`. nudged creates the
    /// socket's directory 0700 and refuses one that someone else owns.
    static func runtimeDirectory(
        environment: [String: String],
        uid: UInt32,
        _ directoryExists: (String) -> Bool
    ) -> (path: String, reason: String) {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return (runtime, "XDG_RUNTIME_DIR")
        }
        let perUser = "/run/user/\(uid)"
        if directoryExists(perUser) { return (perUser, "XDG_RUNTIME_DIR is unset; \(perUser) exists") }
        return ("/tmp/nudge-\(uid)", "XDG_RUNTIME_DIR is unset and \(perUser) does not exist")
    }

    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    static func dataHome(environment: [String: String]) -> String {
        if let dataHome = environment["XDG_DATA_HOME"], !dataHome.isEmpty { return dataHome }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share"
    }

    public static func directoryExists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
