import Foundation
import UnderstudyServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How URLSession on Linux (swift-corelibs-foundation over the system's libcurl) can be made to
/// trust the local CA, against a live TLS listener.
///
/// What this toolchain shows: corelibs sets no CA file of its own (its
/// `URLSessionCertificateAuthorityInfoFile` is read on Android only), never hands a delegate a
/// server-trust challenge (there is no `SecTrust`), and the system libcurl loads its built-in
/// `/etc/ssl/certs/ca-certificates.crt` explicitly, so `SSL_CERT_FILE`, `SSL_CERT_DIR` and
/// `CURL_CA_BUNDLE` change nothing. What works is that bundle holding the CA: the system trust
/// store (`update-ca-certificates`), or, for one test process, a bundle bind-mounted over it in
/// a private mount namespace.
final class TLSURLSessionTests: XCTestCase {
    #if os(Linux)
    /// Set in the process the namespace test starts: the URL to fetch.
    private static let probeVariable = "UNDERSTUDY_URLSESSION_TLS_PROBE"
    private static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    private var directory: URL!
    private var ca: CertificateAuthority!
    private var server: TLSTestServer!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("tls-urlsession")
        ca = try CertificateAuthority(directory: directory.appendingPathComponent("ca"))
        server = try TLSTestServer(provider: try TLSContextProvider(identity: .localCA(ca)))
    }

    override func tearDown() {
        server?.stop()
    }

    /// Fetches `url` with a new session: the body, or the error.
    private static func fetch(_ url: URL, delegate: URLSessionDelegate? = nil) async -> Result<String, NSError> {
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url)
        request.timeoutInterval = 10
        do {
            let (data, _) = try await session.data(for: request)
            return .success(String(decoding: data, as: UTF8.self))
        } catch {
            return .failure(error as NSError)
        }
    }

    private func url(_ path: String) -> URL {
        URL(string: "https://localhost:\(server.port)\(path)")!
    }

    /// Runs `body` with `name` set in this process's environment, then restores it.
    private func withEnvironment<T>(_ name: String, _ value: String, _ body: () async throws -> T) async rethrows -> T {
        let old = getenv(name).map { String(cString: $0) }
        setenv(name, value, 1)
        defer {
            if let old { setenv(name, old, 1) } else { unsetenv(name) }
        }
        return try await body()
    }

    private func assertUntrusted(_ result: Result<String, NSError>, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .failure(let error) = result else {
            return XCTFail("\(label): trusted the local CA: \(result)", file: file, line: line)
        }
        // corelibs maps this libcurl failure to NSURLErrorUnknown (-1) with libcurl's own words; the
        // CA certificate the server sends after the leaf is what libcurl calls self-signed.
        XCTAssertEqual(error.code, NSURLErrorUnknown, label, file: file, line: line)
        XCTAssertEqual(error.localizedDescription, "SSL certificate problem: self-signed certificate in certificate chain", label, file: file, line: line)
    }

    func testNeitherEnvironmentVariablesNorADelegateMakeURLSessionTrustTheCA() async throws {
        let caFile = ca.certificatePath!
        assertUntrusted(await Self.fetch(url("/default")), "no setting")
        for name in ["SSL_CERT_FILE", "CURL_CA_BUNDLE", "URLSessionCertificateAuthorityInfoFile"] {
            assertUntrusted(await withEnvironment(name, caFile) { await Self.fetch(url("/\(name)")) }, name)
        }
        let hashed = directory.appendingPathComponent("certs")
        try FileManager.default.createDirectory(at: hashed, withIntermediateDirectories: true)
        let hash = try runClient("openssl", ["x509", "-in", caFile, "-noout", "-subject_hash"]).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.copyItem(atPath: caFile, toPath: hashed.appendingPathComponent("\(hash).0").path)
        assertUntrusted(await withEnvironment("SSL_CERT_DIR", hashed.path) { await Self.fetch(url("/dir")) }, "SSL_CERT_DIR")

        let delegate = ChallengeRecorder()
        assertUntrusted(await Self.fetch(url("/challenge"), delegate: delegate), "delegate")
        XCTAssertEqual(delegate.methods, [], "corelibs hands no server-trust challenge to a delegate")
    }

    /// libcurl's built-in bundle holding the CA is what works: shown without touching the
    /// machine's trust store, by running one test of this binary in a private mount namespace
    /// where a bundle with the CA appended is bind-mounted over the system's.
    func testURLSessionTrustsTheCAWhenTheSystemBundleHoldsIt() throws {
        let bundle = directory.appendingPathComponent("bundle.pem")
        let system = (try? Data(contentsOf: URL(fileURLWithPath: Self.systemBundle))) ?? Data()
        try (system + Data(ca.pem.utf8)).write(to: bundle)
        let script = #"mount --bind "$1" "$2" && shift 2 && exec "$@""#
        let testBinary = CommandLine.arguments[0]
        #if !os(Linux)
        throw XCTSkip("unshare(1) and a private mount namespace are Linux's")
        #endif
        let result = try runClient("unshare", [
            "--mount", "sh", "-c", script, "sh", bundle.path, Self.systemBundle,
            testBinary, "UnderstudyServerTests.TLSURLSessionTests/testProbeInsideTheNamespace",
        ], environment: [Self.probeVariable: url("/trusted").absoluteString])
        let output = result.text + result.stderr
        if result.status != 0, output.contains("unshare failed") || output.contains("mount: ") {
            throw XCTSkip("needs a private mount namespace (root or CAP_SYS_ADMIN): \(output)")
        }
        XCTAssertEqual(result.status, 0, output)
        XCTAssertTrue(output.contains("URLSession probe: tls ok: localhost:\(server.port) /trusted"), output)
        XCTAssertTrue(output.contains("Executed 1 test, with 0 failures"), output)
    }

    /// Inside the namespace the test above makes, URLSession trusts the CA; outside it, with the
    /// machine's own bundle, the same request is refused.
    func testProbeInsideTheNamespace() async throws {
        guard let target = ProcessInfo.processInfo.environment[Self.probeVariable] else {
            return assertUntrusted(await Self.fetch(url("/outside")), "outside the namespace")
        }
        let result = await Self.fetch(URL(string: target)!)
        guard case .success(let body) = result else { return XCTFail("untrusted inside the namespace: \(result)") }
        print("URLSession probe: \(body)")
    }
    #endif
}

/// Records the authentication challenges a session hands its delegate, answering each with
/// the default handling.
private final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {  // `recorded` behind `lock`
    private let lock = NSLock()
    private var recorded: [String] = []

    var methods: [String] { lock.withLock { recorded } }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        lock.withLock { recorded.append("session: \(challenge.protectionSpace.authenticationMethod)") }
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        lock.withLock { recorded.append("task: \(challenge.protectionSpace.authenticationMethod)") }
        completionHandler(.performDefaultHandling, nil)
    }
}
