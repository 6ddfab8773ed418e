import Foundation
import Logging
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
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
/// header fields 431, an HTTP/1.1 request without `Host` 400, each then a close; a connection
/// that does not deliver a request head within ``Configuration/requestHeadTimeout`` is closed
/// (with 408 if a head was begun), as is one whose body does not arrive within
/// ``Configuration/bodyTimeout``; `CONNECT` gets 501; unmatched requests get 404 with the
/// near-miss report, or are forwarded to ``Configuration/proxyUnmatched``. Refused requests
/// are journaled with what was read of them.
public final class StubServer: Sendable {
    /// Server settings.
    public struct Configuration: Sendable {
        /// The largest request body accepted, inclusive (default 10 MiB).
        public var maxBodySize: Int
        /// Where unmatched requests go instead of a 404 (journaled as `.proxy`).
        public var proxyUnmatched: URL?
        /// The bearer token the admin API requires; `nil` for none (loopback binds only).
        public var adminToken: String?
        /// Receives each finished interaction, e.g. to write a HAR (log lines go to ``logger``).
        public var onInteraction: (@Sendable (Interaction) -> Void)?
        /// How long a connection may take to deliver a complete request head, counted from when
        /// it opens or its previous response ends (default 30 s); then it is closed. This stops
        /// slowloris trickles and is also the idle timeout of keep-alive connections.
        public var requestHeadTimeout: Duration
        /// The most header fields a request may carry (default 256); more, or more than 80 KiB
        /// of header names and values, gets 431 Request Header Fields Too Large and a close.
        public var maxHeaderCount: Int
        /// How long a request's body may take to arrive in full, counted from its head (default
        /// 30 s); then the request gets 408 Request Timeout and a close.
        public var bodyTimeout: Duration
        /// Hosts a `CONNECT` may be intercepted for (decrypted and answered by the stubs), as
        /// host globs (`img.example.com`, `*.example.com`, `*` for every host; the default).
        /// Interception needs TLS (`start(serving:...:tls:)`); without it, `CONNECT` is refused.
        public var intercept: [String] = ["*"]
        /// Hosts a `CONNECT` is spliced to byte for byte, untouched (wins over ``intercept``),
        /// journaled as one `CONNECT` entry with the bytes each way.
        public var tunnel: [String] = []
        /// Where the request log goes: an `info` record per finished interaction (`warning` when
        /// a stub failed to render), and a `warning` when the journal limit drops entries. The
        /// default discards everything; see the README's "Logging" for the metadata.
        public var logger: Logger
        /// Whether the plain port also answers HTTP/2 with prior knowledge (h2c, default true):
        /// a connection that opens with HTTP/2's preface speaks HTTP/2, any other HTTP/1.1.
        public var http2: Bool
        /// The network every response is delivered on when its stub names none (`serve
        /// --network`); `nil` for full speed. ``StubServer/network`` changes it at run time.
        public var network: NetworkProfile?
        /// What the server does to connections before their first request (`serve --fault`),
        /// set on the registry when the server starts; `StubRegistry.connectionFault` and
        /// `PUT /__admin/settings` change it at run time.
        public var connectionFault: ConnectionFault?

