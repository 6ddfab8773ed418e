import Foundation
internal import NIOSSL
internal import SwiftASN1
internal import X509

/// A certificate of your own (`--cert FILE.pem --key FILE.pem`): a PEM chain, leaf first, and
/// the leaf's PEM private key, served for every host instead of leaves from the local CA.
///
/// ```swift
/// let chain = try TLSCertificateChain(certificateFile: "server.pem", keyFile: "server-key.pem")
/// ```
public struct TLSCertificateChain: Sendable {
    /// The chain, leaf first, as read.
    public let certificatePath: String
    /// The private key file, as read.
    public let keyPath: String
    package let credential: TLSCredential

    /// Reads and checks a chain and its key.
    /// - Parameters:
    ///   - certificateFile: PEM certificates, the leaf first, then any intermediates.
    ///   - keyFile: the leaf's private key in PEM (PKCS#8, SEC1 or PKCS#1).
    /// - Throws: ``TLSFileError`` naming the file when one cannot be read, holds no PEM
    ///   certificate or key, or the key is not the leaf's.
    public init(certificateFile: String, keyFile: String) throws {
        certificatePath = certificateFile
        keyPath = keyFile
        let certificateText = try TLSFileError.readText(certificateFile)
        let keyText = try TLSFileError.readText(keyFile)

        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: certificateText)
                .filter { $0.discriminator == "CERTIFICATE" }
        } catch {
            documents = []
        }
        guard !documents.isEmpty else {
            throw TLSFileError(file: certificateFile, "no PEM certificate found; expected '-----BEGIN CERTIFICATE-----' blocks, the leaf first")
        }
        var certificates: [Certificate] = []
        for (index, document) in documents.enumerated() {
            do {
                certificates.append(try Certificate(pemDocument: document))
            } catch {
                throw TLSFileError(file: certificateFile, "certificate \(index + 1) of \(documents.count) is not a valid X.509 certificate (\(error)); expected PEM certificates, the leaf first")
            }
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: keyText)
        } catch {
            throw TLSFileError(file: keyFile, "not a PEM private key; expected an RSA, ECDSA or Ed25519 key in PEM ('-----BEGIN PRIVATE KEY-----')")
        }
        guard key.publicKey == certificates[0].publicKey else {
            throw TLSFileError(file: keyFile, "the private key does not match the first certificate in \(certificateFile); expected the leaf's key")
        }
        do {
            credential = TLSCredential(
                leaf: certificates[0],
                chain: try certificates.map { try NIOSSLCertificate(bytes: $0.derBytes(), format: .der) },
                key: try NIOSSLPrivateKey(bytes: Array(keyText.utf8), format: .pem)
            )
        } catch {
            throw TLSFileError(file: keyFile, "BoringSSL cannot load the key (\(error)); expected a PEM private key")
        }
    }
}
