import Foundation
import FuzzSupport
import NIOEmbedded
import NudgeDaemon
import Synchronization

/// Requests as a client sends them, through the router and middleware nudged serves with, in-process
/// (`InProcessAPI`), each input on a new store and a manual clock at 2027-01-01T00:00:00Z. An input is up to
/// `maximumRequests` requests, separated by a line `===`, each written as on the wire but with bare newlines:
///
///     POST /v1/items?list=Home
///     Content-Type: application/json
///
///     {"text":"water the plants","dueDate":"2027-01-01T09:00:00Z"}
///
/// Any bytes give answers, never a crash, a hang or a turn over 1 s; never 500 (a 503 is what a request longer than
/// one turn gets here, see `InProcessAPI`); and an error's body is always the document's `Error`. An answer that is
/// not traps, naming the request.
func fuzzRequests(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let requests = FuzzedRequest.all(in: fuzzInput(data, size))
    guard !requests.isEmpty else { return 0 }
    let store = Scratch.next()
    defer { try? FileManager.default.removeItem(atPath: store) }
    let outcome = Mutex<Result<[(FuzzedRequest, InProcessAPI.Answer)], any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<[(FuzzedRequest, InProcessAPI.Answer)], any Error>
        do {
            let answers = try await InProcessAPI.withService(
                store: store + "/store.plist",
                clock: Date(timeIntervalSince1970: 1_798_761_600),
                channel: NIOAsyncTestingChannel()
            ) { api in
                var answers: [(FuzzedRequest, InProcessAPI.Answer)] = []
                for request in requests {
                    let answer = try await api.respond(
                        method: request.method,
                        target: request.target,
                        headers: request.headers,
                        body: request.body
                    )
                    if let answer { answers.append((request, answer)) }
                }
                return answers
            }
            result = .success(answers)
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    switch outcome.withLock({ $0 })! {
    case .failure(let error):
        fatalError("the routes threw instead of answering: \(error)")
    case .success(let answers):
        for (request, answer) in answers { check(answer, to: request) }
    }
    return 0
}

/// Traps on an answer outside the contract.
func check(_ answer: InProcessAPI.Answer, to request: FuzzedRequest) {
    let status = answer.status
    guard status >= 400 else { return }
    guard status != 500 else {
        fatalError("answered 500 to \(request): \(String(decoding: answer.body, as: UTF8.self))")
    }
    struct ErrorDocument: Decodable {
        struct Detail: Decodable {
            let code: String
            let message: String
        }
        let error: Detail
    }
    guard let document = try? JSONDecoder().decode(ErrorDocument.self, from: Data(answer.body)),
        !document.error.code.isEmpty, !document.error.message.isEmpty
    else {
        fatalError(
            "answered \(status) without the document's Error to \(request): \(String(decoding: answer.body, as: UTF8.self))"
        )
    }
}

/// One request of an input.
struct FuzzedRequest: Sendable, CustomStringConvertible {
    var method: String
    var target: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    static let maximumRequests = 8

    static func all(in input: [UInt8]) -> [FuzzedRequest] {
        var requests: [FuzzedRequest] = []
        var rest = input[...]
        while requests.count < maximumRequests, !rest.isEmpty {
            let end = rest.firstRange(of: Array("\n===\n".utf8))
            if let request = FuzzedRequest(rest[..<(end?.lowerBound ?? rest.endIndex)]) { requests.append(request) }
            rest = rest[(end?.upperBound ?? rest.endIndex)...]
        }
        return requests
    }

    /// Nil for what an HTTP/1.1 parser would not hand on: a request line that is not `METHOD TARGET`, or a target
    /// with a space, a control character or a byte past ASCII.
    init?(_ text: ArraySlice<UInt8>) {
        let headEnd = text.firstRange(of: Array("\n\n".utf8))
        body = Array(text[(headEnd?.upperBound ?? text.endIndex)...])
        let lines = text[..<(headEnd?.lowerBound ?? text.endIndex)].split(separator: UInt8(ascii: "\n"))
        guard let requestLine = lines.first else { return nil }
        let words = requestLine.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count >= 2, !words[0].isEmpty, !words[1].isEmpty,
            words[1].allSatisfy({ (0x21..<0x7F).contains($0) })
        else { return nil }
        method = String(decoding: words[0], as: UTF8.self)
        target = String(decoding: words[1], as: UTF8.self)
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            return (String(decoding: line[..<colon], as: UTF8.self), value.trimmingCharacters(in: .whitespaces))
        }
    }

    var description: String {
        let head = ([method + " " + target] + headers.map { "\($0.name): \($0.value)" }).joined(separator: "\\n")
        return "\(head) with \(body.count) bytes of body (\(String(decoding: body.prefix(200), as: UTF8.self)))"
    }
}

/// A new directory for each input's store, under one per process: in shared memory where there is some, so that
/// the store's syncs cost little. A run that crashes (a finding) or times out skips `atexit`: the next run removes
/// what such runs left, the directories of processes no longer there.
enum Scratch {
    private static let base: String = {
        let parent = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let prefix = "nudge-fuzz-request."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            if let pid = pid_t(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: parent + "/" + name)
            }
        }
        let path = parent + "/" + prefix + "\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.base) }
        return path
    }()
    private static let count = Atomic(0)

    static func next() -> String {
        let path = base + "/\(count.add(1, ordering: .relaxed).newValue)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

@main enum Main {
    static func main() { Fuzz.main("fuzz-request", fuzzRequests) }
}
