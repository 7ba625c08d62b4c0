import Logging
import Synchronization

/// Keeps log messages in memory (swift-log's testing advice: never bootstrap the global system in tests).
package final class LogCapture: LogHandler, Sendable {
    private let lines = Mutex<[String]>([])
    package init() {}

    package var messages: [String] { lines.withLock { $0 } }

    package func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.message)") }
    }

    package subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
    package var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    package var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
}
