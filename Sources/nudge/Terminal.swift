import ArgumentParser
import CLinux
import Foundation
import NudgeCore
import NudgeSystem

/// Where human output goes, and so how it may look: colour, and the width to fit. Output to a pipe or a file is
/// plain, and cut only when `COLUMNS` asks, so scripts read whole lines.
struct Terminal: Sendable {
    /// ANSI colour and weight.
    var colour: Bool
    /// The width to fit lines to, in columns; nil for no limit.
    var columns: Int?

    static let plain = Terminal(colour: false, columns: nil)

    enum ColourChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
        case auto, always, never
    }

    /// Standard output as it is now. Colour: `always` and `never` as asked; `auto` when standard output is a
    /// terminal, `NO_COLOR` is unset or empty (https://no-color.org) and `TERM` is not `dumb`. Width: the
    /// terminal's, else `COLUMNS` when it is a positive number, else none.
    static func standardOutput(colour choice: ColourChoice) -> Terminal {
        let environment = ProcessInfo.processInfo.environment
        let isTerminal = SystemCall.isTerminal(.standardOutput)
        let colour: Bool
        switch choice {
        case .always: colour = true
        case .never: colour = false
        case .auto:
            colour = isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
        var columns = isTerminal ? Int(nudge_terminal_columns(STDOUT_FILENO)) : 0
        if columns <= 0 { columns = environment["COLUMNS"].flatMap { Int($0) } ?? 0 }
        return Terminal(colour: colour, columns: columns > 0 ? columns : nil)
    }

    enum Style: String, Sendable {
        case plain = ""
        case bold = "1"
        case dim = "2"
        case red = "31"
        case yellow = "33"
        case cyan = "36"
    }

    /// `text` in `style`, when colour is on.
    func styled(_ text: String, _ style: Style) -> String {
        guard colour, style != .plain, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }
}
