internal import NIOCore

/// The handler in front of an HTTP/1.1 connection's request decoder: counts each read into the
/// connection's ``SilentInputGuard`` before the decoder has it, and closes the connection when
/// too much input in a row made no part of a request.
final class SilentInputCounter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let silentInput: SilentInputGuard

    init(_ silentInput: SilentInputGuard) {
        self.silentInput = silentInput
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        silentInput.arriving(unwrapInboundIn(data))
        // Decoded first (synchronously, by the handlers behind): parts in this read reset the count.
        context.fireChannelRead(data)
        if silentInput.isOverLimit() { context.close(promise: nil) }
    }
}
