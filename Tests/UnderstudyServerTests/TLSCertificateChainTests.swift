import Foundation
@testable import UnderstudyServer
import XCTest

/// `--cert/--key`: a chain and key of your own, and the exact errors for files that cannot serve.
final class TLSCertificateChainTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("tls-chain")
    }

    /// A self-signed P-256 certificate for `name` made by openssl: (certificate path, key path).
    private func makePair(_ name: String) throws -> (String, String) {
        let certificate = directory.appendingPathComponent("\(name).pem").path
        let key = directory.appendingPathComponent("\(name)-key.pem").path
        let made = try runClient("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "30", "-subj", "/CN=\(name).test", "-addext", "subjectAltName=DNS:\(name).test",
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return (certificate, key)
    }

    private func assertError(
        _ certificate: String, _ key: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try TLSCertificateChain(certificateFile: certificate, keyFile: key), file: file, line: line) { error in
            XCTAssertEqual("\(error)", expected, file: file, line: line)
        }
    }

    func testAChainAndItsKeyLoadLeafFirst() throws {
        let (leaf, key) = try makePair("leaf")
        let (intermediate, _) = try makePair("intermediate")
        let chainFile = directory.appendingPathComponent("chain.pem").path
        try (String(contentsOfFile: leaf, encoding: .utf8) + String(contentsOfFile: intermediate, encoding: .utf8))
            .write(toFile: chainFile, atomically: true, encoding: .utf8)
        let chain = try TLSCertificateChain(certificateFile: chainFile, keyFile: key)
        XCTAssertEqual(chain.credential.chain.count, 2)
        XCTAssertEqual(chain.credential.leaf.subject.description, "CN=leaf.test")
    }

    func testAKeyOfAnotherCertificateIsRefused() throws {
        let (certificate, _) = try makePair("one")
        let (_, otherKey) = try makePair("two")
        assertError(certificate, otherKey, """
            \(otherKey): the private key does not match the first certificate in \(certificate); expected the leaf's key
            """)
    }

    func testUnreadableAndCorruptFilesAreNamed() throws {
        let (certificate, key) = try makePair("good")
        let missing = directory.appendingPathComponent("missing.pem").path
        assertError(missing, key, "\(missing): cannot read the file (No such file or directory)")

        let garbage = directory.appendingPathComponent("garbage.pem").path
        try "not pem at all\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        assertError(garbage, key, """
            \(garbage): no PEM certificate found; expected '-----BEGIN CERTIFICATE-----' blocks, the leaf first
            """)
        assertError(certificate, garbage, """
            \(garbage): not a PEM private key; expected an RSA, ECDSA or Ed25519 key in PEM ('-----BEGIN PRIVATE KEY-----')
            """)
        // The key file given as the certificate: PEM, but no certificate in it.
        assertError(key, key, """
            \(key): no PEM certificate found; expected '-----BEGIN CERTIFICATE-----' blocks, the leaf first
            """)
        let corrupt = directory.appendingPathComponent("corrupt.pem").path
        try "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
            .write(toFile: corrupt, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TLSCertificateChain(certificateFile: corrupt, keyFile: key)) { error in
            XCTAssertEqual((error as? TLSFileError)?.file, corrupt)
            XCTAssertTrue("\(error)".contains("certificate 1 of 1 is not a valid X.509 certificate"), "\(error)")
        }
    }
}
