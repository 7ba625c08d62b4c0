import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NudgeAPI

/// Talks HTTP/1.1 + JSON to nudged over its Unix socket. Every failure comes out as a `CLIError`: the daemon's
/// refusal (exit 1) or not reaching it (exit 3). Use it inside `withConnection(to:_:)`, which shuts it down.
struct DaemonClient: Sendable {
    let socketPath: String
    private let http: HTTPClient

    /// How long an ordinary request may take, connecting included.
    static let requestTimeout: TimeAmount = .seconds(10)
    /// The event stream runs until interrupted; this only keeps the deadline finite.
    static let streamTimeout: TimeAmount = .hours(24 * 366 * 10)
    /// The largest answer read into memory; far above any real store.
    static let maximumAnswerBytes = 256 * 1024 * 1024

    /// Runs `body` with a client for the daemon at `socketPath`, and shuts the client down afterwards.
    static func withConnection<Result>(
        to socketPath: String,
        _ body: (DaemonClient) async throws -> Result
    ) async throws -> Result {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: requestTimeout))
        // A missing socket or a refused connection is an answer in itself: report it now rather than retrying
        // until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let client = DaemonClient(socketPath: socketPath, http: http)
        let result: Result
        do {
            result = try await body(client)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
        return result
    }

    // MARK: - Requests

    /// Sends a request and returns the body of a 2xx answer (empty for 204); any other status throws the daemon's
    /// error message.
    func send(
        _ method: HTTPMethod,
        _ path: String,
        query: [(name: String, value: String)] = [],
        body: Data? = nil
    ) async throws(CLIError) -> Data {
        let request = try makeRequest(method, path, query: query, body: body)
        do {
            let response = try await http.execute(request, timeout: Self.requestTimeout)
            let answer = Data(try await response.body.collect(upTo: Self.maximumAnswerBytes).readableBytesView)
            guard (200..<300).contains(response.status.code) else {
                throw refusal(status: response.status, body: answer)
            }
            return answer
        } catch let error as CLIError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .unreadableAnswer(from: socketPath, "an answer larger than \(Self.maximumAnswerBytes) bytes")
        } catch {
            throw .unreachable(socketPath, reason: Self.reason(for: error, socketPath: socketPath))
        }
    }

    /// Sends `value` as the JSON body.
    func send(
        _ method: HTTPMethod,
        _ path: String,
        json value: some Encodable
    ) async throws(CLIError) -> Data {
        let body: Data
        do {
            body = try APICoding.encoder().encode(value)
        } catch {
            // Request types are plain structs of strings, numbers and dates: encoding them cannot fail.
            preconditionFailure("cannot encode a request: \(error)")
        }
        return try await send(method, path, body: body)
    }

    /// Reads an answer as the API's type for it.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(CLIError) -> Value {
        do {
            return try APICoding.decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw .unreadableAnswer(from: socketPath, Self.summary(of: error))
        } catch {
            throw .unreadableAnswer(from: socketPath, "\(error)")
        }
    }

    /// Streams `GET /v1/events`, calling `handle` for each server-sent event as it arrives. Returns only by
    /// throwing: when the daemon closes the stream, that is `CLIError.daemonWentAway`.
    func streamEvents(_ handle: (ServerSentEventParser.Event) throws -> Void) async throws -> Never {
        var request = try makeRequest(.GET, APIPath.events, query: [], body: nil)
        request.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: Self.streamTimeout)
        } catch {
            throw CLIError.unreachable(socketPath, reason: Self.reason(for: error, socketPath: socketPath))
        }
        guard (200..<300).contains(response.status.code) else {
            let answer = try? await response.body.collect(upTo: 1024 * 1024)
            throw refusal(status: response.status, body: answer.map { Data($0.readableBytesView) } ?? Data())
        }
        var parser = ServerSentEventParser()
        do {
            for try await chunk in response.body {
                for event in parser.feed(chunk.readableBytesView) {
                    try handle(event)
                }
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.daemonWentAway(socketPath, reason: Self.reason(for: error, socketPath: socketPath))
        }
        throw CLIError.daemonWentAway(socketPath, reason: "it closed the event stream")
    }

    // MARK: - Helpers

    private func makeRequest(
        _ method: HTTPMethod,
        _ path: String,
        query: [(name: String, value: String)],
        body: Data?
    ) throws(CLIError) -> HTTPClientRequest {
        let uri = path + Self.queryString(query)
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: uri) else {
            throw .unreachable(socketPath, reason: "that path cannot be used as a socket address")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
        }
        return request
    }

    /// `?list=Home%20Stuff&all=true`. Everything but unreserved characters is escaped, `+` included, so no server
    /// reads it as a space.
    static func queryString(_ query: [(name: String, value: String)]) -> String {
        guard !query.isEmpty else { return "" }
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        )
        func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
        }
        return "?" + query.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    private func refusal(status: HTTPResponseStatus, body: Data) -> CLIError {
        if let error = try? APICoding.decoder().decode(APIErrorBody.self, from: body) {
            return .refused(error.error.message, json: body)
        }
        let text = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let detail = text.isEmpty ? "" : ": \(text)"
        return .refused("nudged at \(socketPath) answered \(status.code) \(status.reasonPhrase)\(detail)", json: nil)
    }

    /// Why a connection failed, in words: the part of the message after "cannot reach nudged at PATH".
    static func reason(for error: any Error, socketPath: String) -> String {
        switch error {
        case let error as IOError:
            switch error.errnoCode {
            case ENOENT: return "no socket at that path"
            case ECONNREFUSED:
                let type = try? FileManager.default.attributesOfItem(atPath: socketPath)[.type] as? FileAttributeType
                return type == .typeSocket
                    ? "connection refused: nothing is listening on that socket"
                    : "connection refused: that path is not a socket"
            case EACCES, EPERM: return "permission denied"
            case ENOTDIR: return "a part of that path is not a directory"
            default: return String(cString: strerror(error.errnoCode)).lowercased()
            }
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return "no connection within \(describe(requestTimeout))"
            case .deadlineExceeded, .readTimeout: return "no answer within \(describe(requestTimeout))"
            case .remoteConnectionClosed: return "it closed the connection"
            default: return "\(error)"
            }
        case let error as SocketAddressError:
            switch error {
            case .unixDomainSocketPathTooLong: return "the path is too long for a Unix socket"
            default: return "\(error)"
            }
        default:
            return "\(error)"
        }
    }

    private static func describe(_ amount: TimeAmount) -> String {
        "\(amount.nanoseconds / 1_000_000_000) s"
    }

    private static func summary(of error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the answer" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context)) lacks \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
