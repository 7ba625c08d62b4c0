import Foundation
import NudgeStore
import Testing

@testable import NudgeDaemon
@testable import NudgeStore

@Suite struct DurabilityTests {
    static let full = StoreError.writeFailed(path: "/s", step: "append", errno: .noSpace)
    static let refusal = StoreError.notWritten(path: "/s", after: full)

    @Test func inStepItRefusesNothingAndHasNoFailureToTake() {
        var durability = Durability()
        #expect(durability.refusal == nil)
        #expect(durability.takeFailure() == nil)
    }

    @Test func aFailedWriteRefusesEveryCommitUntilTheFailureIsTakenOnce() {
        var durability = Durability()
        durability.writeFailed(Self.full, refusing: Self.refusal)
        #expect(durability.refusal?.description == Self.refusal.description)
        #expect(
            durability.refusal?.description == Self.refusal.description,
            "asking whether a commit is refused changed the state"
        )
        #expect(durability.takeFailure()?.description == Self.full.description)
        #expect(durability.refusal == nil)
        #expect(durability.takeFailure() == nil, "the service would reload twice for one failure")
    }

    /// Failures that follow the first (commits behind it, refused) say nothing new: the first is what the service
    /// hears.
    @Test func onlyTheFirstFailureSinceTheServiceLastTookOneCounts() {
        var durability = Durability()
        let later = StoreError.readFailed(path: "/s", errno: .ioError)
        durability.writeFailed(Self.full, refusing: Self.refusal)
        durability.writeFailed(later, refusing: .notWritten(path: "/s", after: later))
        #expect(durability.refusal?.description == Self.refusal.description)
        #expect(durability.takeFailure()?.description == Self.full.description)
        // After a reload, a new failure counts again.
        durability.writeFailed(later, refusing: Self.refusal)
        #expect(durability.takeFailure()?.description == later.description)
    }
}
