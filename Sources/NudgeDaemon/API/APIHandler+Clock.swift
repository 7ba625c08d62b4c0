import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

/// `/v1/clock`: the clock nudged runs on, and moving the manual one.
extension APIHandler {
    func getClock(_ input: Operations.GetClock.Input) async throws -> Operations.GetClock.Output {
        let clock = service.clock
        let now = try await service.read { _ in clock.now() }
        return .ok(.init(body: .json(.init(now: Instant(now), mode: clock is ManualWallClock ? .manual : .wall))))
    }

    /// Moves the manual clock forward or back. Every reminder due on the way fires at its own instant, in due order
    /// (the clock reads that instant as it fires); the answer comes once all of it is durable and carried out
    /// (delivered to the sinks' queues, published). Under the wall clock, refused.
    func moveClock(_ input: Operations.MoveClock.Input) async throws -> Operations.MoveClock.Output {
        guard case .json(let move) = input.body else {
            preconditionFailure("JSON is the only body the document allows")
        }
        let target = try Self.clockTarget(move)
        let manual = try manualClock()
        let now = try await service.write(inTurns: { book in
            book.moveClock(manual, to: try ReminderBook.goal(target, from: manual))
        })
        return .ok(.init(body: .json(.init(now: Instant(now), mode: .manual))))
    }

    /// The manual clock nudged runs on; under the wall clock, the refusal to move it.
    func manualClock() throws -> ManualWallClock {
        guard let manual = service.clock as? ManualWallClock else {
            throw APIFailure(
                status: .conflict,
                code: .clockNotManual,
                message: "nudged runs on the wall clock, which only the system moves; start it with --clock manual "
                    + "to drive time yourself"
            )
        }
        return manual
    }

    /// Where a `ClockMove` goes, from where the clock is when the move is applied.
    static func clockTarget(_ move: Components.Schemas.ClockMove) throws -> @Sendable (Date) -> Date {
        switch (move.advance, move.to) {
        case (let advance?, nil):
            guard let seconds = DurationText.iso8601Seconds(advance) else {
                throw APIFailure.badRequest(
                    .invalidBody,
                    "field advance: \"\(advance.prefix(40))\" is not \(DurationText.expected)"
                )
            }
            return { $0.addingTimeInterval(seconds) }
        case (nil, let to?):
            return { _ in to.date }
        default:
            throw APIFailure.badRequest(
                .invalidBody,
                "give either advance (an ISO 8601 duration, like PT1H) or to (an instant), not both or neither"
            )
        }
    }
}
