import ArgumentParser
import NudgeAPI

/// A command that talks to the daemon; `main()` reads its options to print an error's JSON under `--json`.
protocol DaemonCommand: AsyncParsableCommand {
    var global: GlobalOptions { get }
}
