import NIOPosix
import NudgeSystem
import Testing

/// The executor an event stream's task runs on, so that its writes need no hop to the channel's loop.
@Suite struct EventLoopTaskExecutorTests {
    @Test func aTaskPreferringItRunsOnItsLoopEachTimeItIsWokenFromElsewhere() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let worker = BlockingWorker(named: "test-waker")
        let onTheLoop = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var seen: [Bool] = [loop.inEventLoop]
            // Woken from a thread that is no loop's, as a watcher is by the store writer's thread.
            for _ in 0..<20 {
                await worker.run {}
                seen.append(loop.inEventLoop)
            }
            return seen
        }
        #expect(onTheLoop == Array(repeating: true, count: 21))
        // Outside the preference, the test's task is not on that loop: the check above can fail.
        await worker.run {}
        #expect(!loop.inEventLoop)
        try await group.shutdownGracefully()
    }
}
