import NudgeDaemon

/// The executable is thin: everything, `--help` included, lives in NudgeDaemon's `NudgedCommand`.
@main
enum Nudged {
    static func main() async {
        await NudgedCommand.main()
    }
}
