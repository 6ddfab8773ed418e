internal import NIOCore
internal import NIOHTTP2

/// A stream's way out: its response is written here as HTTP/2 frame payloads (HEADERS
/// blocks made once per rendering, DATA, RST_STREAM), which go out as frames of its stream
/// through the ``HTTP2Connection``. Writes after the stream closed fail.
final class HTTP2FramePort {
    let streamID: HTTP2StreamID
    /// `nil` once the stream is closed; cleared then, so that a stream and its connection do
    /// not hold each other.
    private var connection: HTTP2Connection?

    init(streamID: HTTP2StreamID, connection: HTTP2Connection) {
        self.streamID = streamID
        self.connection = connection
    }

    /// The stream is closed: writes fail from now on.
    func detach() {
        connection = nil
    }

    /// Writes `payload` on the stream.
    func write(_ payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>? = nil) {
        guard let connection else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        connection.write(HTTP2Frame(streamID: streamID, payload: payload), promise: promise)
    }

    /// Sends what was written: now, or at the end of the read that is answering the stream.
    func flush() {
        connection?.flush()
    }

    /// Ends the stream with RST_STREAM carrying `code`.
    func reset(_ code: HTTP2ErrorCode) {
        // NIO closes the stream as it takes the reset, which detaches the port before the
        // flush: a reset outside a read (after a wait) would stay unsent until the next one.
        let connection = self.connection
        write(.rstStream(code))
        connection?.flush()
    }
}
