import Foundation
internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP1
internal import NIOHTTP2
import Understudy

/// What the streams of one HTTP/2 connection share, on its event loop: the server's responder
/// and settings, the streams open (counted by their handlers, for `goaway`), the last request answered by a fixed canned
/// stub (the repeated-request fast path, as on HTTP/1.1) and the header blocks of the
/// renderings it sent.
final class HTTP2Connection {
    /// The last request answered by a fixed canned stub, kept to answer an identical next one.
    struct Repeatable {
        let head: HTTPRequestHead
        /// The HEADERS block it came in: a next one with the same fields is the same request.
        let block: HPACKHeaders
        let request: StubRequest
        let match: StubRegistry.RepeatableMatch
    }

    let shared: ServerShared
    let scheme: String
    let listener: @Sendable () -> String
    let wireResponses: WireResponseCache
    var repeatable: Repeatable?

    private weak var channel: (any Channel)?
    /// The HTTP/2 handler's context: writing there puts bytes below HTTP/2 framing.
    private var framing: ChannelHandlerContext?
    private var openStreams = 0
    private var lastStreamID = HTTP2StreamID(0)
    private var goingAway = false
    /// Closes the connection once it has had no stream for the head timeout (see ``awaitStreams()``).
    private var idleTimer: Scheduled<Void>?
    /// HEADERS blocks by rendering (``PreparedResponse/renderID``).
    private var headerBlocks: [UInt64: HPACKHeaders] = [:]

    init(shared: ServerShared, scheme: String, listener: @escaping @Sendable () -> String, eventLoop: any EventLoop) {
        self.shared = shared
        self.scheme = scheme
        self.listener = listener
        self.wireResponses = shared.wireResponses(for: eventLoop)
    }

    /// Binds the connection to its channel, once the HTTP/2 handler is in the pipeline.
    func attach(to channel: any Channel) throws {
        self.channel = channel
        framing = try channel.pipeline.syncOperations.context(handlerType: NIOHTTP2Handler.self)
        // The context holds the HTTP/2 handler, which holds this connection as its stream delegate.
        let connection = NIOLoopBound(self, eventLoop: channel.eventLoop)
        channel.closeFuture.whenComplete { _ in
            connection.value.framing = nil
            connection.value.repeatable = nil
            connection.value.idleTimer?.cancel()
            connection.value.idleTimer = nil
        }
        awaitStreams()
    }

    /// The head timeout of HTTP/2: a connection with no stream open (none yet, or none since
    /// the last one ended) for ``StubServer/Configuration/requestHeadTimeout`` gets GOAWAY and
    /// is closed, as an HTTP/1.1 connection that sends no request head within it is (slowloris,
    /// idle keep-alive; nginx's `keepalive_timeout` on HTTP/2).
    private func awaitStreams() {
        idleTimer?.cancel()
        guard let channel else { return }
        let timeout = TimeAmount.nanoseconds(shared.configuration.requestHeadTimeout.nanoseconds)
        let connection = NIOLoopBound(self, eventLoop: channel.eventLoop)
        idleTimer = channel.eventLoop.scheduleTask(in: timeout) {
            let connection = connection.value
            guard connection.openStreams == 0 else { return }
            connection.goingAway = true
            connection.closeIfDone()
        }
    }

    // MARK: - Streams

    /// A stream's handler joined its pipeline (before the stream's first frame is read).
    func streamOpened(_ id: HTTP2StreamID?) {
        openStreams += 1
        idleTimer?.cancel()
        idleTimer = nil
        if let id { lastStreamID = max(lastStreamID, id) }
    }

    /// A stream's pipeline was torn down: the stream is closed.
    func streamClosed() {
        openStreams -= 1
        closeIfDone()
        if openStreams == 0, !goingAway { awaitStreams() }
    }

    // MARK: - Connection faults

    /// Sends GOAWAY naming the last stream opened, so that the streams in flight finish and
    /// the client opens no more; the connection closes once they have.
    func goAway() {
        guard !goingAway, let channel else { return }
        goingAway = true
        channel.writeAndFlush(Self.goAwayFrame(lastStreamID), promise: nil)
    }

    private func closeIfDone() {
        guard goingAway, openStreams == 0, let channel else { return }
        // A second GOAWAY (RFC 9113 allows repeats with the same stream id) leaves after every
        // frame before it: closing once it is written loses none of the last response.
        channel.writeAndFlush(Self.goAwayFrame(lastStreamID)).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func goAwayFrame(_ lastStreamID: HTTP2StreamID) -> HTTP2Frame {
        HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil))
    }

    /// Writes `bytes` below HTTP/2's framing, which garbles the connection for the client, then
    /// closes it: our side first, dropping what the client still sends for up to two seconds,
    /// so that the close is a FIN the client reads after the bytes, not an RST that may beat them.
    func garble(with bytes: Data) {
        guard let framing, let channel else { return }
        let buffer = framing.channel.allocator.buffer(bytes: bytes)
        try? channel.pipeline.syncOperations.addHandler(InputDropper(), position: .before(framing.handler))
        framing.writeAndFlush(NIOAny(IOData.byteBuffer(buffer))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    /// Reads and drops a garbled connection's input, in front of the HTTP/2 handler.
    private final class InputDropper: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event {
                context.close(promise: nil)
            }
        }
    }

    // MARK: - Header blocks

    /// The HEADERS block of `prepared`, made once per rendering on this connection.
    func headerBlock(for prepared: PreparedResponse) -> HPACKHeaders {
        guard let id = prepared.renderID else {
            return HTTP2HeaderBlock.response(status: prepared.status, headers: prepared.headers)
        }
        if let block = headerBlocks[id] { return block }
        if headerBlocks.count >= 256 { headerBlocks.removeAll() }
        let block = HTTP2HeaderBlock.response(status: prepared.status, headers: prepared.headers)
        headerBlocks[id] = block
        return block
    }
}
