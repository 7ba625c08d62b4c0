import Foundation
import Logging
import NudgeCore
import Synchronization
import Testing

@testable import NudgeSinks

@Suite struct OneLineLogHandlerTests {
    /// Keeps what reaches it.
    struct Capture: LogHandler {
        final class Events: Sendable {
            let recorded = Mutex<[LogEvent]>([])
        }
        let events = Events()
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            events.recorded.withLock { $0.append(event) }
        }
    }

    @Test func loggersMadeWithASharedLevelAllFollowItsChanges() {
        let level = SharedLogLevel(.info)
        let first = Logger(label: "a") { _ in OneLineLogHandler(SwiftLogNoOpLogHandler(), level: level) }
        let second = Logger(label: "b") { _ in OneLineLogHandler(SwiftLogNoOpLogHandler(), level: level) }
        #expect(first.logLevel == .info && second.logLevel == .info)
        level.level = .debug
        #expect(first.logLevel == .debug && second.logLevel == .debug)
        var third = second
        third.logLevel = .error
        #expect(first.logLevel == .error && level.level == .error)
    }

    @Test func anItemsTextCannotStartALineOrReachTheTerminalThroughTheLogSink() async {
        let capture = Capture()
        let sink = LogSink(logger: Logger(label: "test") { _ in OneLineLogHandler(capture) })
        let forged = "milk\nnudged: fake line\r\u{1B}[2J\u{7F}\u{85}\u{2028}\tend"
        await sink.deliver(
            Delivery(
                reminder: Reminder(itemID: 3, text: forged, listName: "List\n2", due: Date(timeIntervalSince1970: 0)),
                firedAt: Date(timeIntervalSince1970: 0),
                lateBy: 0
            )
        )
        let event = capture.events.recorded.withLock { $0.first }
        let message = event?.message.description ?? ""
        #expect(message == #"reminder: milk\nnudged: fake line\r\u{1B}[2J\u{7F}\u{85}\u{2028}\tend"#)
        #expect(event?.metadata?["list"]?.description == #"List\n2"#)
        #expect(event?.metadata?["item"]?.description == "3")
        #expect("café ☕ 日本 \\ \"".escapingControlCharacters() == "café ☕ 日本 \\ \"", "printable text must stay as it is")
    }
}
