import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// What one connection may take from nudged: how long each part of a request may take, how long a connection may
/// wait between requests, and how many connections are served at once (`nudged --help`, docs/RELIABILITY.md).
struct ConnectionLimits: Sendable {
    /// From the first byte of a request to the end of its head.
    var requestHead: TimeAmount = .seconds(10)
    /// From the end of a request's head to the end of its body.
    var requestBody: TimeAmount = .seconds(30)
    /// Between requests on a kept-alive connection, and before the first.
    var idle: TimeAmount = .seconds(60)
    /// Connections served at once; past it, a new connection is answered 503 and closed.
    var connections = 4096
    /// Connections accepted at once: those served, and an eighth more being answered 503. At this many nudged stops
    /// accepting, and new connections wait in the listen backlog. This keeps `accept` from running out of file
    /// descriptors: on EMFILE, NIO tries again at once, in a loop that takes a whole core until one is freed.
    var accepted: Int { connections + max(1, connections / 8) }
    /// How long a request under way may still take once nudged is stopping.
    var shutdownGrace: TimeAmount = .seconds(1)
    /// How long a connection past the cap may take to send the head it is answered 503 for.
    var refusal: TimeAmount = .seconds(1)

    /// Open files these limits need, with `besides` open for everything else.
    func openFiles(besides: Int) -> Int { accepted + besides }

    /// The most connections that `openFiles` open files can serve, with `besides` open for everything else and the
    /// room `accepted` needs.
    static func connections(fitting openFiles: Int, besides: Int) -> Int {
        max(1, (openFiles - besides) * 8 / 9)
    }
}
