import AsyncHTTPClient
import Foundation
import Understudy
import UnderstudyHAR
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// HTTP/2 with prior knowledge (h2c) on the plain port, as real clients see it: curl
/// `--http2-prior-knowledge` and Python's httpx with `http2=True`, beside HTTP/1.1 on the same
/// port; the journal, HAR and admin API say which version each request came over.
///
/// AsyncHTTPClient cannot take part over HTTP/2 here: it speaks HTTP/2 only after ALPN on
/// `https`, never with prior knowledge on `http` (it has no such option). It is here to show
/// that the port still serves it HTTP/1.1 with HTTP/2 on.
final class HTTP2ServerTests: XCTestCase {
    private static let image = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    private func makeStubs() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png"), named: "cat", response: .data(Self.image, contentType: "image/png").headers([
            "ETag": "\"v1\"", "Vary": "Accept", "Connection": "keep-alive, X-Hop", "X-Hop": "1", "Keep-Alive": "timeout=5",
            "Upgrade": "h2c", "Proxy-Connection": "keep-alive", "Cache-Control": "max-age=60",
        ]))
        return stubs
    }

    /// `curl -D - -w %{http_version}`: the status line and headers as curl printed them, the
    /// version, and the body in `bodyFile`.
    private func curlHead(_ url: String, _ extra: [String], bodyFile: URL) throws -> (version: String, head: String, status: Int32, stderr: String) {
        let result = try curl(extra + ["--dump-header", "-", "--output", bodyFile.path, "--write-out", "\n%{http_version}", url])
        let lines = result.text.components(separatedBy: "\n")
        return (lines.last ?? "", lines.dropLast().joined(separator: "\n"), result.status, result.stderr)
    }

    func testCurlWithPriorKnowledgeGetsHTTP2BesideHTTP1OnTheSamePort() async throws {
        let stubs = makeStubs()
        let directory = try makeTemporaryDirectory("h2-curl")
        try await withServer(stubs) { server in
            let url = server.baseURL.absoluteString + "/cat.png"
            let h2Body = directory.appendingPathComponent("h2.png"), h1Body = directory.appendingPathComponent("h1.png")

            let h2 = try curlHead(url, ["--http2-prior-knowledge"], bodyFile: h2Body)
            XCTAssertEqual(h2.status, 0, h2.stderr)
            XCTAssertEqual(h2.version, "2")
            XCTAssertEqual(try Data(contentsOf: h2Body), Self.image, "the body, byte for byte")
            let h2Lines = h2.head.components(separatedBy: "\r\n")
            XCTAssertEqual(h2Lines.first, "HTTP/2 200 ")
            for line in ["content-length: 40000", "etag: \"v1\"", "vary: Accept", "content-type: image/png", "cache-control: max-age=60"] {
                XCTAssertTrue(h2Lines.contains(line), "\(line) in\n\(h2.head)")
            }
            let names = h2Lines.dropFirst().compactMap { $0.split(separator: ":").first.map(String.init) }
            XCTAssertEqual(names, names.map { $0.lowercased() }, "lowercase names only")
            for name in ["connection", "keep-alive", "upgrade", "proxy-connection", "x-hop", "transfer-encoding"] {
                XCTAssertFalse(names.contains(name), "\(name) is connection-specific and must not be sent: \(h2.head)")
            }

            let h1 = try curlHead(url, ["--http1.1"], bodyFile: h1Body)
            XCTAssertEqual(h1.status, 0, h1.stderr)
            XCTAssertEqual(h1.version, "1.1")
            XCTAssertEqual(try Data(contentsOf: h1Body), Self.image)
            XCTAssertTrue(h1.head.hasPrefix("HTTP/1.1 200 OK\r\n"), h1.head)
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.map(\.httpVersion), [.http2, .http1_1])
        XCTAssertEqual(entries.map(\.status), [200, 200])
        XCTAssertEqual(entries.map(\.bodyBytesSent), [40_000, 40_000])
        XCTAssertEqual(entries[0].request.headers["Host"], entries[1].request.headers["Host"], ":authority is the host")
        let har = HARDocument(journal: stubs.journal)
        XCTAssertEqual(har.log.entries.map(\.request.httpVersion), ["HTTP/2", "HTTP/1.1"])
        XCTAssertEqual(har.log.entries.map(\.response.httpVersion), ["HTTP/2", "HTTP/1.1"])
    }

    func testNoHTTP2LeavesThePortToHTTP1() async throws {
        let stubs = makeStubs()
        let directory = try makeTemporaryDirectory("h2-off")
        try await withServer(stubs, configuration: .init(http2: false)) { server in
            let url = server.baseURL.absoluteString + "/cat.png"
            let h2 = try curlHead(url, ["--http2-prior-knowledge"], bodyFile: directory.appendingPathComponent("h2"))
            XCTAssertNotEqual(h2.status, 0, "HTTP/2's preface is not HTTP/1.1: \(h2.head)")
            XCTAssertNotEqual(h2.version, "2")
            let h1 = try curlHead(url, [], bodyFile: directory.appendingPathComponent("h1"))
            XCTAssertEqual(h1.status, 0, h1.stderr)
            XCTAssertEqual(h1.version, "1.1")
        }
    }

    func testAdminAPIAndNearMiss404OverHTTP2() async throws {
        let stubs = makeStubs()
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            let missed = try curl(["--http2-prior-knowledge", "--write-out", "\n%{http_code} %{http_version}", base + "/cat.jpg"])
            XCTAssertEqual(missed.status, 0, missed.stderr)
            XCTAssertTrue(missed.text.hasSuffix("\n404 2"), missed.text)
            XCTAssertTrue(missed.text.contains("cat"), "the near-miss report names the nearest stub: \(missed.text)")

            _ = try curl(["--http2-prior-knowledge", "--output", "/dev/null", base + "/cat.png"])
            let admin = try curl(["--http2-prior-knowledge", "--write-out", "\n%{http_code} %{http_version}", base + "/__admin/requests"])
            XCTAssertEqual(admin.status, 0, admin.stderr)
            let lines = admin.text.components(separatedBy: "\n")
            XCTAssertEqual(lines.last, "200 2")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8)) as? [String: Any])
            let requests = try XCTUnwrap(json["requests"] as? [[String: Any]])
            XCTAssertEqual(requests.count, 2, "admin requests are not journaled")
            // Understudy's entry sits under request.understudy in WireMock's serve event.
            let entries = requests.compactMap { ($0["request"] as? [String: Any])?["understudy"] as? [String: Any] }
            XCTAssertEqual(entries.compactMap { $0["httpVersion"] as? String }, ["HTTP/2", "HTTP/2"])
            XCTAssertEqual(Set(entries.compactMap { $0["outcome"] as? String }), ["unmatched", "completed"])
        }
    }

    func testHttpxWithHTTP2() async throws {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no \(python): run `make test-deps`, which installs httpx[http2] into .venv")
        }
        let script = #"""
            import hashlib, sys, httpx
            with httpx.Client(http1=False, http2=True) as client:
                for path in ("/cat.png", "/cat.png", "/nope.png"):
                    r = client.get(sys.argv[1] + path)
                    print(r.http_version, r.status_code, len(r.content), hashlib.sha256(r.content).hexdigest() if r.status_code == 200 else "-",
                          r.headers.get("etag"), "connection" in r.headers)
            """#
        let stubs = makeStubs()
        try await withServer(stubs) { server in
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", script, server.baseURL.absoluteString])
            XCTAssertEqual(result.status, 0, result.stderr)
            let digest = try UnderstudyServerTests.run("sha256sum", [makeFile(Self.image)]).text.split(separator: " ").first.map(String.init) ?? ""
            let lines = result.text.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 3, result.text)
            XCTAssertEqual(lines.first, "HTTP/2 200 40000 \(digest) \"v1\" False")
            XCTAssertEqual(lines.dropFirst().first, "HTTP/2 200 40000 \(digest) \"v1\" False")
            XCTAssertTrue(lines.last?.hasPrefix("HTTP/2 404 ") ?? false, result.text)
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http2, .http2, .http2])
        XCTAssertEqual(stubs.journal.interactions.map(\.status), [200, 200, 404])
    }

    func testAsyncHTTPClientStillGetsHTTP1WithHTTP2On() async throws {
        let stubs = makeStubs()
        try await withServer(stubs) { server in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                let response = try await client.execute(HTTPClientRequest(url: server.baseURL.absoluteString + "/cat.png"), timeout: .seconds(10))
                XCTAssertEqual(response.status.code, 200)
                XCTAssertEqual(response.version, .http1_1)
                let body = try await response.body.collect(upTo: 1 << 20)
                XCTAssertEqual(Data(body.readableBytesView), Self.image)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http1_1])
    }

    func testGoawayOnHTTP1AnswersWithConnectionCloseThenCloses() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/bye"), named: "bye", response: .failure(.goaway))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /bye HTTP/1.1\r\nHost: img.test\r\n\r\nGET /bye HTTP/1.1\r\nHost: img.test\r\n\r\n")
            let received = socket.read()
            XCTAssertEqual(received.ending, .closed, "\(received)")
            let text = received.text
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), text)
            XCTAssertTrue(text.contains("\r\nConnection: close\r\n"), text)
            XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "one answer, then the close: \(text)")
        }
        let entry = try XCTUnwrap(stubs.journal.interactions.first)
        XCTAssertEqual(entry.fault, .goaway)
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.httpVersion, .http1_1)
    }

    private func makeFile(_ data: Data) throws -> String {
        let url = try makeTemporaryDirectory("h2-file").appendingPathComponent("body")
        try data.write(to: url)
        return url.path
    }

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
