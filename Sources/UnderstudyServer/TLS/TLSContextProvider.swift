package import NIOCore
package import NIOSSL
internal import NIOTLS
import Understudy

/// Terminates TLS for a listener or an intercepted `CONNECT`: reads the server name the client
/// asks for (SNI), then answers with that name's certificate, or with the bad certificate or
/// failed handshake a `tls:` rule asks for.
///
/// One provider serves every connection of a server; the TLS contexts it makes (one per host and
/// behaviour) are cached, and many first connections for one host make one.
///
/// ```swift
/// let provider = try TLSContextProvider(identity: .localCA(ca), registry: stubs)
/// ServerBootstrap(group: group).childChannelInitializer { channel in
///     channel.eventLoop.makeCompletedFuture {
///         try provider.addTLS(to: channel.pipeline.syncOperations, defaultHost: "127.0.0.1")
///         try channel.pipeline.syncOperations.configureHTTPServerPipeline()
///         try channel.pipeline.syncOperations.addHandler(MyHTTPHandler())
///     }
/// }
/// ```
package final class TLSContextProvider: Sendable {
    /// The ALPN protocols offered, most preferred first (`h2`, `http/1.1`).
    package let applicationProtocols: [String]
    /// Where good certificates come from.
    package let identity: TLSIdentity
    private let registry: StubRegistry?
    /// Signs the expired, not-yet-valid and wrong-host leaves: the local CA, or with a chain of
    /// your own a CA made in memory (its leaves fail as untrusted before anything else).
    private let badCertificateSigner: CertificateAuthority
    private let contexts = SingleFlightCache<ContextKey, NIOSSLContext>()

    /// The name the SNI-reading handler has in a pipeline.
    package static let serverNameHandlerName = "understudy.tls.sni"
    /// The name the TLS handler has in a pipeline once the server name is known.
    package static let tlsHandlerName = "understudy.tls"

    /// A provider of TLS for `identity`, obeying the `tls:` rules of `registry`.
    /// - Parameters:
    ///   - identity: the local CA, or a chain of your own.
    ///   - registry: whose `tls:` rules (``StubRegistry/tls(host:_:)``) pick bad certificates
    ///     per host, read at each handshake; `nil` serves good certificates only.
    ///   - applicationProtocols: the ALPN protocols offered; `["http/1.1"]` until HTTP/2 is served.
    /// - Throws: when a CA for bad certificates cannot be made in memory (a chain of your own).
    package init(identity: TLSIdentity, registry: StubRegistry? = nil, applicationProtocols: [String] = ["http/1.1"]) throws {
        self.identity = identity
        self.registry = registry
        self.applicationProtocols = applicationProtocols
        switch identity {
        case .localCA(let authority):
            badCertificateSigner = authority
        case .certificate:
            badCertificateSigner = try CertificateAuthority.ephemeral()
        }
    }

    // MARK: - Per host

    /// What a handshake asking for one host is answered with.
    package enum Answer: Sendable {
        /// A TLS handshake with this context's certificate.
        case handshake(NIOSSLContext)
        /// A fatal `handshake_failure` alert, then the connection closes.
        case refusal
    }

    private struct ContextKey: Hashable, Sendable {
        /// `nil` for the one context of a chain of your own.
        let host: TLSHostName?
        let behaviour: TLSBehaviour?
    }

    /// The answer to a client asking for `host` (from SNI, or the connection's default host).
    package func answer(forHost host: String) throws -> Answer {
        let name = TLSHostName(host)
        let behaviour = registry?.tlsBehaviour(forHost: name.name)
        if behaviour == .handshakeFailure { return .refusal }
        let key: ContextKey
        switch (identity, behaviour) {
        case (.certificate, nil):
            key = ContextKey(host: nil, behaviour: nil)
        default:
            key = ContextKey(host: name, behaviour: behaviour)
        }
        return .handshake(try contexts.value(for: key) {
            try makeContext(credential(for: name, behaviour: behaviour))
        })
    }

    /// The TLS context a client asking for `host` gets; `nil` when its handshake is refused.
    package func context(forHost host: String) throws -> NIOSSLContext? {
        guard case .handshake(let context) = try answer(forHost: host) else { return nil }
        return context
    }

    private func credential(for host: TLSHostName, behaviour: TLSBehaviour?) throws -> TLSCredential {
        switch (behaviour, identity) {
        case (nil, .localCA(let authority)):
            return try authority.leaf(for: host)
        case (nil, .certificate(let chain)):
            return chain.credential
        case (.expired, _):
            return try badCertificateSigner.leaf(for: host, shape: .expired)
        case (.notYetValid, _):
            return try badCertificateSigner.leaf(for: host, shape: .notYetValid)
        case (.wrongHost, _):
            return try badCertificateSigner.leaf(for: host, shape: .wrongHost)
        case (.selfSigned, _):
            return try badCertificateSigner.selfSignedLeaf(for: host)
        case (.handshakeFailure, _):
            preconditionFailure("a refused handshake has no certificate")
        }
    }

    private func makeContext(_ credential: TLSCredential) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: credential.chain.map { .certificate($0) },
            privateKey: .privateKey(credential.key)
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = applicationProtocols
        return try NIOSSLContext(configuration: configuration)
    }

    // MARK: - Pipelines

    /// Puts TLS into a pipeline: a handler reads the client's hello for the server name, then
    /// puts a `NIOSSLServerHandler` with that name's certificate in its own place (or writes a
    /// fatal `handshake_failure` alert and closes, for a `handshake-failure` host).
    ///
    /// Call on the channel's event loop, before the HTTP handlers (a listener's initializer), or
    /// at the front once a `CONNECT` is answered (with its host as `defaultHost`).
    /// - Parameters:
    ///   - pipeline: the channel's pipeline.
    ///   - defaultHost: the name whose certificate a client sending no SNI gets: the listener's
    ///     address (`127.0.0.1`) or the `CONNECT` line's host.
    ///   - position: where the TLS handlers go; `.first` for a listener.
    ///   - serverNameRead: told the server name the client's hello asked for (`nil`: none).
    package func addTLS(
        to pipeline: ChannelPipeline.SynchronousOperations, defaultHost: String,
        position: ChannelPipeline.SynchronousOperations.Position = .first, serverNameRead: @escaping (String?) -> Void = { _ in }
    ) throws {
        let serverNameReader = ByteToMessageHandler(SNIHandler { [self] result in
            let host: String
            switch result {
            case .hostname(let name):
                host = name
                serverNameRead(name)
            case .fallback:
                host = defaultHost
                serverNameRead(nil)
            }
            return install(forHost: host, in: pipeline)
        })
        try pipeline.addHandler(serverNameReader, name: Self.serverNameHandlerName, position: position)
    }

    /// Called on the event loop with the hello still buffered in the SNI handler, which removes
    /// itself (passing the hello on) when the returned future succeeds.
    private func install(forHost host: String, in pipeline: ChannelPipeline.SynchronousOperations) -> EventLoopFuture<Void> {
        let eventLoop = pipeline.eventLoop
        do {
            let reader = try pipeline.context(name: Self.serverNameHandlerName)
            switch try answer(forHost: host) {
            case .handshake(let context):
                let tls = NIOSSLServerHandler(context: context)
                let cipher = ServerHelloCipher()
                try pipeline.addHandler(cipher, position: .after(reader.handler))
                try pipeline.addHandler(tls, name: Self.tlsHandlerName, position: .after(cipher))
                return eventLoop.makeSucceededVoidFuture()
            case .refusal:
                // Written from the reader's place, so no handler after it sees these bytes.
                reader.writeAndFlush(NIOAny(ByteBuffer(bytes: Self.handshakeFailureAlert)), promise: nil)
                reader.close(promise: nil)
                return eventLoop.makeFailedFuture(TLSHandshakeRefused(host: host))
            }
        } catch {
            pipeline.fireErrorCaught(error)
            pipeline.close(promise: nil)
            return eventLoop.makeFailedFuture(error)
        }
    }

    /// A TLS record: alert (21), TLS 1.2 (3,3), two bytes: fatal (2), handshake_failure (40).
    static let handshakeFailureAlert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]
}

/// A handshake refused on purpose by a `handshake-failure` rule.
struct TLSHandshakeRefused: Error, CustomStringConvertible {
    let host: String
    var description: String { "TLS handshake for \(host) refused by a 'handshake-failure' rule" }
}
