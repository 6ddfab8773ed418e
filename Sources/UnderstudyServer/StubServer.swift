import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Understudy

/// The stub registry on real sockets: an HTTP/1.1 origin server and forward proxy.
///
/// ```swift
/// let stubs = StubRegistry()
/// stubs.stub(.path("/cat.png"), response: .file(catPNG))
/// let server = try await StubServer.start(serving: stubs)   // 127.0.0.1, a free port
/// // point any client at server.baseURL, or use it as an http_proxy
/// try await server.stop()
/// ```
///
/// Keep-alive, pipelining and HEAD work; request bodies over ``Configuration/maxBodySize`` get
/// 413 and a close; a request the parser rejects gets 400, one with too many or too large
/// header fields 431, each then a close; a connection that does not deliver a request head
/// within ``Configuration/requestHeadTimeout`` is closed; `CONNECT` gets 501; unmatched requests get 404 with the near-miss report,
/// or are forwarded to ``Configuration/proxyUnmatched``.
public final class StubServer: Sendable {
    /// Server settings.
    public struct Configuration: Sendable {
        /// The largest request body accepted, inclusive (default 10 MiB).
        public var maxBodySize: Int
        /// Where unmatched requests go instead of a 404 (journaled as `.proxy`).
        public var proxyUnmatched: URL?
        /// The bearer token the admin API requires; `nil` for none (loopback binds only).
        public var adminToken: String?
        /// Receives each finished interaction, e.g. to print a log line.
        public var onInteraction: (@Sendable (Interaction) -> Void)?
        /// How long a connection may take to deliver a complete request head, counted from when
        /// it opens or its previous response ends (default 30 s); then it is closed. This stops
        /// slowloris trickles and is also the idle timeout of keep-alive connections.
        public var requestHeadTimeout: Duration
        /// The most header fields a request may carry (default 256); more, or more than 80 KiB
        /// of header names and values, gets 431 Request Header Fields Too Large and a close.
        public var maxHeaderCount: Int

        /// Creates a configuration.
        public init(
            maxBodySize: Int = 10 * 1024 * 1024, proxyUnmatched: URL? = nil, adminToken: String? = nil,
            onInteraction: (@Sendable (Interaction) -> Void)? = nil,
            requestHeadTimeout: Duration = .seconds(30), maxHeaderCount: Int = 256
        ) {
            self.maxBodySize = maxBodySize
            self.proxyUnmatched = proxyUnmatched
            self.adminToken = adminToken
            self.onInteraction = onInteraction
            self.requestHeadTimeout = requestHeadTimeout
            self.maxHeaderCount = maxHeaderCount
        }
    }

