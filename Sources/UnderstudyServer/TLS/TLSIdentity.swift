/// Where an HTTPS listener's certificates come from.
public enum TLSIdentity: Sendable {
    /// A leaf per host name, issued and cached by the local CA.
    case localCA(CertificateAuthority)
    /// One chain of your own for every host (`--cert/--key`).
    case certificate(TLSCertificateChain)
}
