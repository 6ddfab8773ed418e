internal import Crypto
import Foundation
internal import NIOSSL
internal import SwiftASN1
import Understudy
import UnderstudyImages
import UnderstudySupport
package import X509

/// The local certificate authority that signs the leaf certificates Understudy serves over
/// HTTPS, so a client that trusts this one CA accepts every host Understudy stands in for.
///
/// Made on first use in its directory (`~/.understudy/ca` unless `--ca-dir` or
/// `UNDERSTUDY_CA_DIR` says otherwise): an ECDSA P-256 key in `ca-key.pem` (mode 0600) and a
/// 10-year certificate in `ca.pem`. Later runs reuse them. The key never leaves the directory;
/// only the certificate is served.
///
/// ```swift
/// let ca = try CertificateAuthority(directory: CertificateAuthority.defaultDirectory())
/// var tls = TLSConfiguration.makeClientConfiguration()   // an AsyncHTTPClient that trusts only this CA
/// tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(ca.der), format: .der)])
/// print(ca.certificatePath!)   // /home/me/.understudy/ca/ca.pem
/// ```
public final class CertificateAuthority: Sendable {
    /// The certificate's file name in the CA directory.
    public static let certificateFileName = "ca.pem"
    /// The private key's file name in the CA directory.
    public static let keyFileName = "ca-key.pem"
    /// The environment variable naming the CA directory.
    public static let directoryEnvironmentVariable = "UNDERSTUDY_CA_DIR"
    /// How long a leaf is valid: the most Apple's and the CA/Browser Forum's rules allow.
    package static let leafLifetime: TimeInterval = 397 * 86_400
    /// How far back a fresh certificate's validity starts, for clients whose clock runs behind.
    package static let clockSkew: TimeInterval = 3_600

    /// The directory holding the CA's files; `nil` for a CA kept only in memory.
    public let directory: URL?
    /// The CA certificate, PEM-encoded, ending in a newline (so bundles can be concatenated).
    public let pem: String
    /// The CA certificate, DER-encoded.
    public let der: Data
    /// The CA certificate as swift-certificates sees it.
    package let certificate: Certificate

    /// The CA's signing key (P-256, wrapped: swift-crypto's key types are not `Sendable`).
    private let key: Certificate.PrivateKey
    /// One key for every leaf: making a P-256 key costs more than signing a certificate, and
    /// leaves differ only in their names.
    private let leafKey: Certificate.PrivateKey
    private let leafNIOKey: NIOSSLPrivateKey
    /// The CA certificate, sent after each leaf: Chromium's `--ignore-certificate-errors-spki-list`
    /// looks only at the certificates the server sends, so the CA's own must be among them.
    private let nioCertificate: NIOSSLCertificate
    private let leaves = SingleFlightCache<LeafRequest, TLSCredential>()
    private let issuedCount = LockedState(0)

    /// The path of the CA certificate file (`ca.pem`); `nil` for a CA kept only in memory.
    public var certificatePath: String? {
        directory?.appendingPathComponent(Self.certificateFileName).path
    }

    /// The base64 SHA-256 of the CA certificate's SubjectPublicKeyInfo: what Chromium's
    /// `--ignore-certificate-errors-spki-list` takes.
    public let spkiSHA256Base64: String

    /// Loads the CA in `directory`, making it (and the directory) first when there is none.
    ///
    /// - Parameter directory: where `ca.pem` and `ca-key.pem` live.
    /// - Throws: ``TLSFileError`` naming the file when the directory cannot be made, the key
    ///   file is readable by group or others, a file is not the PEM it should be, only one of
    ///   the two files exists, or the certificate does not belong to the key.
    public convenience init(directory: URL) throws {
        let store = CertificateAuthorityStore(directory: directory)
        let (key, certificate) = try store.loadOrCreate { key in try Self.makeCertificate(key: key) }
        try self.init(directory: directory, key: key, certificate: certificate)
    }

    /// A CA kept only in memory, for tests and for signing certificates nobody should trust.
    public static func ephemeral() throws -> CertificateAuthority {
        let key = P256.Signing.PrivateKey()
        return try CertificateAuthority(directory: nil, key: key, certificate: makeCertificate(key: key))
    }

    private init(directory: URL?, key: P256.Signing.PrivateKey, certificate: Certificate) throws {
        self.directory = directory
        self.key = Certificate.PrivateKey(key)
        self.certificate = certificate
        pem = try certificate.serializeAsPEM().pemString + "\n"
        der = Data(try certificate.derBytes())
        nioCertificate = try NIOSSLCertificate(bytes: Array(der), format: .der)
        spkiSHA256Base64 = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
        let leafKey = P256.Signing.PrivateKey()
        self.leafKey = Certificate.PrivateKey(leafKey)
        leafNIOKey = try NIOSSLPrivateKey(bytes: Array(leafKey.pemRepresentation.utf8), format: .pem)
    }

