import NudgeStore

/// Whether the service's state is in step with what is durable, as the store writer sees it: the one record of a
/// failed write.
///
/// A failed write puts the service ahead of the disk: what it applied may be lost, and every change it computed on
/// top of that is void. From then on every commit is refused, until the service takes the failure (it asks before
/// each input) and reloads its state from the store; then it is in step again.
struct Durability: Sendable {
    private enum Phase {
        case inStep
        /// Since `failure`; later commits are refused with `refusal`.
        case ahead(failure: StoreError, refusal: StoreError)
    }

    private var phase = Phase.inStep

    /// Why a commit submitted now is refused, if it is.
    var refusal: StoreError? {
        guard case .ahead(_, let refusal) = phase else { return nil }
        return refusal
    }

    /// A write failed with `failure`; commits from now on are refused with `refusal`. Only the first failure since the
    /// service last took one counts: later ones follow from it.
    mutating func writeFailed(_ failure: StoreError, refusing refusal: StoreError) {
        guard case .inStep = phase else { return }
        phase = .ahead(failure: failure, refusal: refusal)
    }

    /// The failure the service must reload after, if a write failed since it last asked; the service is taken to be in
    /// step from now on.
    mutating func takeFailure() -> StoreError? {
        guard case .ahead(let failure, _) = phase else { return nil }
        phase = .inStep
        return failure
    }
}
