import Logging
import NudgeCore
import Synchronization

/// Keeps every log record on one line whatever it quotes: control characters in the message and the metadata (an
/// item's text may hold newlines or terminal escape sequences) are written escaped, as `\n` or `\u{1B}`, so nobody
/// can forge a log line or drive a terminal through nudged's log. Wraps the handler that writes.
public struct OneLineLogHandler: LogHandler {
    private var wrapped: any LogHandler
    private let sharedLevel: SharedLogLevel?

    /// With `level`, every logger made with it logs at that level, which a reload of nudged's settings may change.
    public init(_ wrapped: any LogHandler, level: SharedLogLevel? = nil) {
        self.wrapped = wrapped
        self.sharedLevel = level
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    public var logLevel: Logger.Level {
        get { sharedLevel?.level ?? wrapped.logLevel }
        set {
            if let sharedLevel { sharedLevel.level = newValue } else { wrapped.logLevel = newValue }
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(event.message.description.escapingControlCharacters())"
        event.metadata = event.metadata?.mapValues(Self.escaped)
        wrapped.log(event: event)
    }

    private static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(text.escapingControlCharacters())
        case .stringConvertible(let value): .string(value.description.escapingControlCharacters())
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values): .dictionary(values.mapValues(escaped))
        }
    }
}
