import Foundation
@testable import UnderstudyServer
import X509
import XCTest

/// The local CA: its files and their modes, reuse across runs, the errors for files it cannot
/// trust, and the leaves it issues as `openssl` reads them.
final class TLSCertificateAuthorityTests: XCTestCase {
    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as! NSNumber).intValue
    }

    private func openssl(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try runClient("openssl", arguments)
        XCTAssertEqual(result.status, 0, "openssl \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
        return result.text
    }

    private func writePEM(_ certificate: Certificate, in directory: URL, named name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try certificate.serializeAsPEM().pemString.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: - The CA's files

    func testFirstUseMakesAP256CAForTenYearsWithItsKeyFileOnlyForItsOwner() throws {
        let directory = try makeTemporaryDirectory("ca").appendingPathComponent("nested/ca")
        let ca = try CertificateAuthority(directory: directory)

        let keyPath = directory.appendingPathComponent("ca-key.pem").path
        let certificatePath = directory.appendingPathComponent("ca.pem").path
        XCTAssertEqual(ca.certificatePath, certificatePath)
        XCTAssertEqual(try mode(of: keyPath), 0o600)
        XCTAssertEqual(try mode(of: directory.path), 0o700)
        XCTAssertEqual(try String(contentsOfFile: certificatePath, encoding: .utf8), ca.pem)
        XCTAssertTrue(ca.pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))

        let text = try openssl(["x509", "-in", certificatePath, "-noout", "-text"])
        XCTAssertTrue(text.contains("Subject: O = Understudy, CN = Understudy Local CA"), text)
        XCTAssertTrue(text.contains("Issuer: O = Understudy, CN = Understudy Local CA"), text)
        XCTAssertTrue(text.contains("ASN1 OID: prime256v1"), text)
        XCTAssertTrue(text.contains("Signature Algorithm: ecdsa-with-SHA256"), text)
        XCTAssertTrue(text.contains("CA:TRUE, pathlen:0"), text)
        XCTAssertTrue(text.contains("Certificate Sign, CRL Sign"), text)
        let lifetime = ca.certificate.notValidAfter.timeIntervalSince(ca.certificate.notValidBefore)
        XCTAssertGreaterThanOrEqual(lifetime, 3_652 * 86_400)
        XCTAssertLessThan(lifetime, 3_654 * 86_400)

        // The DER form is the same certificate as openssl converts it.
        let der = try runClient("openssl", ["x509", "-in", certificatePath, "-outform", "DER"])
        XCTAssertEqual(der.stdout, ca.der)
        // The key is PKCS#8 P-256, and nothing the CA exposes contains it.
        let key = try String(contentsOfFile: keyPath, encoding: .utf8)
        XCTAssertTrue(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertFalse(ca.pem.contains("PRIVATE KEY"))
    }

    func testASecondRunReusesTheSameCA() throws {
        let directory = try makeTemporaryDirectory("ca")
        let first = try CertificateAuthority(directory: directory)
        let keyBefore = try Data(contentsOf: directory.appendingPathComponent("ca-key.pem"))
        let second = try CertificateAuthority(directory: directory)
        XCTAssertEqual(second.der, first.der)
        XCTAssertEqual(second.spkiSHA256Base64, first.spkiSHA256Base64)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("ca-key.pem")), keyBefore)
        // A leaf from the second run verifies against the first run's certificate.
        let leafPath = try writePEM(try second.leaf(for: TLSHostName("reuse.example.com")).leaf, in: directory, named: "leaf.pem")
        let verified = try openssl(["verify", "-CAfile", first.certificatePath!, leafPath])
        XCTAssertEqual(verified, "\(leafPath): OK\n")
    }

    func testSPKIHashIsWhatChromiumsRecipeComputes() throws {
        let directory = try makeTemporaryDirectory("ca")
        let ca = try CertificateAuthority(directory: directory)
        // The recipe Chromium documents for --ignore-certificate-errors-spki-list.
        let recipe = """
            openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der \
            | openssl dgst -sha256 -binary | openssl enc -base64
            """
        let result = try runClient("bash", ["-c", recipe, "spki", ca.certificatePath!])
        XCTAssertEqual(result.text, ca.spkiSHA256Base64 + "\n")
        XCTAssertEqual(ca.spkiSHA256Base64.count, 44)
    }

    func testConcurrentFirstUsesOfOneDirectoryEndWithOneCA() throws {
        let directory = try makeTemporaryDirectory("ca")
        let results = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            results.append(Result { try CertificateAuthority(directory: directory).der })
        }
        let ders = try results.values.map { try $0.get() }
        XCTAssertEqual(ders.count, 8)
        XCTAssertEqual(Set(ders).count, 1)
    }

    // MARK: - Files it refuses

    func testAKeyFileReadableByOthersIsRefusedNamingTheFileAndItsMode() throws {
        let directory = try makeTemporaryDirectory("ca")
        _ = try CertificateAuthority(directory: directory)
        let keyPath = directory.appendingPathComponent("ca-key.pem").path
        XCTAssertEqual(chmod(keyPath, 0o644), 0)
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual("\(error)", """
                \(keyPath): the CA key file has mode 0644, which lets group or others read it; \
                expected 0600 (chmod 600 \(keyPath))
                """)
        }
        XCTAssertEqual(chmod(keyPath, 0o640), 0)
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual((error as? TLSFileError)?.file, keyPath)
            XCTAssertTrue("\(error)".contains("has mode 0640"), "\(error)")
        }
        XCTAssertEqual(chmod(keyPath, 0o400), 0)
        XCTAssertNoThrow(try CertificateAuthority(directory: directory), "owner-only modes are fine")
    }

    func testACorruptCertificateIsRefusedNamingTheFile() throws {
        let directory = try makeTemporaryDirectory("ca")
        _ = try CertificateAuthority(directory: directory)
        let certificatePath = directory.appendingPathComponent("ca.pem").path
        try "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
            .write(toFile: certificatePath, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual("\(error)", """
                \(certificatePath): not a PEM certificate; expected the CA certificate Understudy wrote \
                (delete \(directory.path) to make a new CA)
                """)
        }
    }

    func testACorruptKeyIsRefusedNamingTheFile() throws {
        let directory = try makeTemporaryDirectory("ca")
        _ = try CertificateAuthority(directory: directory)
        let keyPath = directory.appendingPathComponent("ca-key.pem").path
        try "garbage\n".write(toFile: keyPath, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual("\(error)", """
                \(keyPath): not a PEM P-256 private key; expected the key Understudy wrote \
                (delete \(directory.path) to make a new CA)
                """)
        }
    }

    func testACertificateOfAnotherKeyOrAMissingFileIsRefused() throws {
        let directory = try makeTemporaryDirectory("ca")
        let other = try makeTemporaryDirectory("other-ca")
        _ = try CertificateAuthority(directory: directory)
        _ = try CertificateAuthority(directory: other)
        let certificatePath = directory.appendingPathComponent("ca.pem").path
        let keyPath = directory.appendingPathComponent("ca-key.pem").path
        try FileManager.default.removeItem(atPath: certificatePath)
        try FileManager.default.copyItem(atPath: other.appendingPathComponent("ca.pem").path, toPath: certificatePath)
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual("\(error)", """
                \(certificatePath): the certificate is not for the key in \(keyPath); expected the pair \
                Understudy wrote (delete \(directory.path) to make a new CA)
                """)
        }
        try FileManager.default.removeItem(atPath: certificatePath)
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual("\(error)", """
                \(certificatePath): missing while \(keyPath) exists; expected both files \
                (delete \(directory.path) to make a new CA)
                """)
        }
    }

    func testADirectoryThatCannotBeMadeIsNamed() throws {
        let base = try makeTemporaryDirectory("ca")
        let blocker = base.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let directory = blocker.appendingPathComponent("ca")
        XCTAssertThrowsError(try CertificateAuthority(directory: directory)) { error in
            XCTAssertEqual((error as? TLSFileError)?.file, directory.path)
            XCTAssertTrue("\(error)".contains("cannot create the CA directory"), "\(error)")
            XCTAssertTrue("\(error)".hasSuffix("expected a directory Understudy can write (--ca-dir or UNDERSTUDY_CA_DIR)"), "\(error)")
        }
    }

    func testTheDefaultDirectoryFollowsTheEnvironment() {
        XCTAssertEqual(CertificateAuthority.defaultDirectory(environment: ["HOME": "/home/me"]).path, "/home/me/.understudy/ca")
        XCTAssertEqual(
            CertificateAuthority.defaultDirectory(environment: ["HOME": "/home/me", "UNDERSTUDY_CA_DIR": "/tmp/my-ca"]).path,
            "/tmp/my-ca"
        )
    }

    // MARK: - Leaves

    func testALeafNamesItsHostVerifiesAgainstTheCAAndLastsAtMost397Days() throws {
        let directory = try makeTemporaryDirectory("ca")
        let ca = try CertificateAuthority(directory: directory)
        let before = Date()
        let leaf = try ca.leaf(for: TLSHostName("IMG.Example.com.")).leaf
        let path = try writePEM(leaf, in: directory, named: "leaf.pem")

        let text = try openssl(["x509", "-in", path, "-noout", "-text"])
        XCTAssertTrue(text.contains("DNS:img.example.com"), text)
        XCTAssertTrue(text.contains("Issuer: O = Understudy, CN = Understudy Local CA"), text)
        XCTAssertTrue(text.contains("Subject: O = Understudy, CN = img.example.com"), text)
        XCTAssertTrue(text.contains("TLS Web Server Authentication"), text)
        XCTAssertTrue(text.contains("CA:FALSE"), text)
        XCTAssertEqual(try openssl(["verify", "-CAfile", ca.certificatePath!, "-verify_hostname", "img.example.com", path]), "\(path): OK\n")

        XCTAssertLessThanOrEqual(leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore), 397 * 86_400)
        XCTAssertGreaterThan(leaf.notValidAfter.timeIntervalSince(before), 396 * 86_400)
        XCTAssertLessThan(leaf.notValidBefore, before.addingTimeInterval(-60), "starts in the past for clock skew")
        // openssl -checkend: still valid in 396 days, not in 398.
        XCTAssertEqual(try runClient("openssl", ["x509", "-in", path, "-noout", "-checkend", String(396 * 86_400)]).status, 0)
        XCTAssertEqual(try runClient("openssl", ["x509", "-in", path, "-noout", "-checkend", String(398 * 86_400)]).status, 1)
    }

    func testIPAddressesGetIPAddressSubjectAltNames() throws {
        let directory = try makeTemporaryDirectory("ca")
        let ca = try CertificateAuthority(directory: directory)
        let v4 = try writePEM(try ca.leaf(for: TLSHostName("127.0.0.1")).leaf, in: directory, named: "v4.pem")
        let v6 = try writePEM(try ca.leaf(for: TLSHostName("[::1]")).leaf, in: directory, named: "v6.pem")
        let v4Text = try openssl(["x509", "-in", v4, "-noout", "-ext", "subjectAltName"])
        XCTAssertTrue(v4Text.contains("IP Address:127.0.0.1"), v4Text)
        XCTAssertFalse(v4Text.contains("DNS:"), v4Text)
        let v6Text = try openssl(["x509", "-in", v6, "-noout", "-ext", "subjectAltName"])
        XCTAssertTrue(v6Text.contains("IP Address:0:0:0:0:0:0:0:1"), v6Text)
        XCTAssertEqual(try openssl(["verify", "-CAfile", ca.certificatePath!, "-verify_ip", "127.0.0.1", v4]), "\(v4): OK\n")
        XCTAssertEqual(try openssl(["verify", "-CAfile", ca.certificatePath!, "-verify_ip", "::1", v6]), "\(v6): OK\n")
    }

    func testConcurrentFirstRequestsForOneHostIssueOneLeaf() throws {
        let ca = try CertificateAuthority.ephemeral()
        let serials = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            serials.append(Result { try ca.leaf(for: TLSHostName("host-\(index % 4).example.com")).leaf.serialNumber.description })
        }
        XCTAssertEqual(ca.leavesIssued, 4, "one leaf per host however many asked at once")
        let values = try serials.values.map { try $0.get() }
        XCTAssertEqual(values.count, 64)
        XCTAssertEqual(Set(values).count, 4)
        _ = try ca.leaf(for: TLSHostName("host-0.example.com"))
        XCTAssertEqual(ca.leavesIssued, 4, "a cached leaf is not issued again")
    }

    func testTheLeafCacheIsBoundedSoClientsNamingNewHostsCannotGrowIt() throws {
        let cache = SingleFlightCache<String, Int>(capacity: 3)
        var made = 0
        for host in ["a", "b", "c", "d"] {
            _ = cache.value(for: host) { made += 1; return made }
        }
        XCTAssertEqual(cache.count, 3, "the key least recently asked for is forgotten past the capacity")
        XCTAssertEqual(cache.value(for: "d") { -1 }, 4, "a kept key is not made again")
        XCTAssertEqual(cache.value(for: "a") { made += 1; return made }, 5, "a forgotten key is made again")
        XCTAssertEqual(cache.count, 3)
    }

    func testBadLeavesAreWrongInExactlyTheirOwnWay() throws {
        let directory = try makeTemporaryDirectory("ca")
        let ca = try CertificateAuthority(directory: directory)
        let host = TLSHostName("bad.example.com")
        let now = Date()
        let caFile = ca.certificatePath!

        let expired = try ca.leaf(for: host, shape: .expired).leaf
        XCTAssertLessThan(expired.notValidAfter, now)
        let expiredPath = try writePEM(expired, in: directory, named: "expired.pem")
        let expiredVerdict = try runClient("openssl", ["verify", "-CAfile", caFile, expiredPath])
        XCTAssertTrue(expiredVerdict.stderr.contains("error 10 at 0 depth lookup: certificate has expired"), expiredVerdict.stderr)

        let early = try ca.leaf(for: host, shape: .notYetValid).leaf
        XCTAssertGreaterThan(early.notValidBefore, now)
        let earlyPath = try writePEM(early, in: directory, named: "early.pem")
        let earlyVerdict = try runClient("openssl", ["verify", "-CAfile", caFile, earlyPath])
        XCTAssertTrue(earlyVerdict.stderr.contains("error 9 at 0 depth lookup: certificate is not yet valid"), earlyVerdict.stderr)

        let wrong = try ca.leaf(for: host, shape: .wrongHost).leaf
        let wrongPath = try writePEM(wrong, in: directory, named: "wrong.pem")
        XCTAssertEqual(try openssl(["verify", "-CAfile", caFile, wrongPath]), "\(wrongPath): OK\n", "signed by the CA")
        let wrongText = try openssl(["x509", "-in", wrongPath, "-noout", "-ext", "subjectAltName"])
        XCTAssertTrue(wrongText.contains("DNS:understudy-wrong-host.invalid"), wrongText)
        XCTAssertFalse(wrongText.contains("bad.example.com"), wrongText)

        let selfSigned = try ca.selfSignedLeaf(for: host).leaf
        XCTAssertEqual(selfSigned.issuer, selfSigned.subject)
        let selfSignedPath = try writePEM(selfSigned, in: directory, named: "self.pem")
        let verdict = try runClient("openssl", ["verify", "-CAfile", caFile, selfSignedPath])
        XCTAssertNotEqual(verdict.status, 0)
        XCTAssertTrue((verdict.text + verdict.stderr).contains("self-signed certificate"), verdict.text + verdict.stderr)
    }

    /// Not a target: the figure for the report (`make bench` times it in release).
    func testFirstLeafIssueTimeIsPrinted() throws {
        let ca = try CertificateAuthority.ephemeral()
        _ = try ca.leaf(for: TLSHostName("warm-up.example.com"))
        var times: [Double] = []
        for index in 0..<50 {
            let start = Date()
            _ = try ca.leaf(for: TLSHostName("timed-\(index).example.com"))
            times.append(Date().timeIntervalSince(start) * 1_000)
        }
        times.sort()
        print("first leaf issue (debug build): median \(String(format: "%.3f", times[25])) ms, max \(String(format: "%.3f", times[49])) ms")
        XCTAssertEqual(ca.leavesIssued, 51)

        // What a host's first connection waits for: the leaf and its TLS context.
        let provider = try TLSContextProvider(identity: .localCA(ca))
        var withContext: [Double] = []
        for index in 0..<50 {
            let start = Date()
            XCTAssertNotNil(try provider.context(forHost: "context-\(index).example.com"))
            withContext.append(Date().timeIntervalSince(start) * 1_000)
        }
        withContext.sort()
        print("first leaf + TLS context (debug build): median \(String(format: "%.3f", withContext[25])) ms, max \(String(format: "%.3f", withContext[49])) ms")
        XCTAssertEqual(ca.leavesIssued, 101)
    }
}

/// Results gathered from many threads at once.
final class LockedResults: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var stored: [Result<String, any Error>] = []

    func append(_ result: Result<String, any Error>) {
        lock.withLock { stored.append(result) }
    }

    func append(_ result: Result<Data, any Error>) {
        lock.withLock { stored.append(result.map { $0.base64EncodedString() }) }
    }

    var values: [Result<String, any Error>] {
        lock.withLock { stored }
    }
}
