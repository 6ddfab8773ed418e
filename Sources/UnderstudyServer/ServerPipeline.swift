internal import NIOCore
internal import NIOHTTP1

/// The handlers of a connection, in order, each one concern (the swift-nio way):
///
/// ```
/// bytes ─▶ SilentInputGuard ─▶ HTTPRequestDecoder ─▶ HTTP1ConnectionHandler ─▶ AdminRouteHandler ─▶ StubRequestHandler
///          (chunk-framing      (NIOHTTP1 parses)     (order, limits,           (/__admin/ to the      (StubResponder decides,
///           floods)                                   timeouts, refusals)       AdminAPI)              DeliveryDriver delivers)
/// ```
///
/// Responses are framed by ``WireResponse`` and written as bytes straight to the socket.
enum ServerPipeline {
    /// Sets up `channel` for HTTP/1.1 on `shared`'s registry.
    static func configureHTTP1(_ channel: any Channel, shared: ServerShared) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldCount = shared.configuration.maxHeaderCount
        let silentInput = SilentInputGuard(limit: 2 * limits.maxHeaderListSize)
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(silentInput)
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)))
        try sync.addHandlers(http1Handlers(shared: shared, eventLoop: channel.eventLoop, silentInput: silentInput))
        shared.track(channel)
    }

    /// The handlers behind the request decoder (what handler tests put on an embedded channel).
    static func http1Handlers(shared: ServerShared, eventLoop: any EventLoop, silentInput: SilentInputGuard? = nil) -> [any ChannelHandler] {
        [
            HTTP1ConnectionHandler(settings: shared.http1Settings, silentInput: silentInput),
            AdminRouteHandler(admin: shared.admin),
            StubRequestHandler(shared: shared, wireResponses: shared.wireResponses(for: eventLoop)),
        ]
    }
}
