internal import NIOCore
internal import NIOHTTP1
internal import NIOHTTP2
internal import NIOTLS

extension ServerPipeline {
    /// Sets up a connection to the plain port: HTTP/1.1, or with ``StubServer/Configuration/http2``
    /// an ``HTTPVersionSniffer`` in front that chooses between h2c and HTTP/1.1 by the first bytes.
    static func configurePlain(_ channel: any Channel, shared: ServerShared) throws {
        guard shared.configuration.http2 else {
            return try configureHTTP1(channel, shared: shared)
        }
        shared.track(channel)
        let timeout = TimeAmount.nanoseconds(shared.configuration.requestHeadTimeout.nanoseconds)
        let sniffer = HTTPVersionSniffer(timeout: timeout, clock: shared.resources(for: channel.eventLoop).clock) { version, channel in
            switch version {
            case .http1: try configureHTTP1(channel, shared: shared)
            case .http2: try configureHTTP2(channel, shared: shared, scheme: "http", authority: nil)
            }
        }
        try channel.pipeline.syncOperations.addHandler(sniffer)
    }

    /// Sets up a TLS connection (a listener's, or an intercepted `CONNECT`'s) for what its
    /// handshake negotiates by ALPN: HTTP/2 for `h2`, else HTTP/1.1. The TLS handlers must be in
    /// front already (``TLSContextProvider/addTLS(to:defaultHost:position:)``).
    static func configureNegotiated(_ channel: any Channel, shared: ServerShared, origin: ConnectionOrigin, authority: String?) throws {
        let negotiation = ApplicationProtocolNegotiationHandler { result, channel in
            channel.eventLoop.makeCompletedFuture {
                let chosen: String?
                if case .negotiated(let name) = result { chosen = name } else { chosen = nil }
                if chosen == "h2", shared.configuration.http2 {
                    try configureHTTP2(channel, shared: shared, scheme: origin.scheme, authority: authority, applicationProtocol: chosen)
                } else {
                    try configureHTTP1(channel, shared: shared, origin: origin, applicationProtocol: chosen)
                }
            }
        }
        try channel.pipeline.syncOperations.addHandler(negotiation)
        shared.track(channel)
    }

    /// Sets up `channel` for HTTP/2: after h2c's preface on the plain port, or after TLS
    /// negotiated `h2` by ALPN. Call it on the channel's event loop.
    ///
    /// ```
    /// bytes ─▶ InputEndFlush ─▶ [TLS] ─▶ NIOHTTP2Handler ─▶ HTTP2Connection
    ///                                    (frames, HPACK,     ├─ HTTP2Stream  (one object per stream, no channel:
    ///                                     flow control)      └─ HTTP2Stream   frames out through its HTTP2FramePort)
    /// ```
    ///
    /// Each stream runs the same responder and delivery plans as an HTTP/1.1 request, through
    /// an ``HTTP2ResponseWriter``; faults act on their own stream (see ``HTTP2FaultAction``).
    /// - Parameters:
    ///   - channel: the connection, with anything below HTTP (TLS) already in its pipeline.
    ///   - shared: the server's registry, responder and settings.
    ///   - scheme: what requests are matched on: `http` for h2c, `https` under TLS.
    ///   - authority: the host requests name when they carry no `:authority`: the CONNECT
    ///     target inside an intercepted tunnel; `nil` for the listener's own address.
    static func configureHTTP2(
        _ channel: any Channel, shared: ServerShared, scheme: String, authority: String?, applicationProtocol: String? = nil
    ) throws {
        let listener: @Sendable () -> String
        if let authority {
            listener = { authority }
        } else {
            listener = shared.listenerAuthority
        }
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        // Off so that `malformed-chunk` can send DATA beyond its content-length; requests are
        // checked against their declared length by HTTP2Stream instead.
        connectionConfiguration.contentLengthValidation = .disabled
        // Off because it checks the blocks sent as well as those received, and ours are checked
        // already (WireResponse). A request's block is checked where it is read, by
        // `RequestHead(http2Request:)`, its trailers by HTTP2FieldRules.
        connectionConfiguration.headerBlockValidation = .disabled
        // Without a stream initializer NIO's handler passes every frame on, to HTTP2Connection.
        let framing = NIOHTTP2Handler(mode: .server, connectionConfiguration: connectionConfiguration, streamConfiguration: .init())
        let handlers: [any ChannelHandler] = [
            framing,
            HTTP2Connection(
                shared: shared, scheme: scheme, listener: listener, eventLoop: channel.eventLoop,
                connection: ServerConnection.accepted(channel, shared: shared, applicationProtocol: applicationProtocol)
            ),
        ]
        try channel.pipeline.syncOperations.addHandlers(handlers)
        if let tls = try? channel.pipeline.syncOperations.context(name: TLSContextProvider.tlsHandlerName) {
            try channel.pipeline.syncOperations.addHandler(TLSWriteCoalescer(), position: .after(tls.handler))
        }
        // First of all, before any TLS: it sees the reads as they came from the socket.
        try channel.pipeline.syncOperations.addHandler(InputEndFlush(flushes: shared.resources(for: channel.eventLoop).flushes), position: .first)
        shared.track(channel)
    }
}
