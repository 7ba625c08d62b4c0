import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// How many connections are open, across event loops.
final class ConnectionCensus: Sendable {
    private let open = Atomic<Int>(0)
    private let refusing = Atomic<Bool>(false)

    /// Counts the connection until it closes; whether it is within `limit`.
    func admit(_ channel: any Channel, limit: Int) -> Bool {
        let count = open.add(1, ordering: .relaxed).newValue
        channel.closeFuture.whenComplete { _ in self.open.subtract(1, ordering: .relaxed) }
        if count <= limit { refusing.store(false, ordering: .relaxed) }
        return count <= limit
    }

    /// Whether this refusal is the first since a connection was last admitted: the log says so once per flood.
    func beginsRefusing() -> Bool {
        !refusing.exchange(true, ordering: .relaxed)
    }
}
