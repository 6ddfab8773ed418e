import Foundation
import NIOCore
import Understudy

/// What every connection's handler shares: the registry, settings, upstream client and the
/// set of open connections (so `stop()` can close them).
final class ServerShared: Sendable {
    let registry: StubRegistry
    let configuration: StubServer.Configuration
    let scheme: String
    let upstream = HTTPClientUpstream()
    let admin: AdminAPI
    /// Answers every connection's requests and journals them.
    let responder: StubResponder
    /// One cache of framed responses per event loop, each used only on its loop.
    private let wireResponseCaches = LockedState<[ObjectIdentifier: WireResponseCache]>([:])
    private let state: LockedState<(channels: [ObjectIdentifier: any Channel], host: String, port: Int)>

    init(registry: StubRegistry, configuration: StubServer.Configuration, scheme: String) {
        self.registry = registry
        self.configuration = configuration
        self.scheme = scheme
        let state = LockedState<(channels: [ObjectIdentifier: any Channel], host: String, port: Int)>(([:], "127.0.0.1", 0))
        self.state = state
        self.admin = AdminAPI(registry: registry, token: configuration.adminToken, connectionCount: { state.withLock { $0.channels.count } })
        self.responder = StubResponder(
            registry: registry, transport: .server, upstream: upstream,
            unmatched: configuration.proxyUnmatched.map { .forward($0) } ?? .notFound, observer: configuration.onInteraction
        )
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

    /// `host:port` of the listener, for requests that name no host.
    @Sendable func listenerAuthority() -> String {
        state.withLock { "\($0.host):\($0.port)" }
    }

    /// What the HTTP/1.1 connection handler needs of the settings.
    var http1Settings: HTTP1Settings {
        HTTP1Settings(
            maxBodySize: configuration.maxBodySize, maxHeaderCount: configuration.maxHeaderCount,
            requestHeadTimeout: .nanoseconds(configuration.requestHeadTimeout.nanoseconds),
            bodyTimeout: .nanoseconds(configuration.bodyTimeout.nanoseconds),
            scheme: scheme, listener: listenerAuthority
        )
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
