import Foundation
import Hummingbird
import NIOCore
import NudgeSystem
import SystemPackage

/// `nudge-floor SOCKET LOG`: what a durable edit costs with nothing but its parts, the floor `nudge-bench edit-floor`
/// measures nudged against. Hummingbird on a Unix socket answers `PATCH /v1/items/{id}` with a JSON body `{"dueDate":
/// …}` once a record of the edit (about the size of nudged's change-log record) is appended to LOG and flushed with
/// fdatasync, on a thread kept for it (`BlockingWorker`, as nudged's store writer); the edits that wait while a flush
/// runs share the next one (group commit). The answer is an item as nudged gives one, about as long. Nothing else: no
/// model, no schedule, no events, no history.
@main struct EditFloor {
    struct Edit: Decodable {
        var dueDate: String
    }

    struct Record: Encodable {
        var itemID: Int
        var dueDate: String
        var text: String
        var changedAt: Date
    }

    struct Answer: Encodable {
        var checked = false
        var createdAt: String
        var dueDate: String
        var itemID: Int
        var listID = 1
        var listName = "Inbox"
        var pendingDue: String
        var priority = "normal"
        var shouldRemind = true
        var text = "added by the bench"
        var updatedAt: String
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: nudge-floor SOCKET LOG\n".utf8))
            exit(64)
        }
        let log = try GroupCommitLog(path: arguments[2])
        let router = Router()
        router.patch("/v1/items/:id") { request, context -> Response in
            let itemID = try context.parameters.require("id", as: Int.self)
            let edit = try await request.decode(as: Edit.self, context: context)
            let now = Date()
            let record = Record(itemID: itemID, dueDate: edit.dueDate, text: "added by the bench", changedAt: now)
            await log.append(Array(try JSONEncoder().encode(record)))
            let stamp = now.formatted(.iso8601)
            let answer = Answer(
                createdAt: stamp,
                dueDate: edit.dueDate,
                itemID: itemID,
                pendingDue: edit.dueDate,
                updatedAt: stamp
            )
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            let body = ByteBuffer(bytes: try JSONEncoder().encode(answer))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
        let application = Application(
            router: router,
            configuration: .init(address: .unixDomainSocket(path: arguments[1]), serverName: nil)
        )
        try await application.runService()
    }
}

/// Appends records to a file, each durable before its `append` returns; the records that come while a flush runs
/// are written and flushed together by the next.
actor GroupCommitLog {
    private let file: SystemPackage.FileDescriptor
    private let worker = BlockingWorker(named: "nudge-floor log")
    private var waiting: [(record: [UInt8], written: CheckedContinuation<Void, Never>)] = []
    private var flushing = false

    init(path: String) throws {
        file = try SystemPackage.FileDescriptor.open(
            path,
            .writeOnly,
            options: [.create, .append, .truncate, .closeOnExec],
            permissions: [.ownerReadWrite]
        )
    }

    func append(_ record: [UInt8]) async {
        await withCheckedContinuation { continuation in
            // Framed as a change-log record is: its length first.
            let length = UInt32(record.count)
            waiting.append(((0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) } + record, continuation))
            if !flushing {
                flushing = true
                Task { await flush() }
            }
        }
    }

    private func flush() async {
        while !waiting.isEmpty {
            let batch = waiting
            waiting = []
            let bytes = batch.flatMap(\.record)
            let file = file
            let failed = await worker.run { () -> String? in
                do {
                    _ = try file.writeAll(bytes)
                    try SystemCall.fdatasync(file)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            if let failed { fatalError("nudge-floor: cannot write its log: \(failed)") }
            for waiter in batch { waiter.written.resume() }
        }
        flushing = false
    }
}
