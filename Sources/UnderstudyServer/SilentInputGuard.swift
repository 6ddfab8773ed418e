import NIOCore
import NIOHTTP1

/// Closes a connection whose input stops producing anything: more than `limit` bytes in a row
/// from which the request decoder makes no head, body or end. Heads have their own limits (431)
/// and bodies theirs (413); what is left is chunk framing, whose extensions NIO's parser skips
/// without bound. RFC 9112 §7.1.1 asks a server to limit them, and a client could otherwise
/// send gigabytes as "a 5-byte body".
///
/// It sits in front of the decoder and counts raw bytes; ``StubHTTPHandler``, behind the decoder,
/// zeroes the count at every decoded part. A part decoded early in a read zeroes
/// that whole read, so the count can fall short by one read (at most 64 KiB): the limit is
/// therefore well above the 80 KiB a legitimate head may take to arrive.
final class SilentInputGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limit: Int
    /// Bytes read since the decoder last produced a part.
    var silentBytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        silentBytes += unwrapInboundIn(data).readableBytes
        // Decoded first (synchronously, by the handlers behind): parts in this read reset the count.
        context.fireChannelRead(data)
        if silentBytes > limit {
            silentBytes = 0
            context.close(promise: nil)
        }
    }
}
