internal import NIOCore
internal import NIOHTTP1

/// The handlers of an HTTP/1.1 connection, in order, each one concern (the swift-nio way):
///
/// ```
/// bytes ─▶ InputEndFlush ─▶ [TLS] ─▶ ReadTap ─▶ HTTPRequestDecoder ─▶ HTTP1ConnectionHandler
///          (flushes at       (NIOSSL) (tells of     (NIOHTTP1 parses)    (order, limits, timeouts,
///           the input's end)           each read                         refusals; its HTTP1Answerer:
///                                      behind it)                        /__admin/ to the AdminAPI,
///                                                                        else the StubExchange)
/// ```
///
/// The handlers of ours share no state: ``ReadTap`` tells the connection handler of each read
/// with an event through the pipeline. Concerns that need no place of their own in the pipeline
/// (the answering) are objects the handlers call: each handler costs every read,
/// `channelReadComplete` and `read` a hop.
///
/// Responses are framed by ``WireResponse`` and written as bytes straight to the socket, and
/// flushed at the end of the event loop's turn (``TurnFlushes``), or at once after a read that
/// may have reached the end of the client's input (``InputEndFlush``, in front of any TLS).
enum ServerPipeline {
    /// Sets up `channel` for HTTP/1.1 on `shared`'s registry.
    /// - Parameters:
    ///   - channel: the connection.
    ///   - shared: what all connections share.
    ///   - origin: the scheme requests are matched on and the authority of requests naming none:
    ///     the plain listener's, the TLS listener's, or an intercepted `CONNECT`'s.
    ///   - applicationProtocol: what ALPN chose, over TLS.
    static func configureHTTP1(_ channel: any Channel, shared: ServerShared, origin: ConnectionOrigin? = nil, applicationProtocol: String? = nil) throws {
        let sync = channel.pipeline.syncOperations
        let connection = ServerConnection.accepted(channel, shared: shared, applicationProtocol: applicationProtocol)
        let handlers = http1Handlers(shared: shared, eventLoop: channel.eventLoop, origin: origin ?? shared.plainOrigin, connection: connection)
        // First of all, before any TLS: it sees the reads as they came from the socket.
        try sync.addHandler(InputEndFlush(flushes: shared.resources(for: channel.eventLoop).flushes), position: .first)
        try sync.addHandler(ReadTap())
        try sync.addHandler(requestDecoder(maxHeaderCount: shared.configuration.maxHeaderCount))
        try sync.addHandlers(handlers.all)
        shared.track(channel)
    }

    /// NIOHTTP1's request parser with the server's limit on header fields.
    static func requestDecoder(maxHeaderCount: Int) -> ByteToMessageHandler<HTTPRequestDecoder> {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldCount = maxHeaderCount
        return ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits))
    }

    /// The handlers behind the request decoder (what handler tests put on an embedded channel).
    static func http1Handlers(
        shared: ServerShared, eventLoop: any EventLoop, origin: ConnectionOrigin? = nil, connection: ServerConnection = ServerConnection(index: 0)
    ) -> (all: [any ChannelHandler], connection: HTTP1Connection) {
        let origin = origin ?? shared.plainOrigin
        let exchange = StubExchange(
            shared: shared, origin: origin, eventLoop: eventLoop, allocator: ByteBufferAllocator(), httpVersion: .http1_1, connection: connection
        )
        let resources = shared.resources(for: eventLoop)
        let connection = HTTP1Connection(exchange: exchange)
        let answerer = HTTP1Answerer(shared: shared, connection: connection, flushes: resources.flushes)
        let manners = HTTP1ConnectionHandler(settings: shared.http1Settings(origin), connection: connection, answerer: answerer)
        return ([manners], connection)
    }
}

/// Where a connection's requests are matched: the scheme, and the authority of a request that
/// names none (the listener's address, or the host an intercepted `CONNECT` asked for).
struct ConnectionOrigin: Sendable {
    /// `http` or `https`.
    let scheme: String
    /// `host:port`.
    let authority: @Sendable () -> String
}
