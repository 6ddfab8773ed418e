/// A certificate (or handshake) that is wrong on purpose, served over HTTPS for one host so a
/// test can prove its client refuses it.
///
/// ```swift
/// stubs.tls(host: "expired.example.com", .expired)
/// ```
/// In a stub file, beside `stubs:`:
/// ```yaml
/// tls:
///   - host: expired.example.com
///     certificate: expired
/// ```
public enum TLSBehaviour: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A leaf from the local CA whose validity ended yesterday.
    case expired
    /// A leaf from the local CA whose validity starts in 30 days.
    case notYetValid = "not-yet-valid"
    /// A leaf from the local CA for another name than the one asked for.
    case wrongHost = "wrong-host"
    /// A leaf for the right name, signed by its own key instead of the CA's.
    case selfSigned = "self-signed"
    /// No certificate at all: the server answers the client's hello with a fatal
    /// `handshake_failure` alert and closes the connection.
    case handshakeFailure = "handshake-failure"

    /// The name stub files use (`not-yet-valid`).
    public var description: String { rawValue }
}

/// One `tls:` entry: hosts matching `host` (exact, or `*.example.com` for any subdomain) get
/// `behaviour` instead of a good certificate.
public struct TLSRule: Sendable, Hashable, CustomStringConvertible {
    /// The host or host glob as given.
    public var host: String { pattern.description }
    /// What those hosts are served.
    public let behaviour: TLSBehaviour
    let pattern: HostPattern

    /// A rule for `host` (exact or `*.suffix`).
    public init(host: String, behaviour: TLSBehaviour) {
        pattern = HostPattern(host)
        self.behaviour = behaviour
    }

    /// Whether `host` (as a client named it in SNI or CONNECT) falls under this rule.
    public func matches(host: String) -> Bool {
        pattern.matches(host.lowercased())
    }

    public var description: String { "\(host): \(behaviour)" }
}
