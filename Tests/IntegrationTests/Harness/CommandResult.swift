import Foundation
import Synchronization
import Testing

/// What a finished command printed and returned.
struct CommandResult: Sendable, CustomStringConvertible {
    var status: Int32
    var output: Data
    var stderr: String
    var stdout: String { String(decoding: output, as: UTF8.self) }

    var description: String { "exit status \(status), stdout: \(stdout.prefix(2000)), stderr: \(stderr.prefix(2000))" }
}
