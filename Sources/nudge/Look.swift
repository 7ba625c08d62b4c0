import Foundation
import NudgeAPI
import NudgeCore

/// How human output looks: times in the local zone, relative to nudged's clock (the manual one, when it runs on one),
/// and the terminal it goes to (colour, width).
struct Look: Sendable {
    var time = LocalTimeFormat()
    var terminal = Terminal.plain

    var now: Date { time.now }
}
