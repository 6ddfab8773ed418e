import Foundation

extension StubServer {
    /// Where an HTTPS listener's certificates come from.
    ///
    /// ```swift
    /// try await StubServer.start(serving: stubs, tls: .localCA)                        // ~/.understudy/ca
    /// try await StubServer.start(serving: stubs, tls: .localCA(directory: caDir))      // a CA of the test's own
    /// try await StubServer.start(serving: stubs, tls: .certificate(chainFile: "cert.pem", keyFile: "key.pem"))
    /// ```
    public struct TLS: Sendable {
        let identity: @Sendable () throws -> TLSIdentity

        /// The local CA in `UNDERSTUDY_CA_DIR`, else `~/.understudy/ca`, made on first need.
        public static var localCA: TLS {
            localCA(directory: CertificateAuthority.defaultDirectory())
        }

        /// The local CA in `directory`, made on first need.
        public static func localCA(directory: URL) -> TLS {
            TLS { .localCA(try CertificateAuthority(directory: directory)) }
        }

        /// A CA already loaded (for example ``CertificateAuthority/ephemeral()`` in a test).
        public static func authority(_ authority: CertificateAuthority) -> TLS {
            TLS { .localCA(authority) }
        }

        /// A PEM certificate chain and its key of your own, presented for every host.
        public static func certificate(chainFile: String, keyFile: String) -> TLS {
            TLS { .certificate(try TLSCertificateChain(certificateFile: chainFile, keyFile: keyFile)) }
        }
    }
}
