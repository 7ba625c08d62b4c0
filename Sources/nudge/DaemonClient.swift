import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NudgeAPI
import NudgeAPITypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// nudged's API over its Unix socket, through the client generated from docs/openapi.yaml. Every failure comes out
/// as a `CLIError`: the daemon's refusal (exit 1) or not reaching it (exit 3). Use it inside
/// `withConnection(to:_:)`, which shuts it down.
struct DaemonClient: Sendable {
    let socketPath: String
    /// For ordinary requests.
    private let api: Client
    /// For the event stream, which runs until interrupted.
    private let stream: Client

    /// How long an ordinary request may take, connecting included.
    static let requestTimeout: TimeAmount = .seconds(10)
    /// The event stream runs until interrupted; this only keeps the deadline finite.
    static let streamTimeout: TimeAmount = .hours(24 * 366 * 10)

    /// Runs `body` with a client for the daemon at `socketPath`, and shuts the client down afterwards.
    static func withConnection<Result>(
        to socketPath: String,
        _ body: (DaemonClient) async throws -> Result
    ) async throws -> Result {
        // `http+unix://<percent-encoded socket path>`, to which the generated client appends `/v1/...`:
        // AsyncHTTPClient connects to the socket.
        guard let socketURL = URL(httpURLWithSocketPath: socketPath, uri: ""),
            let serverURL = URL(string: String(socketURL.absoluteString.trimmingSuffix("/")))
        else {
            throw CLIError.unreachable(socketPath, reason: "that path cannot be used as a socket address")
        }
        var configuration = HTTPClient.Configuration(timeout: .init(connect: requestTimeout))
        // A missing socket or a refused connection is an answer in itself: report it now rather than retrying
        // until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        func client(timeout: TimeAmount) -> Client {
            Client(
                serverURL: serverURL,
                configuration: APICoding.configuration,
                transport: AsyncHTTPClientTransport(configuration: .init(client: http, timeout: timeout)),
                middlewares: [RefusalMiddleware(socketPath: socketPath)]
            )
        }
        let daemon = DaemonClient(
            socketPath: socketPath,
            api: client(timeout: requestTimeout),
            stream: client(timeout: streamTimeout)
        )
        let result: Result
        do {
            result = try await body(daemon)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
        return result
    }

    /// Runs one operation of the generated client; a 2xx answer is its typed output.
    ///
    ///     let item = try await client.call { try await $0.getItem(path: .init(id: 3)).ok.body.json }
    func call<Value>(_ operation: (Client) async throws -> Value) async throws(CLIError) -> Value {
        do {
            return try await operation(api)
        } catch {
            throw failure(error)
        }
    }

    /// nudged's clock: the manual one when it runs on one, so "tomorrow", "in 2h" and "overdue" agree with what it
    /// will do.
    func now() async throws(CLIError) -> Date {
        try await call { try await $0.getClock().ok.body.json }.now.date
    }

    /// Streams `GET /v1/events` (after event `since`, from the history, when given), calling `handle` for each
    /// server-sent event as it arrives. Returns only by throwing: when the daemon closes the stream, that is
    /// `CLIError.daemonWentAway`.
    func streamEvents(since: Int? = nil, _ handle: (ServerSentEvent) throws -> Void) async throws -> Never {
        let body: HTTPBody
        do {
            body = try await stream.streamEvents(query: .init(since: since)).ok.body.textEventStream
        } catch {
            throw failure(error)
        }
        do {
            // A block without data, such as a keep-alive comment, is no event (WHATWG's rule; the runtime passes
            // it on).
            for try await event in body.asDecodedServerSentEvents() where event.data != nil {
                try handle(event)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.daemonWentAway(socketPath, reason: Self.reason(for: error, socketPath: socketPath))
        }
        throw CLIError.daemonWentAway(socketPath, reason: "it closed the event stream")
    }

    // MARK: - Failures

    /// What a failed operation means to the person at the terminal.
    private func failure(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as ClientError where error.underlyingError is CLIError:
            return failure(error.underlyingError)
        case let error as ClientError where error.response == nil:
            // No answer: the connection failed.
            return .unreachable(socketPath, reason: Self.reason(for: error.underlyingError, socketPath: socketPath))
        case let error as ClientError:
            // The daemon answered, but not as the document says.
            return .unreadableAnswer(from: socketPath, "\(error.causeDescription): \(error.underlyingError)")
        default:
            // The generated output held another answer than the one asked for (`.ok` of a 201, say).
            return .unreadableAnswer(from: socketPath, "\(error)")
        }
    }

    /// Why a connection failed, in words: the part of the message after "cannot reach nudged at PATH".
    static func reason(for error: any Error, socketPath: String) -> String {
        switch error {
        case let error as ClientError:
            return reason(for: error.underlyingError, socketPath: socketPath)
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
}

/// Turns every answer that is not 2xx into `CLIError.refused`, carrying the daemon's `Error` document: its
/// message for people, the document itself for `--json`. The operations then read only their success.
private struct RefusalMiddleware: ClientMiddleware {
    let socketPath: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, answer) = try await next(request, body, baseURL)
        guard response.status.kind != .successful else { return (response, answer) }
        let data: Data
        if let answer {
            data = try await Data(collecting: answer, upTo: 1024 * 1024)
        } else {
            data = Data()
        }
        if let error = try? JSONDecoder().decode(Components.Schemas.ErrorBody.self, from: data) {
            throw CLIError.refused(error.error.message, json: data)
        }
        let text = String(decoding: data.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let detail = text.isEmpty ? "" : ": \(text)"
        throw CLIError.refused(
            "nudged at \(socketPath) answered \(response.status.code) \(response.status.reasonPhrase)\(detail)",
            json: nil
        )
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
