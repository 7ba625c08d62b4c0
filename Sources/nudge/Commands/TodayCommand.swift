import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge today`: GET /v1/digest.
struct TodayCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "List the items due today without a time, and those overdue.",
        discussion: """
            An item given a day and no time (nudge add "pay the rent" --due fri) is due all that day. This lists \
            those that remind (not those added with --no-remind) due today and those still open from an earlier \
            day, oldest first, as nudged's clock and zone have it: what the daily digest says. Items due at a time \
            are in 'nudge pending' and 'nudge ls'.
            """
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let digest = try await client.call { try await $0.getDigest(query: .init()).ok.body.json }
            if global.json { return Output.json(digest) }
            Output.lines(Render.digest(digest, look: global.look(now: try await client.now())))
        }
    }
}
