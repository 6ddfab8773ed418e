import AsyncHTTPClient
import Foundation
import NIOCore
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server with real clients on loopback: curl, URLSession, AsyncHTTPClient, raw sockets.
final class ServerLiveTests: XCTestCase {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 92))

    func testOriginServesStatusHeadersAndBodyToCurl() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png"), named: "cat", response: .data(png).headers(["Cache-Control": "max-age=60"]))
        try await withServer(stubs) { server in
            let result = try curl(["--include", server.baseURL.appendingPathComponent("cat.png").absoluteString])
            XCTAssertEqual(result.status, 0, result.stderr)
            let text = result.text
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), text)
            XCTAssertTrue(text.contains("Content-Type: image/png\r\n"), text)
            XCTAssertTrue(text.contains("Content-Length: 100\r\n"), text)
            XCTAssertTrue(text.contains("X-Understudy-Stub: cat\r\n"), text)
            XCTAssertTrue(text.contains("Cache-Control: max-age=60\r\n"), text)
            XCTAssertEqual(result.stdout.suffix(100), png)
            let entry = try XCTUnwrap(stubs.journal.interactions.first)
            XCTAssertEqual(entry.transport, .server)
            XCTAssertEqual(entry.stubName, "cat")
            XCTAssertEqual(entry.status, 200)
            XCTAssertEqual(entry.bodyBytesSent, 100)
            XCTAssertEqual(entry.request.host, "127.0.0.1")
        }
    }

    func testHeadSendsHeadersOnlyAndUnmatchedGets404WithTheReport() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png") && .method("GET"), named: "cat", response: .data(png))
        try await withServer(stubs) { server in
            let head = try curl(["--head", server.baseURL.appendingPathComponent("cat.png").absoluteString])
            XCTAssertEqual(head.status, 0, head.stderr)
            XCTAssertTrue(head.text.contains("Content-Length: 100\r\n"), head.text)
            let missing = try curl(["--include", server.baseURL.appendingPathComponent("dog.png").absoluteString])
            XCTAssertTrue(missing.text.hasPrefix("HTTP/1.1 404 Not Found\r\n"), missing.text)
            XCTAssertTrue(missing.text.contains("Content-Type: text/plain; charset=utf-8\r\n"))
            XCTAssertTrue(missing.text.hasSuffix("""
                No stub matched GET http://127.0.0.1:\(server.port)/dog.png.
                Nearest stubs:
                  1. "cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)

                """), missing.text)
            XCTAssertEqual(stubs.journal.unmatched.count, 1, "\(stubs.journal.interactions.map { "\($0) \($0.outcome)" })")
            XCTAssertEqual(stubs.journal.interactions.first?.bodyBytesSent, 0)
        }
    }

    func testKeepAliveAndPipelinedRequestsOnOneConnection() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/n/")) { request in .text(String(request.path.dropFirst(3))) }
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /n/1 HTTP/1.1\r\nHost: a\r\n\r\nGET /n/2 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /n/3 HTTP/1.1\r\nHost: a\r\n\r\n")
            let received = socket.read(occurrences: 3, of: "HTTP/1.1 200 OK")
            XCTAssertEqual(received.ending, .satisfied, "three answers on an open connection: \(received)")
            let answer = received.text
            XCTAssertEqual(answer.components(separatedBy: "HTTP/1.1 200 OK").count - 1, 3, answer)
            let first = try XCTUnwrap(answer.range(of: "\r\n\r\n1"))
            let second = try XCTUnwrap(answer.range(of: "\r\n\r\n2"))
            XCTAssertLessThan(first.lowerBound, second.lowerBound, "responses in request order")
            socket.send("GET /n/4 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let closing = socket.read()
            XCTAssertEqual(closing.ending, .closed, "Connection: close is honoured with a FIN, not left open: \(closing)")
            let last = closing.text
            XCTAssertTrue(last.contains("Connection: close\r\n"), last)
            XCTAssertTrue(last.hasSuffix("\r\n\r\n4"), last)
            XCTAssertEqual(stubs.journal.count, 4)
        }
    }

    func testBodiesOverTheLimitGet413AndTheServerKeepsServing() async throws {
        let stubs = StubRegistry()
        stubs.stub(.method("POST")) { request in .text("got \(request.body?.count ?? 0)") }
        try await withServer(stubs, configuration: .init(maxBodySize: 1_000)) { server in
            let url = server.baseURL.appendingPathComponent("upload").absoluteString
            let ok = try curl(["--data-binary", String(repeating: "a", count: 1_000), url])
            XCTAssertEqual(ok.text, "got 1000", "the limit is inclusive")
            let tooBig = try curl(["--include", "--data-binary", String(repeating: "a", count: 1_001), url])
            XCTAssertTrue(tooBig.text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"), tooBig.text)
            let chunked = try curl(["--include", "-H", "Transfer-Encoding: chunked", "--data-binary", String(repeating: "b", count: 5_000), url])
            XCTAssertTrue(chunked.text.hasPrefix("HTTP/1.1 413"), chunked.text)
            let after = try curl(["--data-binary", "x", url])
            XCTAssertEqual(after.text, "got 1")
        }
    }

    func testForwardProxyMatchesAbsoluteFormOnItsOwnHostAndConnectIs501() async throws {
        let stubs = StubRegistry()
        stubs.stub(.host("img.example.com") && .pathExtension("webp"), named: "webp", response: .text("stubbed webp"))
        try await withServer(stubs) { server in
            let viaEnvironment = try curl(["http://img.example.com/a.webp"], environment: ["http_proxy": server.baseURL.absoluteString])
            XCTAssertEqual(viaEnvironment.text, "stubbed webp", viaEnvironment.stderr)
            XCTAssertEqual(stubs.journal.interactions.last?.request.url.absoluteString, "http://img.example.com/a.webp")
            let connect = try curl(["--proxy", server.baseURL.absoluteString, "https://img.example.com/a.webp"])
            XCTAssertNotEqual(connect.status, 0)
            XCTAssertTrue(connect.stderr.contains("501"), connect.stderr)
        }
    }

    func testCurlExitCodesForEachWireFault() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/reset"), response: .failure(.connectionReset))
        stubs.stub(.path("/empty"), response: .failure(.emptyResponse))
        stubs.stub(.path("/chunk"), response: .failure(.malformedChunk))
        stubs.stub(.path("/garbage"), response: .failure(.randomDataThenClose))
        stubs.stub(.path("/partial"), response: .data(Data(count: 10_000)).truncated(after: 1_000))
        stubs.stub(.path("/hang"), response: .failure(.noResponse))
        try await withServer(stubs) { server in
            func code(_ path: String, maxTime: Int = 10) throws -> Int32 {
                try curl(["--output", "/dev/null", server.baseURL.absoluteString + path], maxTime: maxTime).status
            }
            XCTAssertEqual(try code("/reset"), 56, "CURLE_RECV_ERROR: connection reset by peer")
            XCTAssertEqual(try code("/empty"), 52, "CURLE_GOT_NOTHING")
            XCTAssertEqual(try code("/partial"), 18, "CURLE_PARTIAL_FILE")
            XCTAssertEqual(try code("/chunk"), 56, "CURLE_RECV_ERROR: bad chunked encoding")
            XCTAssertEqual(try code("/garbage"), 1, "CURLE_UNSUPPORTED_PROTOCOL: not HTTP")
            XCTAssertEqual(try code("/hang", maxTime: 1), 28, "CURLE_OPERATION_TIMEDOUT")
            let faults = stubs.journal.interactions.map { $0.outcome.description }
            XCTAssertEqual(faults, [
                "fault connection-reset", "fault empty-response", "truncated after 1000 bytes",
                "fault malformed-chunk", "fault random-data-then-close", "fault no-response",
            ])
        }
    }

    func testDelayComesBeforeTheHeadersAndBandwidthPacesTheBody() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), response: .text("late").delayed(by: .milliseconds(300)))
        stubs.stub(.path("/trickle"), response: .data(Data(count: 20_000)).throttled(to: .bytesPerSecond(50_000)))
        try await withServer(stubs) { server in
            let start = Date()
            let slow = try curl(["--write-out", "%{time_starttransfer}", "--output", "/dev/null", server.baseURL.absoluteString + "/slow"])
            XCTAssertGreaterThanOrEqual(Double(slow.text) ?? 0, 0.28, "the first byte waited for the delay")
            let trickle = try curl(["--write-out", "%{time_starttransfer} %{time_total} %{size_download}", "--output", "/dev/null", server.baseURL.absoluteString + "/trickle"])
            let parts = trickle.text.split(separator: " ").compactMap { Double($0) }
            XCTAssertEqual(parts.count, 3, trickle.text)
            XCTAssertEqual(parts[2], 20_000)
            XCTAssertGreaterThan(parts[1] - parts[0], 0.25, "20,000 bytes at 50,000 B/s take ~0.4 s after the first byte")
            XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.6)
        }
    }

    func testAsyncHTTPClientAndURLSessionSeeTheSameResponse() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/j"), response: .json(["ok": true]).status(201))
        stubs.stub(.path("/r"), response: .redirect(to: "/j", status: 302))
        try await withServer(stubs) { server in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                let response = try await client.execute(HTTPClientRequest(url: server.baseURL.absoluteString + "/r"), timeout: .seconds(10))
                XCTAssertEqual(response.status.code, 201, "AsyncHTTPClient followed the redirect")
                let body = try await response.body.collect(upTo: 1 << 20)
                XCTAssertEqual(String(buffer: body), #"{"ok":true}"#)
                XCTAssertEqual(response.headers.first(name: "content-type"), "application/json")
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
            let (data, response) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("r"))
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 201)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"ok":true}"#)
            XCTAssertEqual(stubs.journal.interactions.map(\.status), [302, 201, 302, 201])
        }
    }

    func testStopClosesHeldConnections() async throws {
        let stubs = StubRegistry()
        stubs.stub(.any, response: .failure(.noResponse))
        let server = try await StubServer.start(serving: stubs)
        let socket = try RawSocket(port: server.port)
        socket.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        try await stubs.journal.wait(for: .any, count: 1, timeout: .seconds(5))
        try await server.stop()
        let received = socket.read()
        XCTAssertEqual(received.bytes, [], "closed without a byte")
        XCTAssertEqual(received.ending, .closed, "stop closed the held connection")
    }

    func testNonLoopbackBindWithoutATokenIsRefused() async throws {
        do {
            _ = try await StubServer.start(serving: StubRegistry(), host: "0.0.0.0")
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual("\(error)", "binding 0.0.0.0 exposes the admin API beyond this machine; pass an admin token (--admin-token) to bind a non-loopback host")
        }
    }

    func testAdminAPIOverHTTPNeverTouchesStubsOrJournal() async throws {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "catch-all", response: .text("stub"))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            let added = try curl(["--include", "-X", "POST", "-H", "Content-Type: application/json",
                                  "--data", #"{"name": "cat", "request": {"path": "/cat.png"}, "response": {"status": 418}}"#,
                                  base + "/__admin/stubs"])
            XCTAssertTrue(added.text.hasPrefix("HTTP/1.1 201"), added.text)
            XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", base + "/cat.png"]).text, "418")
            let count = try curl(["-X", "POST", "--data", #"{"request": {"path": "/cat.png"}}"#, base + "/__admin/requests/count"])
            XCTAssertEqual(count.text, "{\"count\":1}\n")
            let bad = try curl(["--include", "-X", "POST", "--data", #"{"request": {"paht": "/x"}}"#, base + "/__admin/requests/count"])
            XCTAssertTrue(bad.text.hasPrefix("HTTP/1.1 400"), bad.text)
            let unknown = try curl(["--write-out", "%{http_code}", "--output", "/dev/null", base + "/__admin/nope"])
            XCTAssertEqual(unknown.text, "404")
            XCTAssertEqual(stubs.journal.count, 1, "admin requests are not journaled")
            XCTAssertEqual(stubs.useCounts["catch-all"], 0, "admin requests never reach the stubs")
        }
    }

    func testAdminTokenIsRequiredWhenSet() async throws {
        try await withServer(StubRegistry(), configuration: .init(adminToken: "s3cret")) { server in
            let url = server.baseURL.absoluteString + "/__admin/health"
            XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", url]).text, "401")
            XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", "-H", "Authorization: Bearer wrong", url]).text, "401")
            XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", "-H", "Authorization: Bearer s3cret", url]).text, "200")
        }
    }

    /// Every kind of bad admin input, over HTTP: the status and the JSON error naming the field.
    func testAdminBadInputOverHTTP() async throws {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "a", response: .status(200))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            let cases: [(method: String, path: String, body: String?, status: String, error: String)] = [
                ("POST", "/__admin/stubs", #"{"name": "x", "respnse": {}}"#, "400", #""field":"respnse""#),
                ("POST", "/__admin/stubs", "{not json", "400", #""field":"body""#),
                ("POST", "/__admin/stubs", "", "400", "the request body is empty"),
                ("POST", "/__admin/requests/count", #"{"request": {"paht": "/x"}}"#, "400", "unknown key 'paht'"),
                ("GET", "/__admin/requests?limit=abc", nil, "400", #""field":"limit""#),
                ("GET", "/__admin/requests?unmached=true", nil, "400", "unknown query parameter 'unmached'"),
                ("PUT", "/__admin/stubs", "{}", "405", #""field":"method""#),
                ("DELETE", "/__admin/stubs/nope", nil, "404", "no stub named 'nope'"),
                ("GET", "/__admin/nope", nil, "404", "no admin endpoint /__admin/nope"),
            ]
            for item in cases {
                var arguments = ["--write-out", "\n%{http_code}", "-X", item.method, base + item.path]
                if let body = item.body { arguments += ["--data", body] }
                let result = try curl(arguments)
                let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
                XCTAssertEqual(lines.last.map(String.init), item.status, "\(item.method) \(item.path): \(result.text)")
                XCTAssertTrue(result.text.contains(item.error), "\(item.method) \(item.path): \(result.text)")
                XCTAssertTrue(result.text.hasPrefix("{\"error\":") || result.text.contains("\"error\":"), result.text)
            }
            XCTAssertEqual(stubs.journal.count, 0, "none of it reached the journal")
            XCTAssertEqual(stubs.stubs.map(\.name), ["a"], "nothing was added or removed")
        }
    }
}
