import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// Sees raw bytes come in, before the HTTP parser, so the head's deadline starts with a request's first byte.
final class RequestBytesArrived: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let rules: ConnectionRules

    init(rules: ConnectionRules) {
        self.rules = rules
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        rules.bytesArrived()
        context.fireChannelRead(data)
    }
}
