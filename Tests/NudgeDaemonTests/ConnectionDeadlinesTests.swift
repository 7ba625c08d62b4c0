import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import NudgeDaemon

/// The deadline state alone, step by step, including requests sent without waiting for answers (pipelined).
@Suite struct ConnectionDeadlinesTests {
    @Test func pipelinedRequestsKeepTheNextRequestsDeadlineUntilEveryAnswerEnds() {
        var deadlines = ConnectionDeadlines()
        #expect(deadlines.start() == .arm(.idle))
        #expect(deadlines.bytesArrived() == .arm(.requestHead))
        #expect(deadlines.headRead() == .arm(.requestBody))
        #expect(deadlines.endRead() == .disarm)
        // The second request came in the same read as the first: no new first byte. Its body cannot come while the
        // first answer is under way (NIO reads no further), so its deadline starts when that answer ends.
        #expect(deadlines.bytesArrived() == .keep)
        #expect(deadlines.headRead() == .disarm)
        #expect(deadlines.answersUnderWay == 1)
        #expect(deadlines.answerEnded() == .arm(.requestBody))
        #expect(deadlines.endRead() == .disarm)
        #expect(deadlines.answerEnded() == .arm(.idle))
        #expect(deadlines.phase == .waiting && deadlines.unanswered == 0)
    }
}
