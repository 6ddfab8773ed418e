import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A small HTTP/2 client (h2c with prior knowledge) on NIO's own HTTP/2 codec, for what curl and
/// httpx do not show: several streams on one connection, and each stream's frames, resets and
/// the connection's GOAWAY as they arrived.
final class HTTP2TestClient: Sendable {
    /// What one stream received.
    struct Response: Sendable {
        /// The HEADERS block, pseudo-headers included; `nil` when none came.
        var headers: HPACKHeaders?
        var body = [UInt8]()
        /// The code of the RST_STREAM that ended it, if one did.
        var reset: HTTP2ErrorCode?
        /// Whether it ended with END_STREAM.
        var ended = false

        var status: String? { headers?.first(name: ":status") }
    }

    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let goAways: NIOLockedValueBox<[HTTP2StreamID]>

    private init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, goAways: NIOLockedValueBox<[HTTP2StreamID]>) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.goAways = goAways
    }

    /// Opens a connection to 127.0.0.1:`port` and sends the preface.
    /// - Parameters:
    ///   - trusting: over TLS (ALPN `h2`), trusting only this CA's certificate (DER); h2c with
    ///     prior knowledge when `nil`. Either way the requests' `:scheme` is `http`, as
    ///     ``start(_:method:authority:headers:body:trailers:endsStream:omitting:timeout:)`` sends it.
    ///   - validatesContentLength: whether NIO checks DATA against `content-length` (off to
    ///     see what a server sent beyond it, or to send a request that breaks it).
    ///   - validatesHeaders: whether NIO checks header blocks (off to send malformed ones).
    static func connect(
        port: Int, trusting ca: [UInt8]? = nil, validatesContentLength: Bool = true, validatesHeaders: Bool = true
    ) async throws -> HTTP2TestClient {
        let goAways = NIOLockedValueBox<[HTTP2StreamID]>([])
        let tls = try ca.map { der in
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: der, format: .der)])
            configuration.applicationProtocols = ["h2"]
            return try NIOSSLContext(configuration: configuration)
        }
        let (channel, multiplexer) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: nil)) }
                    var configuration = NIOHTTP2Handler.ConnectionConfiguration()
                    configuration.contentLengthValidation = validatesContentLength ? .enabled : .disabled
                    configuration.headerBlockValidation = validatesHeaders ? .enabled : .disabled
                    let multiplexer = try sync.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: configuration, streamConfiguration: .init()
                    ) { stream in stream.eventLoop.makeSucceededVoidFuture() }
                    try sync.addHandler(GoAwayRecorder(goAways: goAways))
                    return (channel, multiplexer)
                }
            }
        return HTTP2TestClient(channel: channel, multiplexer: multiplexer, goAways: goAways)
    }

    /// The last-stream ids of the GOAWAY frames received so far.
    var goAwaysReceived: [HTTP2StreamID] { goAways.withLockedValue { $0 } }

    /// Whether the server has closed the connection.
    var isClosed: Bool { !channel.isActive }

    /// Sends a request on a new stream and waits until it ends (END_STREAM, RST_STREAM or the
    /// connection's close) or `timeout` passes.
    func send(
        _ path: String, method: String = "GET", authority: String = "img.example.com", headers extra: [(String, String)] = [],
        body: [UInt8]? = nil, trailers: HPACKHeaders? = nil, endsStream: Bool = true, omitting omitted: Set<String> = [],
        timeout: TimeAmount = .seconds(10)
    ) async throws -> Response {
        try await start(
            path, method: method, authority: authority, headers: extra, body: body, trailers: trailers, endsStream: endsStream, omitting: omitted,
            timeout: timeout
        ).get()
    }

    /// Sends a request on a new stream; the future completes as ``send(_:method:authority:headers:body:endsStream:omitting:timeout:)`` returns.
    /// `omitted` names pseudo-header fields left out of the block (a malformed request);
    /// `trailers`, when given, follow the body as a last HEADERS frame that ends the stream.
    func start(
        _ path: String, method: String = "GET", authority: String = "img.example.com", headers extra: [(String, String)] = [],
        body: [UInt8]? = nil, trailers: HPACKHeaders? = nil, endsStream: Bool = true, omitting omitted: Set<String> = [],
        timeout: TimeAmount = .seconds(10)
    ) -> EventLoopFuture<Response> {
        let done = channel.eventLoop.makePromise(of: Response.self)
        var block = HPACKHeaders()
        for (name, value) in [(":method", method), (":scheme", "http"), (":authority", authority), (":path", path)] where !omitted.contains(name) {
            block.add(name: name, value: value)
        }
        for (name, value) in extra { block.add(name: name, value: value) }
        let requestHeaders = block
        multiplexer.createStreamChannel { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(StreamRecorder(done: done))
                // With `endsStream` false the request stops short: its body never ends.
                let last = trailers == nil && endsStream
                stream.write(HTTP2Frame.FramePayload.headers(.init(headers: requestHeaders, endStream: body == nil && last)), promise: nil)
                if let body {
                    stream.write(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: last)), promise: nil)
                }
                if let trailers {
                    stream.write(HTTP2Frame.FramePayload.headers(.init(headers: trailers, endStream: true)), promise: nil)
                }
                stream.flush()
            }
        }.whenFailure { done.fail($0) }
        let timer = channel.eventLoop.scheduleTask(in: timeout) { done.fail(ChannelError.connectTimeout(timeout)) }
        done.futureResult.whenComplete { _ in timer.cancel() }
        return done.futureResult
    }

    func close() async {
        try? await channel.close()
    }
}

/// Collects one stream's frames.
private final class StreamRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let done: EventLoopPromise<HTTP2TestClient.Response>
    private var response = HTTP2TestClient.Response()
    private var finished = false

    init(done: EventLoopPromise<HTTP2TestClient.Response>) {
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            if response.headers == nil { response.headers = headers.headers }
            if headers.endStream { finish(ended: true) }
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data { response.body += Array(buffer.readableBytesView) }
            if data.endStream { finish(ended: true) }
        case .rstStream(let code):
            response.reset = code
            finish(ended: false)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            response.reset = closed.errorCode
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(ended: false)
        context.fireChannelInactive()
    }

    private func finish(ended: Bool) {
        guard !finished else { return }
        finished = true
        if ended { response.ended = true }
        done.succeed(response)
    }
}

/// Notes the connection's GOAWAY frames.
private final class GoAwayRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let goAways: NIOLockedValueBox<[HTTP2StreamID]>

    init(goAways: NIOLockedValueBox<[HTTP2StreamID]>) {
        self.goAways = goAways
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway(let lastStreamID, _, _) = unwrapInboundIn(data).payload {
            goAways.withLockedValue { $0.append(lastStreamID) }
        }
        context.fireChannelRead(data)
    }
}
