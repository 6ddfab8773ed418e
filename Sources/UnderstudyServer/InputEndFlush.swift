internal import NIOCore

/// A connection's first handler, in front of any TLS: flushes its response at once, instead of
/// at the end of the loop's turn (``TurnFlushes``), when a read may have reached the end of the
/// client's input.
///
/// A client that sends its request and shuts down its side (`nc -N`, HTTP/1.0-era tools) often
/// has its bytes and its FIN arrive together. SwiftNIO then reads the request, finds the end of
/// the input in the same turn, fires `channelReadComplete` and closes the channel, failing every
/// write not flushed by then: the answer would be lost. It finds that end without a read
/// before the `channelReadComplete`, or after a read that filled its buffer (it reads again only
/// then). This handler sees the bytes as they came from the socket, so it can tell both.
final class InputEndFlush: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let flushes: TurnFlushes
    /// Whether the last read since the last `channelReadComplete` filled its buffer; `nil`
    /// before any.
    private var lastReadFilled: Bool?

    init(flushes: TurnFlushes) {
        self.flushes = flushes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastReadFilled = unwrapInboundIn(data).writableBytes == 0
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        // A read that left room in its buffer is SwiftNIO's sign that the socket had no more.
        if lastReadFilled != false {
            flushes.flushNow(context.channel)
        }
        lastReadFilled = nil
    }
}
