internal import NIOCore

/// The handler in front of an HTTP/1.1 connection's request decoder: before passing each read
/// on, it sends the handlers behind an ``Arriving`` event carrying the same bytes (the same
/// storage, no copy). ``HTTP1ConnectionHandler`` hands them to its ``HTTP1RequestReader``, which
/// learns from them what the decoder makes nothing of (``SilentInput``). Nothing is shared
/// between the two handlers: the bytes travel down the pipeline, as NIO's events do.
final class ReadTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// A read on its way to the decoder.
    struct Arriving {
        let bytes: ByteBuffer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(Arriving(bytes: unwrapInboundIn(data)))
        context.fireChannelRead(data)
    }
}
