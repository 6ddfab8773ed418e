import UnderstudyImages
import UnderstudySupport

extension StubRegistry {
    /// Serves `host` a bad certificate (or a failed handshake) on purpose over HTTPS, so a test
    /// can prove its client refuses it. A later rule for the same host replaces the earlier one;
    /// among rules matching a host, the one added last wins.
    ///
    /// ```swift
    /// stubs.tls(host: "expired.example.com", .expired)
    /// stubs.tls(host: "*.untrusted.test", .selfSigned)
    /// ```
    /// - Parameters:
    ///   - host: an exact host (`img.example.com`, `127.0.0.1`) or `*.example.com` for any subdomain.
    ///   - behaviour: what hosts matching it are served.
    public func tls(host: String, _ behaviour: TLSBehaviour) {
        let rule = TLSRule(host: host, behaviour: behaviour)
        state.withLock { state in
            state.tlsRules.removeAll { $0.pattern == rule.pattern }
            state.tlsRules.append(rule)
        }
    }

    /// Serves `host` a good certificate again; returns whether it had a rule of its own.
    @discardableResult
    public func removeTLS(host: String) -> Bool {
        let pattern = HostPattern(host)
        return state.withLock { state in
            let before = state.tlsRules.count
            state.tlsRules.removeAll { $0.pattern == pattern }
            return state.tlsRules.count != before
        }
    }

    /// The `tls:` rules in the order they were added (the last matching one wins).
    public var tlsRules: [TLSRule] {
        state.withLock { $0.tlsRules }
    }

    /// What `host` is served over HTTPS: `nil` for a good certificate.
    public func tlsBehaviour(forHost host: String) -> TLSBehaviour? {
        let host = host.lowercased()
        return state.withLock { state in
            state.tlsRules.last { $0.pattern.matches(host) }?.behaviour
        }
    }
}
