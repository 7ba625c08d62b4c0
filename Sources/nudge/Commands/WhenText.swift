import ArgumentParser
import Foundation
import NudgeAPI
import NudgeCore

/// WHEN as given on the command line, read against the time nudged goes by: on a manual clock, "in 1h" and
/// "tomorrow 9am" mean an hour after its now and the day after its today, not the machine's.
struct WhenText: Sendable {
    let text: String

    func date(now: Date) throws(CLIError) -> Date {
        do throws(ModelError) {
            return try TimeInput(now: now, timeZone: .current).parse(text)
        } catch {
            throw CLIError.usage("\"\(text)\": \(error.description)")
        }
    }

    /// As a due date: a day named without a time stays a day (`fri`, `dec 1`).
    func due(now: Date) throws(CLIError) -> TimeInput.Due {
        do throws(ModelError) {
            return try TimeInput(now: now, timeZone: .current).parseDue(text)
        } catch {
            throw CLIError.usage("\"\(text)\": \(error.description)")
        }
    }
}
