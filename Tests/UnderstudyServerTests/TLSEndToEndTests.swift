import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Understudy
@testable import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// `TLSContextProvider` in front of a trivial responder, as real clients see it: openssl
/// s_client, curl, Python and AsyncHTTPClient accept the local CA's leaves, and refuse each
/// `tls:` case with their own words.
final class TLSEndToEndTests: XCTestCase {
    private var directory: URL!
    private var ca: CertificateAuthority!
    private var caFile: String { ca.certificatePath! }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("tls-e2e")
        ca = try CertificateAuthority(directory: directory.appendingPathComponent("ca"))
    }

    private func withServer(
        _ provider: TLSContextProvider, defaultHost: String = "127.0.0.1", _ body: (Int) async throws -> Void
    ) async throws {
        let server = try TLSTestServer(provider: provider, defaultHost: defaultHost)
        defer { server.stop() }
        try await body(server.port)
    }

    private func curlHTTPS(_ host: String, port: Int, path: String = "/", caFile: String? = nil) throws -> ProcessResult {
        try curl(["--cacert", caFile ?? self.caFile, "--resolve", "\(host):\(port):127.0.0.1", "https://\(host):\(port)\(path)"])
    }

    // MARK: - Good certificates

    func testOpenSSLVerifiesTheChainNameAndALPNForAnSNIName() async throws {
        let provider = try TLSContextProvider(identity: .localCA(ca), applicationProtocols: ["h2", "http/1.1"])
        try await withServer(provider) { port in
            let result = try runClient("openssl", [
                "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "img.example.com",
                "-CAfile", caFile, "-verify_return_error", "-verify_hostname", "img.example.com", "-alpn", "h2,http/1.1",
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.text.contains("Verification: OK"), result.text)
            XCTAssertTrue(result.text.contains("Verified peername: img.example.com"), result.text)
            XCTAssertTrue(result.text.contains("Verify return code: 0 (ok)"), result.text)
            XCTAssertTrue(result.text.contains("subject=O = Understudy, CN = img.example.com"), result.text)
            XCTAssertTrue(result.text.contains("issuer=O = Understudy, CN = Understudy Local CA"), result.text)
            XCTAssertTrue(result.text.contains("ALPN protocol: h2"), result.text)

            let http1 = try runClient("openssl", [
                "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "img.example.com", "-CAfile", caFile,
                "-verify_return_error", "-alpn", "http/1.1",
            ])
            XCTAssertTrue(http1.text.contains("ALPN protocol: http/1.1"), http1.text)
        }
    }

    func testCurlPythonAndAsyncHTTPClientTrustingOnlyTheCAGetTheBody() async throws {
        let provider = try TLSContextProvider(identity: .localCA(ca))
        try await withServer(provider) { port in
            let curled = try curlHTTPS("img.example.com", port: port, path: "/cat.png")
            XCTAssertEqual(curled.status, 0, curled.stderr)
            XCTAssertEqual(curled.text, "tls ok: img.example.com:\(port) /cat.png")

            let python = try pythonGet("https://img.example.com:\(port)/dog.webp", caFile: caFile, host: "img.example.com", port: port)
            XCTAssertEqual(python.text, "200 tls ok: img.example.com:\(port) /dog.webp\n", python.stderr)

            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(ca.der), format: .der)])
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            do {
                // AsyncHTTPClient sends SNI "localhost" and checks the leaf names it.
                let response = try await client.execute(HTTPClientRequest(url: "https://localhost:\(port)/a.png"), timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 1 << 16)
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(String(buffer: body), "tls ok: localhost:\(port) /a.png")
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    func testAClientSendingNoServerNameGetsTheListenersAddress() async throws {
        let provider = try TLSContextProvider(identity: .localCA(ca))
        try await withServer(provider, defaultHost: "127.0.0.1") { port in
            // curl sends no SNI for an IP address; the leaf names 127.0.0.1 as an IP SAN.
            let result = try curl(["--cacert", caFile, "https://127.0.0.1:\(port)/ip"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text, "tls ok: 127.0.0.1:\(port) /ip")
            let noSNI = try runClient("openssl", [
                "s_client", "-connect", "127.0.0.1:\(port)", "-noservername", "-CAfile", caFile,
                "-verify_return_error", "-verify_ip", "127.0.0.1",
            ])
            XCTAssertTrue(noSNI.text.contains("Verification: OK"), noSNI.text)
        }
    }

    func testAChainOfYourOwnIsServedForEveryHost() async throws {
        let certificate = directory.appendingPathComponent("own.pem").path
        let key = directory.appendingPathComponent("own-key.pem").path
        let made = try runClient("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "30", "-subj", "/CN=own.example.com",
            "-addext", "subjectAltName=DNS:own.example.com,DNS:other.example.com",
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let chain = try TLSCertificateChain(certificateFile: certificate, keyFile: key)
        let provider = try TLSContextProvider(identity: .certificate(chain))
        try await withServer(provider) { port in
            for host in ["own.example.com", "other.example.com"] {
                let result = try curlHTTPS(host, port: port, caFile: certificate)
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertEqual(result.text, "tls ok: \(host):\(port) /")
            }
            // The local CA is not involved, so a client trusting it refuses the chain.
            let refused = try curlHTTPS("own.example.com", port: port)
            XCTAssertEqual(refused.status, 60, refused.stderr)
        }
        XCTAssertEqual(ca.leavesIssued, 0)
    }

    func testPlainHTTPToTheTLSPortNeverReachesTheHTTPHandlers() async throws {
        let provider = try TLSContextProvider(identity: .localCA(ca))
        try await withServer(provider) { port in
            let socket = try RawSocket(port: port)
            socket.send("GET /plain HTTP/1.1\r\nHost: img.example.com\r\n\r\n")
            let answer = socket.read()
            XCTAssertFalse(answer.text.contains("tls ok"), answer.text)
            XCTAssertFalse(answer.text.contains("HTTP/1.1"), answer.text)
            XCTAssertNotEqual(answer.ending, .timedOut, "the TLS listener closes on bytes that are no TLS hello")
        }
        XCTAssertEqual(ca.leavesIssued, 1, "the request line is no hello: the listener's own leaf is tried")
    }

    // MARK: - Bad certificates on purpose

    /// What each client said about each `tls:` case; printed for docs/faults.md.
    func testEveryTLSCaseIsRefusedByCurlPythonAndOpenSSLWithTheirOwnWords() async throws {
        let stubs = StubRegistry()
        stubs.tls(host: "expired.example.com", .expired)
        stubs.tls(host: "early.example.com", .notYetValid)
        stubs.tls(host: "wrong.example.com", .wrongHost)
        stubs.tls(host: "*.self.example.com", .selfSigned)
        stubs.tls(host: "refused.example.com", .handshakeFailure)
        let provider = try TLSContextProvider(identity: .localCA(ca), registry: stubs)
        let cases: [(host: String, curlExit: Int32, curl: String, python: String, openssl: String)] = [
            ("expired.example.com", 60, "certificate has expired",
             "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired", "certificate has expired"),
            ("early.example.com", 60, "certificate is not yet valid",
             "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate is not yet valid", "certificate is not yet valid"),
            ("wrong.example.com", 60, "no alternative certificate subject name matches target host name 'wrong.example.com'",
             "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid for 'wrong.example.com'",
             "hostname mismatch"),
            ("a.self.example.com", 60, "self-signed certificate",
             "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate", "self-signed certificate"),
            ("refused.example.com", 35, "sslv3 alert handshake failure",
             "[SSL: SSLV3_ALERT_HANDSHAKE_FAILURE] sslv3 alert handshake failure", "sslv3 alert handshake failure"),
        ]
        try await withServer(provider) { port in
            var said: [String] = []
            for item in cases {
                let curled = try curlHTTPS(item.host, port: port)
                XCTAssertEqual(curled.status, item.curlExit, "\(item.host): \(curled.stderr)")
                XCTAssertTrue(curled.stderr.contains(item.curl), "\(item.host): \(curled.stderr)")
                XCTAssertEqual(curled.text, "", "\(item.host): no body")

                let python = try pythonGet("https://\(item.host):\(port)/", caFile: caFile, host: item.host, port: port)
                XCTAssertEqual(python.status, 1, "\(item.host): \(python.text)")
                XCTAssertTrue(python.text.contains(item.python), "\(item.host): \(python.text)")

                let openssl = try runClient("openssl", [
                    "s_client", "-connect", "127.0.0.1:\(port)", "-servername", item.host, "-CAfile", caFile,
                    "-verify_return_error", "-verify_hostname", item.host,
                ])
                XCTAssertNotEqual(openssl.status, 0, item.host)
                XCTAssertTrue((openssl.text + openssl.stderr).contains(item.openssl), "\(item.host): \(openssl.text) \(openssl.stderr)")

                said.append("""
                    \(item.host)
                      curl (exit \(curled.status)): \(curled.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
                      python: \(python.text.trimmingCharacters(in: .whitespacesAndNewlines))
                      openssl s_client: \(openssl.stderr.split(separator: "\n").first { $0.contains("error") } ?? "")
                    """)
            }
            print(said.joined(separator: "\n"))

            // A host with no rule, on the same listener, still gets a good leaf.
            let good = try curlHTTPS("fine.example.com", port: port)
            XCTAssertEqual(good.status, 0, good.stderr)
            XCTAssertEqual(good.text, "tls ok: fine.example.com:\(port) /")
        }
    }

    func testRulesChangedWhileServingApplyToTheNextHandshake() async throws {
        let stubs = StubRegistry()
        let provider = try TLSContextProvider(identity: .localCA(ca), registry: stubs)
        try await withServer(provider) { port in
            XCTAssertEqual(try curlHTTPS("flip.example.com", port: port).status, 0)
            stubs.tls(host: "flip.example.com", .expired)
            let expired = try curlHTTPS("flip.example.com", port: port)
            XCTAssertEqual(expired.status, 60)
            XCTAssertTrue(expired.stderr.contains("certificate has expired"), expired.stderr)
            XCTAssertTrue(stubs.removeTLS(host: "flip.example.com"))
            XCTAssertEqual(try curlHTTPS("flip.example.com", port: port).status, 0)
        }
    }

    func testStubFileRulesReachTheHandshake() async throws {
        let stubDirectory = directory.appendingPathComponent("Stubs")
        try FileManager.default.createDirectory(at: stubDirectory, withIntermediateDirectories: true)
        try """
            tls:
              - host: "*.bad.test"
                certificate: wrong-host
            """.write(to: stubDirectory.appendingPathComponent("tls.yaml"), atomically: true, encoding: .utf8)
        let stubs = StubRegistry()
        try stubs.load(from: stubDirectory)
        let provider = try TLSContextProvider(identity: .localCA(ca), registry: stubs)
        try await withServer(provider) { port in
            let result = try curlHTTPS("img.bad.test", port: port)
            XCTAssertEqual(result.status, 60)
            XCTAssertTrue(result.stderr.contains("no alternative certificate subject name matches target host name 'img.bad.test'"), result.stderr)
            XCTAssertEqual(try curlHTTPS("bad.test", port: port).status, 0, "the glob needs a subdomain")
        }
    }

    func testManyFirstHandshakesForOneHostMakeOneLeaf() async throws {
        let provider = try TLSContextProvider(identity: .localCA(ca))
        try await withServer(provider) { port in
            let arguments = ["--cacert", caFile, "--resolve", "burst.example.com:\(port):127.0.0.1", "https://burst.example.com:\(port)/"]
            let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                for _ in 0..<8 {
                    group.addTask { try curl(arguments).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(statuses, Array(repeating: 0, count: 8))
        }
        XCTAssertEqual(ca.leavesIssued, 1)
    }
}
