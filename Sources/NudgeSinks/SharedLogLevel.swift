import Logging
import NudgeCore
import Synchronization

/// A log level held once for many loggers: loggers are values, copied into every part of nudged, and a reload
/// changes the level of all of them.
public final class SharedLogLevel: Sendable {
    private let current: Mutex<Logger.Level>

    public init(_ level: Logger.Level) {
        current = Mutex(level)
    }

    public var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
