import NudgeSinks
import Synchronization

/// A ProcessRunner that records each command and answers from a script: for unit tests of the sinks.
final class FakeRunner: ProcessRunner {
    private let state = Mutex<(commands: [ProcessCommand], answers: [ProcessOutcome])>(([], []))

    init(answers: [ProcessOutcome] = []) {
        state.withLock { $0.answers = answers }
    }

    var commands: [ProcessCommand] { state.withLock { $0.commands } }

    func run(_ command: ProcessCommand) async -> ProcessOutcome {
        state.withLock { state in
            state.commands.append(command)
            return state.answers.isEmpty ? .exited(0) : state.answers.removeFirst()
        }
    }
}
