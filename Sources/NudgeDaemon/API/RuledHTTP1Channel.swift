import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// Hummingbird's HTTP/1.1 child channel, with nudged's rules for each connection in its pipeline (`ConnectionRules`):
/// the deadlines of `ConnectionLimits`, the cap on connections, `Connection: close` and HTTP/1.0, and the
/// document's `Error` body for requests the HTTP parser refuses.
struct RuledHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let census: ConnectionCensus

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = census.admit(channel, limit: limits.connections)
        if !admitted, census.beginsRefusing() {
            let cap = limits.connections
            logger.warning(
                "the connection cap is reached (--max-connections \(cap)): new ones are answered 503 until some close"
            )
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let rules = ConnectionRules(limits: limits, admitted: admitted, logger: logger)
            // The rules read the parser's parts, before Hummingbird turns them into HTTPTypes: only there are the
            // HTTP version and every Connection token still visible.
            try pipeline.addHandler(rules, position: .before(try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)))
            try pipeline.addHandler(RequestBytesArrived(rules: rules), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
