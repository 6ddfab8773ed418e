import Foundation
internal import NIOCore
import Understudy
import UnderstudyImages
import UnderstudySupport

/// What every connection's handler shares: the registry, settings, upstream client and the
/// set of open connections (so `stop()` can close them).
final class ServerShared: Sendable {
    let registry: StubRegistry
    let configuration: StubServer.Configuration
    let upstream = HTTPClientUpstream()
    let admin: AdminAPI
    /// TLS for the HTTPS listener and intercepted `CONNECT`s, when the server has it.
    let tls: LazyTLS?
    /// Answers every connection's requests and journals them.
    let responder: StubResponder
    /// The network responses are delivered on: `--network`, and the admin API's over it.
    let network: NetworkSetting
    /// The renderings every event loop's framed-response cache shares.
    private let sharedWireResponses = SharedWireResponses()
    /// What each event loop's connections share, bound to that loop.
    private let loopResources = LockedState<[ObjectIdentifier: NIOLoopBound<LoopResources>]>([:])
    private let state: LockedState<(channels: [ObjectIdentifier: Tracked], host: String, port: Int)>
    /// Connections accepted so far, the last one's index.
    private let accepted = LockedState(0)

    /// An open connection: the channel, its index, and the server name its TLS hello asked for.
    private struct Tracked {
        let channel: any Channel
        let index: Int
        var serverName: String?
    }

    init(
        registry: StubRegistry, configuration: StubServer.Configuration, tls: LazyTLS? = nil
    ) {
        self.tls = tls
        self.registry = registry
        self.configuration = configuration
        let state = LockedState<(channels: [ObjectIdentifier: Tracked], host: String, port: Int)>(([:], "127.0.0.1", 0))
        self.state = state
        let network = NetworkSetting(base: configuration.network)
        self.network = network
        self.admin = AdminAPI(
            registry: registry, token: configuration.adminToken, connectionCount: { state.withLock { $0.channels.count } },
            certificateAuthorityPEM: { try? tls?.get().authority?.pem }, network: network
        )
        self.responder = StubResponder(
            registry: registry, transport: .server, upstream: upstream,
            unmatched: configuration.proxyUnmatched.map { .forward($0) } ?? .notFound,
            observer: Self.observer(configuration, journal: registry.journal),
            unmatchedNote: { request in
                Self.dashboardNote(for: request, at: "http://\(state.withLock { "\($0.host):\($0.port)" })")
            },
            network: network
        )
    }

    /// What the connections of one event loop share, each used only on that loop.
    struct LoopResources {
        /// Its framed responses.
        let wireResponses: WireResponseCache
        /// Its wake-ups: deliveries' waits and connections' timeouts.
        let clock: LoopClock
        /// Its HTTP/2 HEADERS blocks.
        let headerBlocks: HTTP2HeaderBlockCache
        /// Its turn's look at changed files, shared by the requests it reads in one turn.
        let fileChecks: FileCheckTurn
        /// Its turn's flushes, made together at the turn's end.
        let flushes: TurnFlushes
        /// What the stubs decided for its requests, by head.
        let decisions = DecisionCache()
    }

    /// The resources of `eventLoop`, for the connections it serves: looked up once per
    /// connection, then used without a lock. Call it on `eventLoop`.
    func resources(for eventLoop: any EventLoop) -> LoopResources {
        loopResources.withLock { all in
            if let resources = all[ObjectIdentifier(eventLoop)] { return resources.value }
            let clock = LoopClock(eventLoop: eventLoop)
            let resources = LoopResources(
                wireResponses: WireResponseCache(shared: sharedWireResponses), clock: clock,
                headerBlocks: HTTP2HeaderBlockCache(), fileChecks: FileCheckTurn(), flushes: TurnFlushes()
            )
            all[ObjectIdentifier(eventLoop)] = NIOLoopBound(resources, eventLoop: eventLoop)
            return resources
        }
    }

