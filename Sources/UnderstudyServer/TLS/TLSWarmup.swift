/// A host's TLS made ahead of its first connection: its leaf issued by the CA and its TLS
/// context built, as the first handshake for that host waits for. For the TLS benchmark, a
/// package of its own that cannot see `TLSContextProvider`.
@_spi(Benchmarks) public struct TLSWarmup: Sendable {
    private let provider: TLSContextProvider

    /// Leaves from `authority`.
    public init(authority: CertificateAuthority) throws {
        provider = try TLSContextProvider(identity: .localCA(authority))
    }

    /// Issues `host`'s leaf and builds its context, or finds them cached.
    public func prepare(host: String) throws {
        _ = try provider.context(forHost: host)
    }
}