    /// Why the server would not start.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// What was wrong.
        public let description: String
    }

    /// `http://HOST:PORT`, with the port actually bound.
    public let baseURL: URL
    /// The stubs it serves.
    public let registry: StubRegistry
    /// The bound port.
    public let port: Int

    private let serverChannel: any Channel
    private let shared: ServerShared

    private init(baseURL: URL, registry: StubRegistry, port: Int, serverChannel: any Channel, shared: ServerShared) {
        self.baseURL = baseURL
        self.registry = registry
        self.port = port
        self.serverChannel = serverChannel
        self.shared = shared
    }

    /// Starts serving `registry`.
    /// - Parameters:
    ///   - registry: the stubs.
    ///   - host: the address to bind (default loopback). A non-loopback host needs an admin token.
    ///   - port: the port; 0 picks a free one (read it back from ``port``).
    ///   - configuration: limits, proxying and the admin token.
    public static func start(
        serving registry: StubRegistry, host: String = "127.0.0.1", port: Int = 0,
        configuration: Configuration = Configuration()
    ) async throws -> StubServer {
        if configuration.adminToken == nil, !isLoopback(host) {
            throw StartError(description: "binding \(host) exposes the admin API beyond this machine; pass an admin token (--admin-token) to bind a non-loopback host")
        }
        let shared = ServerShared(registry: registry, configuration: configuration, scheme: "http")
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            // Nothing here waits on writability (pacing uses timers): with NIO's default 64 KiB
            // mark, every 100 KB body sent two writability events through the pipeline.
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 1 << 20, high: 4 << 20))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    var limits = NIOHTTPDecoderLimitConfiguration()
                    limits.maxHeaderFieldCount = configuration.maxHeaderCount
                    let silentInput = SilentInputGuard(limit: 2 * limits.maxHeaderListSize)
                    // NIOHTTP1 parses requests; `StubHTTPHandler` answers them, pipelined ones in
                    // order, and frames its own responses (see `WireResponse`).
                    try channel.pipeline.syncOperations.addHandlers(
                        silentInput,
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)),
                        StubHTTPHandler(shared: shared, wireResponses: shared.wireResponses(for: channel.eventLoop), silentInput: silentInput)
                    )
                    shared.track(channel)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw StartError(description: "cannot listen on \(host):\(port): \(error)")
        }
        let boundPort = channel.localAddress?.port ?? port
        let urlHost = host.contains(":") ? "[\(host)]" : host
        shared.setListener(host: urlHost, port: boundPort)
        return StubServer(
            baseURL: URL(string: "http://\(urlHost):\(boundPort)")!,
            registry: registry, port: boundPort, serverChannel: channel, shared: shared
        )
    }

    /// Stops accepting, closes every connection (held `no-response` ones too) and waits.
    public func stop() async throws {
        try? await serverChannel.close()
        await shared.closeAll()
        try? await shared.upstream.shutdown()
    }

    /// Whether binding `host` keeps the admin API on this machine: `localhost` or a numeric
    /// loopback address (127.0.0.0/8, ::1). A name such as `127.0.0.1.example.com` is not one,
    /// however it starts: it binds wherever DNS says.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) } == Array(repeating: 0, count: 15) + [1]
        }
        return false
    }
}

/// What every connection's handler shares: the registry, settings, upstream client and the
/// set of open connections (so `stop()` can close them).
final class ServerShared: Sendable {
    let registry: StubRegistry
    let configuration: StubServer.Configuration
    let scheme: String
    let upstream = HTTPClientUpstream()
    let admin: AdminAPI
    /// One cache of framed responses per event loop, each used only on its loop.
    private let wireResponseCaches = LockedState<[ObjectIdentifier: WireResponseCache]>([:])
    private let state = LockedState<(channels: [ObjectIdentifier: any Channel], host: String, port: Int)>(([:], "127.0.0.1", 0))

    init(registry: StubRegistry, configuration: StubServer.Configuration, scheme: String) {
        self.registry = registry
        self.configuration = configuration
        self.scheme = scheme
        self.admin = AdminAPI(registry: registry, token: configuration.adminToken)
    }

    /// The framed-response cache of `eventLoop`, for the connections it serves: looked up once
    /// per connection, then used without a lock.
    func wireResponses(for eventLoop: any EventLoop) -> WireResponseCache {
        wireResponseCaches.withLock { caches in
            if let cache = caches[ObjectIdentifier(eventLoop)] { return cache }
            let cache = WireResponseCache()
            caches[ObjectIdentifier(eventLoop)] = cache
            return cache
        }
    }

    var renderContext: RenderContext {
        RenderContext(upstream: upstream)
    }

    var listener: (host: String, port: Int) {
        state.withLock { ($0.host, $0.port) }
    }

    func setListener(host: String, port: Int) {
        state.withLock {
            $0.host = host
            $0.port = port
        }
    }

    func track(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { $0.channels[key] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { _ = $0.channels.removeValue(forKey: key) }
        }
    }

    func closeAll() async {
        let channels = state.withLock { Array($0.channels.values) }
        for channel in channels {
            try? await channel.close()
        }
    }
}