    /// `host:port` of the TLS listener, for requests over it that name no host.
    @Sendable func tlsListenerAuthority() -> String {
        tlsListener.withLock { "\($0.host):\($0.port)" }
    }

    func setTLSListener(host: String, port: Int) {
        tlsListener.withLock { $0 = (host, port) }
    }

    private let tlsListener = LockedState<(host: String, port: Int)>(("127.0.0.1", 0))

    /// `host:port` of the listener, for requests that name no host.
    @Sendable func listenerAuthority() -> String {
        state.withLock { "\($0.host):\($0.port)" }
    }

    /// The plain listener's origin: `http`, its address.
    var plainOrigin: ConnectionOrigin {
        ConnectionOrigin(scheme: "http", authority: listenerAuthority)
    }

    /// What the HTTP/1.1 connection handler needs of the settings, for connections of `origin`.
    func http1Settings(_ origin: ConnectionOrigin) -> HTTP1Settings {
        HTTP1Settings(
            maxBodySize: configuration.maxBodySize, maxHeaderCount: configuration.maxHeaderCount,
            requestHeadTimeout: .nanoseconds(configuration.requestHeadTimeout.nanoseconds),
            bodyTimeout: .nanoseconds(configuration.bodyTimeout.nanoseconds),
            scheme: origin.scheme, listener: origin.authority
        )
    }

    func setListener(host: String, port: Int) {
        state.withLock {
            $0.host = host
            $0.port = port
        }
    }

    /// Keeps `channel` until it closes, so that ``closeAll()`` can close it, and gives its index:
    /// from 1, in order of acceptance. A channel set up again (the TLS inside an intercepted
    /// `CONNECT`, HTTP/1.1 after the version sniffer) keeps its index.
    /// - Returns: the index, and the server name its TLS hello asked for, if it had TLS.
    @discardableResult
    func track(_ channel: any Channel) -> (index: Int, serverName: String?) {
        let key = ObjectIdentifier(channel)
        let (tracked, isNew) = state.withLock { state -> (Tracked, Bool) in
            if let tracked = state.channels[key] { return (tracked, false) }
            let tracked = Tracked(channel: channel, index: accepted.withLock { $0 += 1; return $0 })
            state.channels[key] = tracked
            return (tracked, true)
        }
        if isNew {
            channel.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLock { _ = $0.channels.removeValue(forKey: key) }
            }
        }
        return (tracked.index, tracked.serverName)
    }

    /// Notes the server name `channel`'s TLS hello asked for (`nil`: none), for its journal entries.
    func noteServerName(_ name: String?, of channel: any Channel) {
        track(channel)
        state.withLock { $0.channels[ObjectIdentifier(channel)]?.serverName = name }
    }

    func closeAll() async {
        let channels = state.withLock { $0.channels.values.map(\.channel) }
        for channel in channels {
            try? await channel.close()
        }
    }
}

extension ServerShared {
    /// What the responder tells of each finished interaction: the log, then the user's
    /// `onInteraction`; `nil` when neither listens, so the server skips the look-up.
    static func observer(_ configuration: StubServer.Configuration, journal: Journal) -> (@Sendable (Interaction) -> Void)? {
        let log = InteractionLogger(logger: configuration.logger, journal: journal)
        switch (log.isEnabled, configuration.onInteraction) {
        case (false, nil): return nil
        case (false, let onInteraction?): return onInteraction
        case (true, nil): return { log.log($0) }
        case (true, let onInteraction?): return { log.log($0); onInteraction($0) }
        }
    }

    /// The last line of a 404 for a browser's page request (its `Accept` names HTML): where
    /// the dashboard is. Tools that ask for images or anything else do not get it.
    static func dashboardNote(for request: StubRequest, at origin: String) -> String? {
        guard let accept = request.headers["Accept"], accept.lowercased().contains("text/html") else { return nil }
        return "The dashboard at \(origin)\(AdminAPI.prefix) shows every request and stub."
    }
}
