import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes

/// `done`, `undone` and `rm` take several IDs: each is changed in turn and reported on a line of its own. An item
/// nudged refuses (an unknown ID, say) is reported on stderr and the rest still go ahead; the command then exits 1.
/// Not reaching nudged stops at once (exit 3).
///
/// `--json` prints what changed: for one ID the answer alone, as before; for several, one array holding, in order,
/// each answer or the daemon's error document for an ID it refused.
struct EachItem: ParsableArguments {
    /// One ID at least: ArgumentParser refuses the command without one (exit 2).
    @Argument(help: "The items' IDs, as 'nudge ls' shows them ('nudge ls --all' for checked-off ones).")
    var ids: [Int]

    @OptionGroup var global: GlobalOptions

    /// Changes each item, showing it as it is after (`done`, `undone`, `ack`): as `ls` shows it, with its list.
    func changeShowingItems(
        _ operation: @escaping @Sendable (DaemonClient, Int) async throws(CLIError) -> Components.Schemas.Item
    ) async throws {
        try await change(line: { Render.itemSummary($0, look: $1) }, operation)
    }

    /// `line` shows an answer against nudged's clock, which may be a manual one (asked only when it `showsTime`).
    func change<Answer: Encodable & Sendable>(
        line: (Answer, Look) -> String,
        showsTime: Bool = true,
        _ operation: @escaping @Sendable (DaemonClient, Int) async throws(CLIError) -> Answer
    ) async throws {
        var refused = 0
        var array = Output.JSONArray()
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let look = global.json || !showsTime ? Look() : global.look(now: try await client.now())
            guard ids.count > 1 else {
                let answer = try await operation(client, ids[0])
                return global.json ? Output.json(answer) : Output.line(line(answer, look))
            }
            for id in ids {
                do {
                    let answer = try await operation(client, id)
                    if global.json { array.append([answer]) } else { Output.line(line(answer, look)) }
                } catch let error as CLIError where error.exitCode.rawValue == 1 {
                    refused += 1
                    Output.error("item \(id): \(error.message)")
                    if global.json, let document = error.json { array.append(raw: document) }
                }
            }
            if global.json { array.finish() }
        }
        if refused > 0 {
            throw CLIError.refused("\(refused) of \(ids.count) items were not changed (said above)", json: nil)
        }
    }
}
