package import NIOSSL
package import X509

/// What one TLS server identity is made of: the chain to send (leaf first) and the leaf's key,
/// in the forms NIOSSL takes, with the leaf parsed for inspection.
package struct TLSCredential: Sendable {
    /// The leaf certificate as swift-certificates sees it.
    package let leaf: Certificate
    /// The chain sent to clients, leaf first.
    package let chain: [NIOSSLCertificate]
    /// The leaf's private key.
    package let key: NIOSSLPrivateKey

    package init(leaf: Certificate, chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        self.leaf = leaf
        self.chain = chain
        self.key = key
    }
}
