import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// Which deadline a connection is under, from what it has read and answered. Pure: `ConnectionRules` carries out
/// what it returns.
struct ConnectionDeadlines: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// No request under way: waiting for the next (`idle`).
        case waiting
        /// Some bytes of a request came, not yet its whole head (`requestHead`).
        case readingHead
        /// The head came, not yet the end of the body (`requestBody`).
        case readingBody
        /// Every request read is being answered: no deadline (an event stream may last for days).
        case answering
    }

    enum Deadline: Sendable, Equatable {
        case idle, requestHead, requestBody

        func limit(in limits: ConnectionLimits) -> TimeAmount {
            switch self {
            case .idle: limits.idle
            case .requestHead: limits.requestHead
            case .requestBody: limits.requestBody
            }
        }
    }

    enum Action: Sendable, Equatable {
        /// Replace the deadline with this one, counted from now.
        case arm(Deadline)
        case disarm
        case keep
    }

    private(set) var phase = Phase.waiting
    /// Requests whose head came and whose answer has not ended.
    private(set) var unanswered = 0

    mutating func start() -> Action { .arm(.idle) }

    mutating func bytesArrived() -> Action {
        guard phase == .waiting else { return .keep }
        phase = .readingHead
        return .arm(.requestHead)
    }

    mutating func headRead() -> Action {
        unanswered += 1
        phase = .readingBody
        // Behind an answer under way the body cannot come (NIO reads no further until that answer ends): its
        // deadline starts when that answer ends.
        return unanswered == 1 ? .arm(.requestBody) : .disarm
    }

    mutating func endRead() -> Action {
        // An answer may end before its request does (a refusal before the body is read): then nothing is under way.
        if unanswered == 0 {
            phase = .waiting
            return .arm(.idle)
        }
        phase = .answering
        return .disarm
    }

    mutating func answerEnded() -> Action {
        unanswered -= 1
        if unanswered == 0, phase == .answering {
            phase = .waiting
            return .arm(.idle)
        }
        if unanswered == 1, phase == .readingBody { return .arm(.requestBody) }
        return .keep
    }

    /// The deadline of the phase the connection is in, counted afresh: what applies again once an answer the client
    /// was not reading moves on.
    func current() -> Action {
        switch phase {
        case .waiting: .arm(.idle)
        case .readingHead: .arm(.requestHead)
        case .readingBody: unanswered <= 1 ? .arm(.requestBody) : .disarm
        case .answering: .disarm
        }
    }

    /// Answers being written, or owed for requests read whole; a request still being read is not counted.
    var answersUnderWay: Int { unanswered - (phase == .readingBody && unanswered > 0 ? 1 : 0) }
}
