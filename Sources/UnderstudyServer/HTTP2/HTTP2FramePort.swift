internal import NIOCore
internal import NIOHTTP2

/// A stream's frame-level way out: the response is written here as HTTP/2 frame payloads
/// (HEADERS blocks made once per rendering, DATA, RST_STREAM). ``HTTP2StreamHandler`` points it
/// at its context while it is in the stream's pipeline; writes after that fail.
final class HTTP2FramePort {
    private var context: ChannelHandlerContext?

    /// Writes go through `context` from now on (`nil`: the stream's handler is gone).
    func attach(_ context: ChannelHandlerContext?) {
        self.context = context
    }

    /// Writes `payload` on the stream.
    func write(_ payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>? = nil) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(NIOAny(payload), promise: promise)
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
