import Foundation
import Understudy
import UnderstudyImages
import UnderstudySupport

/// A server's TLS, made on first need: the first intercepted `CONNECT`, the HTTPS listener, or
/// someone asking for the CA. So `understudy serve` without `--tls-port` creates no CA until a
/// client actually asks for `https` through it. A failure (a CA key with the wrong mode, a
/// corrupt PEM) is kept and reported to every later need, naming the file.
final class LazyTLS: Sendable {
    /// What was made.
    struct Made: Sendable {
        let provider: TLSContextProvider
        let authority: CertificateAuthority?
    }

    private let source: StubServer.TLS
    private let registry: StubRegistry
    private let made = LockedState<Result<Made, any Error>?>(nil)

    /// Whether ALPN offers `h2` before `http/1.1`.
    private let http2: Bool

    init(_ source: StubServer.TLS, registry: StubRegistry, http2: Bool) {
        self.http2 = http2
        self.source = source
        self.registry = registry
    }

    /// The provider and CA, made now if not yet.
    func get() throws -> Made {
        try made.withLock { made in
            if let made { return try made.get() }
            let result = Result { () throws -> Made in
                let identity = try source.identity()
                let authority: CertificateAuthority?
                if case .localCA(let ca) = identity { authority = ca } else { authority = nil }
                let protocols = http2 ? ["h2", "http/1.1"] : ["http/1.1"]
                return Made(provider: try TLSContextProvider(identity: identity, registry: registry, applicationProtocols: protocols), authority: authority)
            }
            made = result
            return try result.get()
        }
    }
}
