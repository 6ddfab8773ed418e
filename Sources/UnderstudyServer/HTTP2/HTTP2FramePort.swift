internal import NIOCore
internal import NIOHTTP2

/// A stream's frame-level way out, first in its pipeline, in front of the HTTP/1 codec: the
/// response is written here as HTTP/2 frame payloads (HEADERS blocks made once per rendering,
/// DATA, RST_STREAM), which the codec's HTTP/1 response parts cannot say.
final class HTTP2FramePort: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes `payload` on the stream.
    func write(_ payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>? = nil) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(payload), promise: promise)
    }

    func flush() {
        context?.flush()
    }

    /// Ends the stream with RST_STREAM carrying `code`.
    func reset(_ code: HTTP2ErrorCode) {
        write(.rstStream(code))
        flush()
    }
}