    /// The CA directory a command uses: `UNDERSTUDY_CA_DIR` when set, else `~/.understudy/ca`.
    public static func defaultDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let directory = environment[directoryEnvironmentVariable], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".understudy/ca")
    }

    // MARK: - Leaves

    /// What a leaf is issued as: good, or wrong on purpose in one way.
    package enum LeafShape: Sendable, Hashable {
        /// Valid now for the name, at most 397 days.
        case good
        /// Valid for the name, but its validity ended yesterday.
        case expired
        /// Valid for the name from 30 days on.
        case notYetValid
        /// Valid now, but for ``CertificateAuthority/wrongHostName`` instead of the name.
        case wrongHost
    }

    /// The name a `wrong-host` leaf is issued for: in `.invalid`, so it is nobody's.
    package static let wrongHostName = "understudy-wrong-host.invalid"

    private struct LeafRequest: Hashable, Sendable {
        let host: TLSHostName
        let shape: LeafShape
    }

    /// The leaf for `host` in `shape`, issued on first request and cached; many first requests
    /// for one host at once issue one leaf.
    package func leaf(for host: TLSHostName, shape: LeafShape = .good) throws -> TLSCredential {
        try leaves.value(for: LeafRequest(host: host, shape: shape)) {
            try issueLeaf(for: host, shape: shape)
        }
    }

    /// How many leaves this CA has issued (cached ones count once).
    package var leavesIssued: Int {
        issuedCount.withLock { $0 }
    }

    /// Signs a new leaf for `host` in `shape`, bypassing the cache.
    package func issueLeaf(for host: TLSHostName, shape: LeafShape, now: Date = Date()) throws -> TLSCredential {
        let notBefore: Date
        let notAfter: Date
        switch shape {
        case .good, .wrongHost:
            notBefore = now - Self.clockSkew
            notAfter = min(notBefore + Self.leafLifetime, certificate.notValidAfter)
        case .expired:
            notBefore = now - 30 * 86_400
            notAfter = now - 86_400
        case .notYetValid:
            notBefore = now + 30 * 86_400
            notAfter = now + 60 * 86_400
        }
        let named = shape == .wrongHost ? TLSHostName(Self.wrongHostName) : host
        let leafPublicKey = leafKey.publicKey
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: leafPublicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: certificate.subject,
            subject: Self.leafSubject(named),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([named.generalName])
                SubjectKeyIdentifier(hash: leafPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier)
            },
            issuerPrivateKey: key
        )
        issuedCount.withLock { $0 += 1 }
        return TLSCredential(
            leaf: leaf, chain: [try NIOSSLCertificate(bytes: leaf.derBytes(), format: .der), nioCertificate], key: leafNIOKey
        )
    }

    /// A certificate for `host` signed by its own key instead of this CA's: what `self-signed`
    /// serves. Not cached; callers cache the TLS context made from it.
    package func selfSignedLeaf(for host: TLSHostName, now: Date = Date()) throws -> TLSCredential {
        let publicKey = leafKey.publicKey
        let subject = try Self.leafSubject(host)
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - Self.clockSkew,
            notValidAfter: now - Self.clockSkew + Self.leafLifetime,
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([host.generalName])
            },
            issuerPrivateKey: leafKey
        )
        return TLSCredential(
            leaf: leaf, chain: [try NIOSSLCertificate(bytes: leaf.derBytes(), format: .der)], key: leafNIOKey
        )
    }

    private static func leafSubject(_ host: TLSHostName) throws -> DistinguishedName {
        // A common name is limited to 64 characters; clients read the subjectAltName anyway.
        guard host.name.utf8.count <= 64, !host.name.isEmpty else {
            return try DistinguishedName { OrganizationName("Understudy") }
        }
        return try DistinguishedName {
            OrganizationName("Understudy")
            CommonName(host.name)
        }
    }

    // MARK: - The CA certificate

    private static func makeCertificate(key: P256.Signing.PrivateKey, now: Date = Date()) throws -> Certificate {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            OrganizationName("Understudy")
            CommonName("Understudy Local CA")
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - clockSkew,
            notValidAfter: now + 10 * 365.25 * 86_400,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
    }
}

extension Certificate {
    /// The certificate's DER encoding.
    package func derBytes() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }
}
