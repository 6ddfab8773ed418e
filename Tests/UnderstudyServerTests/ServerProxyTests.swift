import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Proxying over the wire: a second stub server plays the real upstream, on loopback.
final class ServerProxyTests: XCTestCase {
    func testAWebPFetchedThroughTheProxyArrivesAsPNG() async throws {
        try requireEncoding(.webp)
        let source = try ImageGenerator.generate(width: 32, height: 16, pattern: .gradient)
        let webp = try source.webPLosslessData()
        let upstreamStubs = StubRegistry()
        upstreamStubs.stub(.path("/a.webp"), named: "origin", response: .data(webp))
        try await withServer(upstreamStubs) { upstream in
            let stubs = StubRegistry()
            stubs.stub(.host("img.example.com") && .pathExtension("webp"), named: "webp-as-png",
                       response: .forward(to: upstream.baseURL, transcode: .png))
            try await withServer(stubs) { proxy in
                let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).png")
                defer { try? FileManager.default.removeItem(at: output) }
                let result = try curl(["--dump-header", "-", "--output", output.path, "http://img.example.com/a.webp"],
                                      environment: ["http_proxy": proxy.baseURL.absoluteString])
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertTrue(result.text.contains("Content-Type: image/png\r\n"), result.text)
                let png = try Data(contentsOf: output)
                XCTAssertTrue(result.text.contains("Content-Length: \(png.count)\r\n"), result.text)
                XCTAssertEqual(ImageKind.detect(png), .png)
                XCTAssertEqual(try RGBAImage(decoding: png), source, "lossless WebP upstream, PNG to the client: same pixels")
                XCTAssertEqual(upstreamStubs.journal.interactions.map(\.request.path), ["/a.webp"])
                XCTAssertEqual(stubs.journal.interactions.first?.stubName, "webp-as-png")
            }
        }
    }

    func testUnmatchedRequestsAreForwardedWithProxyUnmatchedAndJournaledAsProxy() async throws {
        let upstreamStubs = StubRegistry()
        upstreamStubs.stub(.path("/real.json"), named: "real", response: .json(["from": "upstream"]).headers(["X-Upstream": "yes"]))
        try await withServer(upstreamStubs) { upstream in
            let stubs = StubRegistry()
            stubs.stub(.path("/stubbed"), response: .text("stubbed"))
            try await withServer(stubs, configuration: .init(proxyUnmatched: upstream.baseURL)) { server in
                let forwarded = try curl(["--include", server.baseURL.absoluteString + "/real.json"])
                XCTAssertTrue(forwarded.text.hasPrefix("HTTP/1.1 200 OK\r\n"), forwarded.text)
                XCTAssertTrue(forwarded.text.contains("X-Upstream: yes\r\n"), forwarded.text)
                XCTAssertTrue(forwarded.text.hasSuffix(#"{"from":"upstream"}"#), forwarded.text)
                let missing = try curl(["--write-out", "%{http_code}", "--output", "/dev/null", server.baseURL.absoluteString + "/absent"])
                XCTAssertEqual(missing.text, "404", "the upstream's own 404")
                XCTAssertEqual(try curl([server.baseURL.absoluteString + "/stubbed"]).text, "stubbed")
                let entries = stubs.journal.interactions
                XCTAssertEqual(entries.map(\.transport), [.proxy, .proxy, .server])
                XCTAssertEqual(entries.map(\.status), [200, 404, 200])
                XCTAssertEqual(stubs.journal.unmatched.count, 2)
            }
        }
    }

    func testADeadUpstreamIsA502NamingIt() async throws {
        let stubs = StubRegistry()
        try await withServer(stubs, configuration: .init(proxyUnmatched: URL(string: "http://127.0.0.1:9")!)) { server in
            let result = try curl(["--include", server.baseURL.absoluteString + "/x"])
            XCTAssertTrue(result.text.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"), result.text)
            XCTAssertTrue(result.text.contains("forward to http://127.0.0.1:9/x failed:"), result.text)
            XCTAssertEqual(stubs.journal.interactions.first?.transport, .proxy)
        }
    }
}
