import NudgeDaemon

/// The executable is thin: everything, `--help` included, lives in NudgeDaemon's `NudgedCommand`. `main` is
/// synchronous on purpose: see `NudgedCommand.mainOnEventLoops()`.
@main
enum Nudged {
    static func main() {
        NudgedCommand.mainOnEventLoops()
    }
}
