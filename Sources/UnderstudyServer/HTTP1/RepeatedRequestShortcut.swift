internal import NIOCore

/// The first handler of ours on an HTTP/1.1 connection, in front of the request decoder: a read
/// that repeats the last request a fixed canned stub answered, byte for byte, is answered again
/// without being decoded, as the connection's ``HTTP1FastPath`` decides. Any other read goes on
/// to the decoder, counted by the connection's ``SilentInputGuard``, and the fast path hears when
/// the handlers behind are through with it.
final class RepeatedRequestShortcut: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connection: HTTP1Connection
    private let silentInput: SilentInputGuard

    init(connection: HTTP1Connection, silentInput: SilentInputGuard) {
        self.connection = connection
        self.silentInput = silentInput
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if connection.answerRepeat(of: bytes) { return }
        silentInput.arriving(bytes)
        // Decoded first (synchronously, by the handlers behind): parts in this read reset the count.
        context.fireChannelRead(data)
        connection.fastPath.decoded(bytes)
        if silentInput.isOverLimit() { context.close(promise: nil) }
    }
}
