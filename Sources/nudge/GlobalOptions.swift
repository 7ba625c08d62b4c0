import ArgumentParser
import NudgeAPI

/// The options every command that talks to the daemon takes: where its socket is, and whether to print JSON.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The Unix socket nudged listens on.",
            discussion: """
                Default: $NUDGE_SOCKET, else $XDG_RUNTIME_DIR/nudge/nudged.sock; with XDG_RUNTIME_DIR unset, \
                /run/user/<uid>/nudge/nudged.sock if /run/user/<uid> exists, else /tmp/nudge-<uid>/nudge/nudged.sock \
                (the same place nudged chooses).
                """,
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON answer instead of text, for scripts.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Colour the output: auto, always or never.",
            discussion: """
                auto (the default) colours output to a terminal, unless NO_COLOR is set to anything or TERM is dumb. \
                Lines are cut to the terminal's width, or to $COLUMNS when it is set; output to a pipe or file \
                without COLUMNS is never cut.
                """,
            valueName: "when"
        )
    )
    var color: Terminal.ColourChoice = .auto

    mutating func validate() throws {
        if socket?.isEmpty == true {
            throw ValidationError("--socket needs a path")
        }
    }

    /// The socket to connect to: `--socket`, else `NUDGE_SOCKET`, else the XDG default, as nudged computes it.
    var socketPath: String {
        ServicePaths(socketFlag: socket).socket
    }
}