        /// Creates a configuration.
        public init(
            maxBodySize: Int = 10 * 1024 * 1024, proxyUnmatched: URL? = nil, adminToken: String? = nil,
            onInteraction: (@Sendable (Interaction) -> Void)? = nil,
            requestHeadTimeout: Duration = .seconds(30), maxHeaderCount: Int = 256, bodyTimeout: Duration = .seconds(30),
            logger: Logger = Logger(label: "understudy", factory: { _ in SwiftLogNoOpLogHandler() }), http2: Bool = true,
            network: NetworkProfile? = nil
        ) {
            self.network = network
            self.logger = logger
            self.http2 = http2
            self.bodyTimeout = bodyTimeout
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
    /// `https://HOST:TLSPORT` when the server has TLS, with the port actually bound.
    public let httpsURL: URL?
    /// The stubs it serves.
    public let registry: StubRegistry
    /// The bound port.
    public let port: Int
    /// The bound TLS port, when the server has TLS.
    public let tlsPort: Int?
    /// The local CA whose leaves the server presents (`nil` without TLS, or with a certificate
    /// of your own): trust exactly this in a client, e.g. AsyncHTTPClient's `trustRoots`.
    public var certificateAuthority: CertificateAuthority? {
        try? shared.tls?.get().authority
    }

    /// The network responses are delivered on from now on, when their stub names none: set it
    /// in the middle of a test to slow everything that follows (as `PUT /__admin/network` does);
    /// `nil` goes back to ``Configuration/network`` (full speed without one). A stub's own
    /// `network`, `delay` and `bandwidth` win over it.
    ///
    /// ```swift
    /// server.network = .slow3G
    /// ```
    public var network: NetworkProfile? {
        get { shared.network.current }
        set { shared.network.runtime = newValue }
    }

    private let serverChannels: [any Channel]
    private let shared: ServerShared

    private init(
        baseURL: URL, httpsURL: URL?, registry: StubRegistry, port: Int, tlsPort: Int?,
        serverChannels: [any Channel], shared: ServerShared
    ) {
        self.baseURL = baseURL
        self.httpsURL = httpsURL
        self.registry = registry
        self.port = port
        self.tlsPort = tlsPort
        self.serverChannels = serverChannels
        self.shared = shared
    }

    /// Starts serving `registry`, over HTTP and, with `tls`, over HTTPS on a second port.
    ///
    /// ```swift
    /// let server = try await StubServer.start(serving: stubs, tls: .localCA)
    /// server.httpsURL                          // https://127.0.0.1:54322
    /// server.certificateAuthority?.pem         // what a client should trust
    /// ```
    /// - Parameters:
    ///   - registry: the stubs.
    ///   - host: the address to bind (default loopback). A non-loopback host needs an admin token.
    ///   - port: the port; 0 picks a free one (read it back from ``port``).
    ///   - configuration: limits, proxying, `CONNECT` routes and the admin token.
    ///   - tls: where certificates come from, for the HTTPS listener and for intercepting
    ///     `CONNECT`; `nil` for plain HTTP only (`CONNECT` is then refused unless tunnelled).
    ///   - tlsPort: the HTTPS port; 0 picks a free one (read it back from ``tlsPort``); `nil`
    ///     for no HTTPS listener, only `CONNECT` interception.
    public static func start(
        serving registry: StubRegistry, host: String = "127.0.0.1", port: Int = 0,
        configuration: Configuration = Configuration(), tls: TLS? = nil, tlsPort: Int? = 0
    ) async throws -> StubServer {
        if configuration.adminToken == nil, !isLoopback(host) {
            throw StartError(description: "binding \(host) exposes the admin API beyond this machine; pass an admin token (--admin-token) to bind a non-loopback host")
        }
        if let fault = configuration.connectionFault { registry.connectionFault = fault }
        let lazyTLS = tls.map { LazyTLS($0, registry: registry, http2: configuration.http2) }
        // An HTTPS listener needs its certificates now; interception alone makes them on first need.
        let provider = tlsPort == nil ? nil : try lazyTLS?.get().provider
        let shared = ServerShared(registry: registry, configuration: configuration, tls: lazyTLS)
        let urlHost = host.contains(":") ? "[\(host)]" : host

        let channel = try await bind(host: host, port: port, shared: shared) { channel in
            try ServerPipeline.configurePlain(channel, shared: shared)
        }
        let boundPort = channel.localAddress?.port ?? port
        shared.setListener(host: urlHost, port: boundPort)
        var channels = [channel]
        var boundTLSPort: Int?
        if let provider, let tlsPort {
            let tlsOrigin = ConnectionOrigin(scheme: "https", authority: shared.tlsListenerAuthority)
            let tlsChannel: any Channel
            do {
                tlsChannel = try await bind(host: host, port: tlsPort, shared: shared) { channel in
                    try provider.addTLS(to: channel.pipeline.syncOperations, defaultHost: host, position: .first) { name in
                        shared.noteServerName(name, of: channel)
                    }
                    try ServerPipeline.configureNegotiated(channel, shared: shared, origin: tlsOrigin, authority: nil)
                }
            } catch {
                try? await channel.close()
                throw error
            }
            boundTLSPort = tlsChannel.localAddress?.port ?? tlsPort
            shared.setTLSListener(host: urlHost, port: boundTLSPort!)
            channels.append(tlsChannel)
        }
        return StubServer(
            baseURL: URL(string: "http://\(urlHost):\(boundPort)")!,
            httpsURL: boundTLSPort.map { URL(string: "https://\(urlHost):\($0)")! },
            registry: registry, port: boundPort, tlsPort: boundTLSPort,
            serverChannels: channels, shared: shared
        )
    }

    private static func bind(
        host: String, port: Int, shared: ServerShared, initialize: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> any Channel {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            // Nothing here waits on writability (pacing uses timers): with NIO's default marks,
            // every large body would send writability events through the pipeline.
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 1 << 20, high: 4 << 20))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    switch shared.registry.drawConnectionFault() {
                    case nil:
                        try initialize(channel)
                    case .disconnectAtStart:
                        // Once registered and active: closed before a byte is read.
                        channel.eventLoop.execute { channel.close(promise: nil) }
                    case .stallAtStart:
                        // Nothing reads it; `stop()` closes it with the others.
                        try channel.syncOptions?.setOption(.autoRead, value: false)
                        shared.track(channel)
                    }
                }
            }
        do {
            return try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw StartError(description: "cannot listen on \(host):\(port): \(bindFailure(error))")
        }
    }

    /// Why a listener could not be bound, in words, with what to do for the usual causes.
    static func bindFailure(_ error: any Error) -> String {
        if case .unknown? = error as? SocketAddressError { return "no address found for this host name" }
        guard let error = error as? IOError else { return "\(error)" }
        let reason = String(cString: strerror(error.errnoCode))
        switch error.errnoCode {
        case EACCES:
            return "\(reason): this port needs privileges (root, or CAP_NET_BIND_SERVICE below 1024); use another, or 0 for any free port"
        case EADDRINUSE:
            return "\(reason): something else listens there; use another port, or 0 for any free port"
        case EADDRNOTAVAIL:
            return "\(reason): no network interface of this machine has that address"
        default:
            return reason
        }
    }

    /// Stops accepting, closes every connection (held `no-response` ones too) and waits.
    public func stop() async throws {
        for channel in serverChannels { try? await channel.close() }
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
