import ArgumentParser
import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `nudge batch FILE`: POST /v1/batch with the operations of a file, or of standard input.
struct BatchCommand: DaemonCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Apply many operations at once, in order: adds, edits, snoozes, removals and clock moves.",
        discussion: """
            The operations are those of POST /v1/batch (GET /v1/openapi.yaml describes them), as a JSON array, as \
            its body {"operations": [...]}, or one a line (JSON Lines). nudged applies them in order with nothing \
            else between them, and saves them in a few grouped records: on a manual clock, a script drives a month \
            of edits and clock moves in a moment. Each operation's answer prints on a line of its own.

            A batch is not a transaction: the first operation nudged refuses stops it, those before it stay \
            applied (their answers print first), and the command exits 1. One file holds at most 10,000 \
            operations and 1 MiB; split a longer script (split -l 5000).

              {"op": "add", "item": {"text": "tea", "dueDate": "2027-01-01T09:00:00Z"}}
              {"op": "edit", "itemID": 1, "patch": {"dueDate": "2027-01-01T10:00:00Z"}}
              {"op": "snooze", "itemID": 1, "snooze": {"for": "PT10M"}}
              {"op": "clock", "move": {"advance": "PT2H"}}
              {"op": "remove", "itemID": 1}

              nudge batch script.jsonl
              generate-edits | nudge batch -
            """
    )

    @Argument(help: ArgumentHelp("The operations' file; - reads standard input.", valueName: "file"))
    var file: String

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let operations = try Self.operations(
            in: try SharedArguments.input(file),
            from: file == "-" ? "standard input" : file
        )
        try await DaemonClient.withConnection(to: global.socketPath) { client in
            let report: Components.Schemas.BatchReport
            do throws(CLIError) {
                report = try await client.call {
                    try await $0.runBatch(body: .json(.init(operations: operations))).ok.body.json
                }
            } catch {
                // What was applied before the refused operation is in the error; show it, then the error.
                if !global.json, let document = error.json,
                    let refused = try? JSONDecoder().decode(Components.Schemas.ErrorBody.self, from: document)
                {
                    let look = global.look(now: try await client.now())
                    Output.lines(Self.lines(refused.error.applied ?? [], of: operations, look: look))
                }
                throw error
            }
            if global.json { return Output.json(report) }
            let look = global.look(now: try await client.now())
            Output.lines(Self.lines(report.results, of: operations, look: look))
        }
    }

    /// The operations `data` holds: a JSON array of them, the API's `{"operations": [...]}`, or one a line.
    static func operations(in data: Data, from source: String) throws(CLIError) -> [Components.Schemas.BatchOperation] {
        let decoder = JSONDecoder()
        let operations: [Components.Schemas.BatchOperation]
        do {
            switch try? JSONSerialization.jsonObject(with: data) {
            case is [Any]:
                operations = try decoder.decode([Components.Schemas.BatchOperation].self, from: data)
            case let object as [String: Any] where object["operations"] != nil:
                operations = try decoder.decode(Components.Schemas.Batch.self, from: data).operations
            default:
                operations = try data.split(separator: UInt8(ascii: "\n")).enumerated().compactMap { index, line in
                    guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { return nil }
                    do {
                        return try decoder.decode(Components.Schemas.BatchOperation.self, from: Data(line))
                    } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                        throw CLIError.usage("\(source) line \(index + 1) is not JSON")
                    } catch let error as DecodingError {
                        throw CLIError.usage("\(source) line \(index + 1): \(APICoding.describe(error))")
                    }
                }
            }
        } catch let error as CLIError {
            throw error
        } catch let error as DecodingError {
            throw .usage("\(source): \(APICoding.describe(error))")
        } catch {
            throw .usage("\(source): \(error)")
        }
        guard !operations.isEmpty else { throw .usage("\(source) holds no operation") }
        let limit = APILimits.maximumBatchOperations
        guard operations.count <= limit else {
            throw .usage("\(source) holds \(operations.count) operations, and a batch is at most \(limit); split it")
        }
        return operations
    }

    /// A line per answer, beside the operation it answers.
    static func lines(
        _ results: [Components.Schemas.BatchResult],
        of operations: [Components.Schemas.BatchOperation],
        look: Look
    ) -> [String] {
        zip(results, operations).map { result, operation in
            if let item = result.item { return "\(result.op.rawValue): " + Render.itemSummary(item, look: look) }
            if let clock = result.clock { return "clock: now \(look.time.stamp(clock.now.date))" }
            if case .remove(let removal) = operation { return "remove: removed \(removal.itemID)" }
            return result.op.rawValue
        }
    }
}
