import Foundation
import Logging
import NudgeSinks

/// Which sinks nudged delivers to, and why any other is off. `--sinks` names them; without it the default is the
/// journal, the desktop when a D-Bus session bus exists, the command when `--on-fire` gives one, and the log when
/// nudged runs on a terminal with no desktop, so a person running it in the foreground sees each reminder.
struct SinkSelection {
    enum Kind: String, CaseIterable {
        case journal, desktop, command, log
    }

    private(set) var sinks: [any ReminderSink] = []
    /// The desktop sink, when on: the daemon also hears from it what the user did with a notification.
    private(set) var desktop: DesktopSink?
    /// One phrase per sink that is off: `desktop (not requested)`.
    private(set) var off: [String] = []
    /// Sinks asked for by name that cannot run here, said as a warning each.
    private(set) var warnings: [String] = []

    /// The sink a word names (`journal`), or nil.
    static func kind(_ word: String) -> Kind? {
        Kind(rawValue: word.trimmingCharacters(in: .whitespaces))
    }

    init(
        requested: [Kind]?,
        onFire: [String],
        onFireTimeout: Duration,
        snoozeLength: TimeInterval,
        shownFile: String?,
        environment: [String: String],
        onTerminal: Bool,
        logger: Logger
    ) {
        let desktopMissing = Self.whyNoDesktop(environment: environment)
        var wanted = requested.map(Set.init) ?? [.journal, .desktop, .command]
        // Without journald the journal sink already writes each event to stderr; the log sink would repeat it.
        let journalShowsEvents = !FileManager.default.fileExists(atPath: JournalSink.socketPath)
        let logForTerminal = requested == nil && onTerminal && desktopMissing != nil && !journalShowsEvents
        if logForTerminal { wanted.insert(.log) }
        for kind in Kind.allCases {
            guard wanted.contains(kind) else {
                off.append("\(kind.rawValue) (not requested)")
                continue
            }
            switch kind {
            case .journal:
                sinks.append(JournalSink(logger: logger))
            case .desktop:
                if let missing = desktopMissing {
                    // The reason is said once, in the warning; the summary only points at it.
                    off.append("desktop (see the warning above)")
                    warnings.append(
                        "the desktop sink is off: \(missing)"
                            + (logForTerminal ? "; each reminder is shown here instead, by the log sink" : "")
                    )
                } else {
                    let desktop = DesktopSink(
                        server: NotificationBus(),
                        shownFile: shownFile,
                        snoozeLength: snoozeLength,
                        logger: logger
                    )
                    self.desktop = desktop
                    sinks.append(desktop)
                }
            case .command:
                if onFire.isEmpty {
                    off.append("command (no --on-fire)")
                } else {
                    sinks.append(CommandSink(program: onFire, timeout: onFireTimeout, logger: logger))
                }
            case .log:
                sinks.append(LogSink(logger: logger))
            }
        }
    }

    /// The start-up line: `sinks: journal, desktop; off: command (no --on-fire), log (not requested)`.
    var summary: String {
        let names = sinks.isEmpty ? "none" : sinks.map(\.name).joined(separator: ", ")
        return "sinks: \(names)" + (off.isEmpty ? "" : "; off: " + off.joined(separator: ", "))
    }

    /// Why desktop notifications cannot work here, or nil if they can. sd-bus finds the session bus in
    /// DBUS_SESSION_BUS_ADDRESS, else at $XDG_RUNTIME_DIR/bus.
    static func whyNoDesktop(environment: [String: String]) -> String? {
        let address = environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        let runtimeBus = environment["XDG_RUNTIME_DIR"].map { $0 + "/bus" }
        if address.isEmpty && !(runtimeBus.map(FileManager.default.fileExists(atPath:)) ?? false) {
            return "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset"
                + (runtimeBus.map { " and \($0) does not exist" } ?? " and XDG_RUNTIME_DIR is unset")
        }
        return nil
    }
}
