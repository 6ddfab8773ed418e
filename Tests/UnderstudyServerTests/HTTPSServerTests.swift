import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// The stub server over HTTPS and as an intercepting `CONNECT` proxy, as real clients see it:
/// curl, Python and AsyncHTTPClient trusting exactly the server's local CA.
final class HTTPSServerTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("https-server")
    }

    private func startServer(_ stubs: StubRegistry, configuration: StubServer.Configuration = .init()) async throws -> (StubServer, String) {
        let server = try await StubServer.start(
            serving: stubs, configuration: configuration, tls: .localCA(directory: directory.appendingPathComponent("ca"))
        )
        let ca = try XCTUnwrap(server.certificateAuthority)
        let caFile = directory.appendingPathComponent("trusted.pem")
        try Data(ca.pem.utf8).write(to: caFile)
        return (server, caFile.path)
    }

    private static func stubs() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.scheme("https") && .path("/cat.png"), named: "https-cat", response: .data(Data("meow".utf8), contentType: "image/png"))
        stubs.stub(.scheme("http") && .path("/cat.png"), named: "http-cat", response: .text("plain"))
        return stubs
    }

    func testTheTLSListenerServesTheSameStubsMatchedAsHTTPS() async throws {
        let stubs = Self.stubs()
        let (server, caFile) = try await startServer(stubs)
        defer { Task { try? await server.stop() } }
        let httpsURL = try XCTUnwrap(server.httpsURL)
        XCTAssertEqual(httpsURL.scheme, "https")
        XCTAssertEqual(httpsURL.port, server.tlsPort)

        let result = try curl(["--http1.1", "--cacert", caFile, "-D", "-", "\(httpsURL.absoluteString)/cat.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.hasPrefix("HTTP/1.1 200 OK\r\n"), result.text)
        XCTAssertTrue(result.text.contains("X-Understudy-Stub: https-cat\r\n"), result.text)
        XCTAssertTrue(result.text.hasSuffix("\r\n\r\nmeow"), result.text)
        let plain = try curl(["\(server.baseURL.absoluteString)/cat.png"])
        XCTAssertEqual(plain.text, "plain", "the plain port still matches http")

        let urls = stubs.journal.interactions.map(\.request.url.absoluteString)
        XCTAssertEqual(urls, ["https://127.0.0.1:\(server.tlsPort!)/cat.png", "http://127.0.0.1:\(server.port)/cat.png"])

        // The CA is served at /__admin/ca.pem, its key never.
        let pem = try curl(["\(server.baseURL.absoluteString)/__admin/ca.pem"])
        XCTAssertEqual(pem.text, server.certificateAuthority?.pem)
        XCTAssertFalse(pem.text.contains("PRIVATE KEY"))
    }

    /// Large file bodies go out with sendfile(2) on the plain port; under TLS they must go as
    /// bytes (a file region written into the TLS handler stopped the server).
    func testLargeFileBodiesAndRangesOverTLSAndThroughAnInterceptedTunnel() async throws {
        var bytes = [UInt8](repeating: 0, count: 200_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        let body = Data(bytes)
        let file = directory.appendingPathComponent("big.png")
        try body.write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/big.png"), named: "big", response: .file(file))
        let (server, caFile) = try await startServer(stubs)
        defer { Task { try? await server.stop() } }
        let httpsURL = try XCTUnwrap(server.httpsURL)
        let out = directory.appendingPathComponent("out")

        for (label, arguments) in [
            ("plain port", ["\(server.baseURL.absoluteString)/big.png"]),
            ("TLS listener", ["--cacert", caFile, "\(httpsURL.absoluteString)/big.png"]),
            ("intercepted tunnel", ["--cacert", caFile, "-x", server.baseURL.absoluteString, "https://img.example.com/big.png"]),
        ] {
            for _ in 0..<2 {  // the second answer comes from the cached wire response
                let whole = try curl(["--http1.1", "-o", out.path] + arguments)
                XCTAssertEqual(whole.status, 0, "\(label): \(whole.stderr)")
                XCTAssertEqual(try Data(contentsOf: out), body, label)
            }
            let ranged = try curl(["--http1.1", "-r", "10000-75535", "-o", out.path, "-w", "%{http_code}"] + arguments)
            XCTAssertEqual(ranged.text, "206", "\(label): \(ranged.stderr)")
            XCTAssertEqual(try Data(contentsOf: out), body.subdata(in: 10000..<75536), label)
        }
        let statuses = stubs.journal.interactions.map { $0.status ?? 0 }
        XCTAssertEqual(statuses, [200, 200, 206, 200, 200, 206, 200, 200, 206])
    }

    func testCurlAndPythonThroughTheProxyAreInterceptedAndStubbed() async throws {
        let stubs = Self.stubs()
        stubs.stub(.host("img.example.com") && .path("/dog.webp"), named: "dog", response: .text("woof"))
        let (server, caFile) = try await startServer(stubs)
        defer { Task { try? await server.stop() } }

        let viaProxy = try curl(["--http1.1", "--cacert", caFile, "-x", server.baseURL.absoluteString, "-D", "-", "https://img.example.com/dog.webp"])
        XCTAssertEqual(viaProxy.status, 0, viaProxy.stderr)
        XCTAssertTrue(viaProxy.text.contains("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK\r\n"), viaProxy.text)
        XCTAssertTrue(viaProxy.text.contains("X-Understudy-Stub: dog\r\n"), viaProxy.text)
        XCTAssertTrue(viaProxy.text.hasSuffix("woof"), viaProxy.text)

        // Keep-alive inside the tunnel: two requests on one connection, both journaled.
        let twice = try curl(["--cacert", caFile, "-x", server.baseURL.absoluteString, "https://img.example.com/dog.webp", "https://img.example.com/cat.png"])
        XCTAssertEqual(twice.text, "woofmeow", twice.stderr)

        let python = try runClient("python3", ["-c", """
            import ssl, sys, urllib.request
            context = ssl.create_default_context(cafile=sys.argv[2])
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({"https": sys.argv[1]}), urllib.request.HTTPSHandler(context=context))
            with opener.open("https://img.example.com/dog.webp", timeout=10) as response:
                print(response.status, response.headers["X-Understudy-Stub"], response.read().decode())
            """, server.baseURL.absoluteString, caFile])
        XCTAssertEqual(python.text, "200 dog woof\n", python.stderr)

        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.map(\.request.url.absoluteString), [
            "https://img.example.com/dog.webp", "https://img.example.com/dog.webp", "https://img.example.com/cat.png",
            "https://img.example.com/dog.webp",
        ])
        XCTAssertEqual(entries.map(\.stubName), ["dog", "dog", "https-cat", "dog"])
        XCTAssertTrue(entries.allSatisfy { $0.transport == .server })
    }

    func testALPNNegotiatesHTTP2OnTheTLSListenerAndInsideAnInterceptedTunnel() async throws {
        let stubs = Self.stubs()
        stubs.stub(.host("img.example.com") && .path("/dog.webp"), named: "dog", response: .text("woof"))
        let (server, caFile) = try await startServer(stubs)
        defer { Task { try? await server.stop() } }
        let direct = try curl(["--http2", "--cacert", caFile, "-w", " %{http_version}", "\(server.httpsURL!.absoluteString)/cat.png"])
        XCTAssertEqual(direct.text, "meow 2", direct.stderr)
        let tunnelled = try curl(["--http2", "--cacert", caFile, "-x", server.baseURL.absoluteString, "-w", " %{http_version}", "https://img.example.com/dog.webp"])
        XCTAssertEqual(tunnelled.text, "woof 2", tunnelled.stderr)
        let http1 = try curl(["--http1.1", "--cacert", caFile, "-w", " %{http_version}", "\(server.httpsURL!.absoluteString)/cat.png"])
        XCTAssertEqual(http1.text, "meow 1.1", http1.stderr)
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http2, .http2, .http1_1])
        XCTAssertEqual(stubs.journal.interactions.map(\.request.url.absoluteString), [
            "https://127.0.0.1:\(server.tlsPort!)/cat.png", "https://img.example.com/dog.webp", "https://127.0.0.1:\(server.tlsPort!)/cat.png",
        ])
    }

    func testAsyncHTTPClientTrustingExactlyTheCA() async throws {
        let stubs = Self.stubs()
        let (server, _) = try await startServer(stubs)
        defer { Task { try? await server.stop() } }
        let ca = try XCTUnwrap(server.certificateAuthority)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(ca.der), format: .der)])
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        do {
            let response = try await client.execute(HTTPClientRequest(url: "\(server.httpsURL!.absoluteString)/cat.png"), timeout: .seconds(10))
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.headers.first(name: "X-Understudy-Stub"), "https-cat")
            let body = try await response.body.collect(upTo: 1 << 20)
            XCTAssertEqual(String(buffer: body), "meow")
            // A client trusting the system store only refuses the local CA's leaf.
            let untrusting = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                _ = try await untrusting.execute(HTTPClientRequest(url: "\(server.httpsURL!.absoluteString)/cat.png"), timeout: .seconds(10))
                XCTFail("a client that does not trust the local CA got through")
            } catch {
                XCTAssertTrue("\(error)".contains("certificate") || "\(error)".contains("handshake"), "\(error)")
            }
            try await untrusting.shutdown()
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    func testATunnelledHostIsSplicedByteForByteAndJournaledOnce() async throws {
        // The real host: another TLS server with a CA of its own, which the proxy cannot forge.
        let upstreamStubs = StubRegistry()
        let payload = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        upstreamStubs.stub(.path("/big.bin"), named: "upstream", response: .data(payload, contentType: "application/octet-stream"))
        let upstreamCA = try CertificateAuthority.ephemeral()
        let upstream = try await StubServer.start(serving: upstreamStubs, tls: .authority(upstreamCA))
        defer { Task { try? await upstream.stop() } }
        let upstreamCAFile = directory.appendingPathComponent("upstream.pem")
        try Data(upstreamCA.pem.utf8).write(to: upstreamCAFile)

        let stubs = Self.stubs()
        var configuration = StubServer.Configuration()
        configuration.tunnel = ["127.0.0.1"]
        let (server, _) = try await startServer(stubs, configuration: configuration)
        defer { Task { try? await server.stop() } }

        let out = directory.appendingPathComponent("got.bin")
        let result = try curl(["--cacert", upstreamCAFile.path, "-x", server.baseURL.absoluteString, "-o", out.path, "\(upstream.httpsURL!.absoluteString)/big.bin"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Data(contentsOf: out), payload, "the upstream's own bytes, through its own certificate")

        try await stubs.journal.wait(for: .method("CONNECT"), count: 1, timeout: .seconds(5))
        let entry = try XCTUnwrap(stubs.journal.interactions.first { $0.request.method == "CONNECT" })
        XCTAssertEqual(entry.request.url.absoluteString, "https://127.0.0.1:\(upstream.tlsPort!)")
        guard case .tunnelled(let fromClient, let toClient) = entry.outcome else { return XCTFail("outcome \(entry.outcome)") }
        XCTAssertGreaterThan(fromClient, 200, "a TLS hello and a request went up")
        XCTAssertGreaterThan(toClient, payload.count, "the body, encrypted, came down")
        XCTAssertEqual(stubs.journal.count, 1, "the tunnel is one entry; nothing inside was seen")
        XCTAssertEqual(upstreamStubs.journal.interactions.map(\.stubName), ["upstream"])
    }

    func testWithoutTLSConnectIsRefusedSayingWhy() async throws {
        let stubs = Self.stubs()
        let server = try await StubServer.start(serving: stubs)
        defer { Task { try? await server.stop() } }
        XCTAssertNil(server.httpsURL)
        let socket = try RawSocket(port: server.port)
        socket.send("CONNECT img.example.com:443 HTTP/1.1\r\nHost: img.example.com:443\r\n\r\n")
        let (responses, _) = socket.readResponses()
        XCTAssertEqual(responses.first?.status, 501)
        XCTAssertEqual(responses.first?.body, "CONNECT img.example.com:443 refused: this server has no TLS to intercept it with (start it with --tls-port or tls:), and it is not a --tunnel host\n")
        XCTAssertEqual(stubs.journal.interactions.first?.request.method, "CONNECT")
        XCTAssertEqual(stubs.journal.interactions.first?.status, 501)
    }
}
