import NIOCore
import NudgeStore

/// Why nudged could not start or had to stop: one sentence, and the exit status it ends with (`nudged --help`).
struct DaemonError: Error, CustomStringConvertible {
    enum Code: Int32 {
        case failure = 1
        case store = 3
        case socket = 4
        /// A bad flag, as ArgumentParser's own refusals.
        case usage = 64
        /// A bad setting in the environment or the config file (sysexits' EX_CONFIG).
        case configuration = 78
    }

    let code: Code
    let description: String

    static func socket(_ sentence: String) -> DaemonError {
        DaemonError(code: .socket, description: sentence)
    }

    static func configuration(_ sentence: String) -> DaemonError {
        DaemonError(code: .configuration, description: sentence)
    }

    /// Whatever ended a run, with its status: a store that cannot be used is the store's; the rest is a failure.
    static func from(_ error: any Error) -> DaemonError {
        switch error {
        case let error as DaemonError: error
        case let error as StoreError: DaemonError(code: .store, description: error.description)
        // What binding the API's socket can raise.
        case let error as IOError: DaemonError(code: .socket, description: "cannot serve the socket: \(error)")
        case let error as SocketAddressError:
            DaemonError(code: .socket, description: "cannot serve the socket: \(error)")
        default: DaemonError(code: .failure, description: "\(error)")
        }
    }
}
