import Foundation
import NudgeCore
import Synchronization

@testable import NudgeSinks

/// A notification server in memory: answers from a script, records every call, and sends signals when told.
package final class FakeNotificationServer: NotificationServer {
    package enum Call: Equatable {
        case capabilities
        case notify(DesktopNotification)
        case close(UInt32)
    }

    package let signals: AsyncStream<NotificationSignal>
    private let continuation: AsyncStream<NotificationSignal>.Continuation
    private let state: Mutex<(calls: [Call], nextID: UInt32, failing: Bool, identity: String, epoch: Int)>
    private let offered: Set<String>

    package init(capabilities: Set<String> = ["actions", "body-markup"], identity: String = "bus :1.1") {
        offered = capabilities
        state = Mutex(([], 40, false, identity, 0))
        (signals, continuation) = AsyncStream.makeStream()
    }

    package var calls: [Call] { state.withLock { $0.calls } }
    package var notifications: [DesktopNotification] {
        calls.compactMap {
            guard case .notify(let notification) = $0 else { return nil }
            return notification
        }
    }
    package var closed: [UInt32] {
        calls.compactMap {
            guard case .close(let notificationID) = $0 else { return nil }
            return notificationID
        }
    }

    /// Every call from now on fails as a server that does not answer.
    package func stopAnswering() { state.withLock { $0.failing = true } }
    package func restart(as identity: String) { state.withLock { $0.identity = identity } }
    /// Another server takes the name: its answers come in the next epoch, which the signal announces.
    package func changeServer() {
        let epoch = state.withLock { state in
            state.epoch += 1
            return state.epoch
        }
        send(.serverChanged(epoch: epoch))
    }
    package func send(_ signal: NotificationSignal) { continuation.yield(signal) }
    package func endSignals() { continuation.finish() }

    private func record(_ call: Call) throws(BusError) {
        let failing = state.withLock { state in
            state.calls.append(call)
            return state.failing
        }
        if failing { throw BusError(name: "org.freedesktop.DBus.Error.NoReply", message: "no reply") }
    }

    package func capabilities() async throws(BusError) -> (Set<String>, epoch: Int) {
        try record(.capabilities)
        return (offered, state.withLock { $0.epoch })
    }

    package func identity() async throws(BusError) -> String { state.withLock { $0.identity } }

    package func notify(_ notification: DesktopNotification) async throws(BusError) -> (UInt32, epoch: Int) {
        try record(.notify(notification))
        return state.withLock { state in
            if notification.replacesID != 0 { return (notification.replacesID, state.epoch) }
            state.nextID += 1
            return (state.nextID, state.epoch)
        }
    }

    package func close(_ notificationID: UInt32) async throws(BusError) { try record(.close(notificationID)) }
}
