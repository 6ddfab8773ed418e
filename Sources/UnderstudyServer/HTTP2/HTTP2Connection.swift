import Foundation
internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP1
internal import NIOHTTP2
import Understudy
import UnderstudyImages
import UnderstudySupport

/// An HTTP/2 connection's streams, behind NIO's HTTP/2 handler on the connection's own
/// pipeline: it hands each stream's frames to its ``HTTP2Stream``, gives the client more
/// flow-control window as request bodies are read, and ends streams as NIO reports them
/// closed. A stream is an object, not a channel of its own: opening one costs an allocation,
/// not a pipeline.
///
/// It also holds what the streams share: the server's settings, the ``StubExchange`` that answers
/// them, the HEADERS blocks of the renderings it sent, and the connection-wide faults (`goaway`, garbage).
final class HTTP2Connection: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let shared: ServerShared
    let listener: @Sendable () -> String
    let eventLoop: any EventLoop
    /// Answers the streams' requests.
    let exchange: StubExchange

    /// This handler's context: frames written here go through NIO's HTTP/2 handler.
    private var context: ChannelHandlerContext?
    private var streams: [HTTP2StreamID: HTTP2Stream] = [:]
    private var lastStreamID = HTTP2StreamID(0)
    private var goingAway = false
    /// The connection's `limit-data`, once an answer set it: one for all its streams.
    private(set) var dataLimit: DataLimitHandler?
    /// Closes the connection once it has had no stream for the head timeout (see ``awaitStreams()``).
    private var idleTimer: LoopAlarm?
    /// Since when no stream has been open; `nil` while one is.
    private var idleSince: NIODeadline?
    /// The loop's HEADERS blocks by rendering.
    private let headerBlocks: HTTP2HeaderBlockCache
    /// The rendering of the last HEADERS block sent from a rendering.
    private var lastRenderID: UInt64?
    private let connectionWindow = HTTP2InboundWindow()
    /// Inside a read, flushes wait for its end, and then for the end of the loop's turn
    /// (``TurnFlushes``): the streams a turn answers, on every connection, leave together.
    private var reading = false
    private var flushPending = false
    private let flushes: TurnFlushes

    init(
        shared: ServerShared, scheme: String, listener: @escaping @Sendable () -> String, eventLoop: any EventLoop,
        connection: ServerConnection = ServerConnection(index: 0)
    ) {
        self.shared = shared
        self.listener = listener
        self.eventLoop = eventLoop
        self.exchange = StubExchange(
            shared: shared, origin: ConnectionOrigin(scheme: scheme, authority: listener), eventLoop: eventLoop,
            allocator: ByteBufferAllocator(), httpVersion: .http2, connection: connection
        )
        let resources = shared.resources(for: eventLoop)
        self.headerBlocks = resources.headerBlocks
        self.flushes = resources.flushes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        awaitStreams()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeAllStreams()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeAllStreams()
        context.fireChannelInactive()
    }

    private func closeAllStreams() {
        let open = streams.values
        streams.removeAll()
        for stream in open { stream.closed() }
        idleTimer?.cancel()
        idleTimer = nil
    }

    // MARK: - Frames in

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        reading = true
        switch frame.payload {
        case .headers, .data:
            if let stream = streams[frame.streamID] {
                stream.read(frame.payload)
            } else if case .headers = frame.payload {
                // NIO lets through only HEADERS that open a stream here: a new one.
                open(frame.streamID).read(frame.payload)
            }
        default:
            // Connection frames are NIO's; RST_STREAM arrives as a StreamClosedEvent.
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        if flushPending {
            flushPending = false
            flushes.flushAtTurnEnd(context)
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            if let stream = streams.removeValue(forKey: closed.streamID) {
                stream.closed()
                streamClosed()
            }
        case let window as NIOHTTP2WindowUpdatedEvent:
            guard let size = window.inboundWindowSize else { break }
            if window.streamID == .rootStream {
                if let increment = connectionWindow.increment(for: size) {
                    write(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment)), promise: nil)
                    flush()
                }
            } else if let stream = streams[window.streamID], let increment = stream.windowIncrement(for: size) {
                write(HTTP2Frame(streamID: window.streamID, payload: .windowUpdate(windowSizeIncrement: increment)), promise: nil)
                flush()
            }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIO names the stream only for errors of frames written to it (it reset the stream,
        // or the client did); the stream's answer is over either way.
        if let error = error as? NIOHTTP2Errors.StreamError {
            streams[error.streamID]?.failed(error.baseError)
        } else if let error = error as? NIOHTTP2Errors.TrailersWithoutEndStream {
            // The one malformed request NIO refuses itself, before the frame reaches the
            // stream; it has reset the stream, which journals the request with why.
            streams[error.streamID]?.refusedByNIO("trailers without END_STREAM (RFC 9113 section 8.1)")
            return
        }
        context.fireErrorCaught(error)
    }

    // MARK: - Frames out

    /// Writes `frame` through NIO's HTTP/2 handler, which keeps DATA within the client's
    /// flow-control windows.
    func write(_ frame: HTTP2Frame, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(frame), promise: promise)
    }

    /// Sends what was written: at the end of the read under way, or now.
    func flush() {
        if reading {
            flushPending = true
        } else {
            context?.flush()
        }
    }

    // MARK: - Streams

    /// Answers a whole request of `stream`.
    func answer(_ head: RequestHead, body: ByteBuffer?, arrival: ServerRequest.Arrival, bodyUnread: Bool = false, on stream: HTTP2Stream) {
        exchange.answer(head, body: body, arrival: arrival, bodyUnread: bodyUnread, to: stream)
    }

    private func open(_ id: HTTP2StreamID) -> HTTP2Stream {
        let stream = HTTP2Stream(id: id, connection: self)
        streams[id] = stream
        lastStreamID = max(lastStreamID, id)
        idleSince = nil
        return stream
    }

    private func streamClosed() {
        closeIfDone()
        if streams.isEmpty, !goingAway { awaitStreams() }
    }

    /// The head timeout of HTTP/2: a connection with no stream open (none yet, or none since
    /// the last one ended) for ``StubServer/Configuration/requestHeadTimeout`` gets GOAWAY and
    /// is closed, as an HTTP/1.1 connection that sends no request head within it is (slowloris,
    /// idle keep-alive; nginx's `keepalive_timeout` on HTTP/2).
    ///
    /// One timer at a time, as on HTTP/1.1: a stream opening does not cancel it, and when it
    /// fires it looks at how long the connection has been idle. A client whose streams all end
    /// now and then (a page's batch of images, a load generator's `-m10`) would otherwise
    /// schedule and cancel a timer for each batch.
    private func awaitStreams() {
        idleSince = eventLoop.now
        if idleTimer == nil { scheduleIdleTimer(at: eventLoop.now + idleTimeout) }
    }

    private var idleTimeout: TimeAmount {
        .nanoseconds(shared.configuration.requestHeadTimeout.nanoseconds)
    }

    private func scheduleIdleTimer(at deadline: NIODeadline) {
        idleTimer = exchange.clock.alarm(at: deadline) { [self] in
            idleTimer = nil
            // A stream is open: when the last one ends, the count starts again.
            guard streams.isEmpty, let idleSince else { return }
            guard eventLoop.now - idleSince >= idleTimeout else {
                return scheduleIdleTimer(at: idleSince + idleTimeout)
            }
            goingAway = true
            closeIfDone()
        }
    }

    // MARK: - Connection faults

    /// Sends GOAWAY naming the last stream opened, so that the streams in flight finish and
    /// the client opens no more; the connection closes once they have.
    func goAway() {
        guard !goingAway, let context else { return }
        goingAway = true
        context.writeAndFlush(wrapOutboundOut(Self.goAwayFrame(lastStreamID)), promise: nil)
        // The last stream may have ended already (`shutdown-output-at-end` sends it after).
        closeIfDone()
    }

    /// Lets the connection carry `bytes` more in all, its frames below HTTP/2 counted, then
    /// closes it: every stream on it breaks, as when a link gives out. A limit set before stays.
    func limitData(_ bytes: Int) {
        guard dataLimit == nil, let context else { return }
        let handler = DataLimitHandler(limit: bytes)
        do {
            try context.pipeline.syncOperations.addHandler(handler, position: .first)
            dataLimit = handler
        } catch {
            context.close(promise: nil)
        }
    }

    private func closeIfDone() {
        guard goingAway, streams.isEmpty, let context else { return }
        // A second GOAWAY (HTTP/2 allows repeats with the same stream id) leaves after every
        // frame before it: closing once it is written loses none of the last response.
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(Self.goAwayFrame(lastStreamID))).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func goAwayFrame(_ lastStreamID: HTTP2StreamID) -> HTTP2Frame {
        HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil))
    }

    /// Garbles the connection for the client with `bytes` below HTTP/2's framing, then closes
    /// it (see ``Garbler``).
    func garble(with bytes: Data) {
        guard let context else { return }
        let sync = context.pipeline.syncOperations
        guard let framing = try? sync.handler(type: NIOHTTP2Handler.self) else { return }
        try? sync.addHandler(Garbler(bytes, clock: exchange.clock), position: .before(framing))
    }

    /// Put in front of the HTTP/2 handler to garble a connection: writes its bytes there, on its
    /// own context, below the framing, then closes our side first, dropping what the client
    /// still sends for up to two seconds, so that the close is a FIN the client reads after the
    /// bytes, not an RST that may beat them.
    private final class Garbler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = IOData

        private let bytes: Data
        private let clock: LoopClock

        init(_ bytes: Data, clock: LoopClock) {
            self.bytes = bytes
            self.clock = clock
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let channel = context.channel
            let clock = clock
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(channel.allocator.buffer(bytes: bytes)))).assumeIsolated().whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                clock.alarm(in: .seconds(2)) { channel.close(promise: nil) }
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event {
                context.close(promise: nil)
            }
        }
    }

    // MARK: - Header blocks

    /// The HEADERS block of `prepared`, made once per rendering on this loop. Its
    /// per-response fields (ETag, ...) are not indexed, so that many renderings in turn do not
    /// churn the HPACK table, unless it is the rendering sent last: a client asking for one
    /// URL over and over then gets them as table indexes.
    func headerBlock(for prepared: PreparedResponse) -> HPACKHeaders {
        guard let id = prepared.renderID else {
            return HTTP2HeaderBlock.response(status: prepared.status, headers: prepared.headers)
        }
        let repeated = id == lastRenderID
        lastRenderID = id
        return headerBlocks.block(for: prepared, id: id, repeated: repeated)
    }
}
