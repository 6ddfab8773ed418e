import Foundation
import Understudy
import UnderstudyHAR
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Record a session through a forwarding server, export the journal as HAR, replay it from
/// another server and in-process, and compare what a client sees.
final class HARReplayTests: XCTestCase {
    /// The upstream: a PNG, a lossy WebP, JSON, a redirect chain, a 404, a 500 and a counter.
    private func upstream() throws -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png"), named: "cat", response: .data(onePixelPNG).headers(["Cache-Control": "max-age=60"]))
        stubs.stub(.path("/cat.webp"), named: "webp", response: .data(try lossyWebP()))
        stubs.stub(.path("/data.json"), named: "json", response: .json(["id": 7, "tags": ["a", "b"]]))
        stubs.stub(.path("/old"), named: "old", response: .redirect(to: "/older", status: 301))
        stubs.stub(.path("/older"), named: "older", response: .redirect(to: "/cat.png", status: 302))
        stubs.stub(.path("/missing"), named: "missing", response: .text("nothing here").status(404))
        stubs.stub(.path("/boom"), named: "boom", response: .text("it broke").status(500).headers(["Retry-After": "5"]))
        stubs.stub(.path("/count"), named: "count", responses: [.text("one"), .text("two"), .text("three")])
        stubs.stub(.path("/search") && .query("q", "cats"), named: "search", response: .json(["hits": 3]))
        return stubs
    }

    private let paths = ["/cat.png", "/cat.webp", "/data.json", "/old", "/older", "/missing", "/boom", "/search?q=cats"]

    /// Records `requests` through a server forwarding everything to `upstream` and returns the HAR bytes.
    private func record(upstream: StubServer, _ requests: (URL) throws -> Void) async throws -> Data {
        let recorder = StubRegistry()
        recorder.journal.keepsBodies = true
        recorder.stub(.any, named: "record", response: .forward(to: upstream.baseURL))
        return try await withServer(recorder) { server in
            try requests(server.baseURL)
            // Over the wire too: the admin API exports the same journal.
            let exported = try curlGet(server.baseURL.appendingPathComponent("__admin/requests.har"))
            XCTAssertEqual(exported.status, 200)
            XCTAssertEqual(try HARDocument(data: exported.body).log.entries.count, recorder.journal.count)
            return try recorder.journal.har().encoded()
        }
    }

    func testJournalToHARFromARealSessionHasBase64ImagesAndRedirects() async throws {
        try requireEncoding(.webp)
        let stubs = try upstream()
        stubs.journal.keepsBodies = true
        try await withServer(stubs) { server in
            let followed = try curlGet(server.baseURL.appendingPathComponent("old"), follow: true)
            XCTAssertEqual(followed.body, onePixelPNG)
            _ = try curlGet(server.baseURL.appendingPathComponent("data.json"))

            let response = try curlGet(server.baseURL.appendingPathComponent("__admin/requests.har"))
            let har = try HARDocument(data: response.body)
            XCTAssertEqual(har.log.version, "1.2")
            XCTAssertEqual(har.log.creator.name, "Understudy")
            XCTAssertEqual(har.log.entries.map(\.request.url), [
                "\(server.baseURL.absoluteString)/old", "\(server.baseURL.absoluteString)/older",
                "\(server.baseURL.absoluteString)/cat.png", "\(server.baseURL.absoluteString)/data.json",
            ])
            XCTAssertEqual(har.log.entries.map(\.response.status), [301, 302, 200, 200])
            XCTAssertEqual(har.log.entries[0].response.redirectURL, "/older")
            XCTAssertEqual(har.log.entries[0].response.statusText, "Moved Permanently")
            XCTAssertEqual(har.log.entries[0].understudy, HARUnderstudy(stub: "old", fault: nil, transport: "server"))

            let image = har.log.entries[2].response
            XCTAssertEqual(image.content.encoding, "base64")
            XCTAssertEqual(image.content.mimeType, "image/png")
            XCTAssertEqual(image.content.size, onePixelPNG.count)
            XCTAssertEqual(image.content.text, onePixelPNG.base64EncodedString())
            XCTAssertEqual(image.bodySize, onePixelPNG.count)
            XCTAssertTrue(image.headers.contains(HARNameValue(name: "Cache-Control", value: "max-age=60")))

            let json = har.log.entries[3]
            XCTAssertNil(json.response.content.encoding)
            XCTAssertEqual(json.response.content.text, #"{"id":7,"tags":["a","b"]}"#)
            XCTAssertEqual(json.request.method, "GET")
            XCTAssertTrue(json.request.headers.contains(HARNameValue(name: "Accept", value: "*/*")))
            XCTAssertEqual(json.time, json.timings.send + json.timings.wait + json.timings.receive, accuracy: 0.001)
            XCTAssertFalse(json.startedDateTime.isEmpty)
        }
    }

    func testJournalWithoutBodiesGivesSizesOnly() async throws {
        try requireEncoding(.webp)
        let stubs = try upstream()
        try await withServer(stubs) { server in
            _ = try curlGet(server.baseURL.appendingPathComponent("cat.png"))
        }
        let entry = try XCTUnwrap(stubs.journal.har().log.entries.first)
        XCTAssertNil(stubs.journal.interactions.first?.responseBody)
        XCTAssertEqual(entry.response.content.size, onePixelPNG.count)
        XCTAssertNil(entry.response.content.text)
    }

    func testRecordedSessionReplaysStatusesHeadersAndBodiesByteForByte() async throws {
        try requireEncoding(.webp)
        let origin = try upstream()
        try await withServer(origin) { upstreamServer in
            let har = try await record(upstream: upstreamServer) { base in
                for path in self.paths {
                    _ = try curlGet(URL(string: base.absoluteString + path)!)
                }
            }
            // What the client saw from the real thing, for comparison (the counter is not
            // touched, so these are the same answers the recording got).
            var expected: [String: CurlResponse] = [:]
            for path in paths {
                expected[path] = try curlGet(URL(string: upstreamServer.baseURL.absoluteString + path)!)
            }

            let replay = StubRegistry()
            let names = try replay.load(har: har)
            XCTAssertEqual(names.count, paths.count)
            try await withServer(replay) { server in
                for path in paths {
                    let got = try curlGet(URL(string: server.baseURL.absoluteString + path)!)
                    let want = try XCTUnwrap(expected[path])
                    XCTAssertEqual(got.status, want.status, path)
                    XCTAssertEqual(got.body, want.body, path)
                    for name in ["Content-Type", "Content-Length", "Location", "Cache-Control", "Retry-After"] {
                        XCTAssertEqual(got.headers[name], want.headers[name], "\(path) \(name)")
                    }
                    XCTAssertEqual(got.headers.values(for: "Content-Length").count, 1, path)
                }
                // Following the replayed redirect chain ends at the replayed image.
                let followed = try curlGet(server.baseURL.appendingPathComponent("old"), follow: true)
                XCTAssertEqual(followed.status, 200)
                XCTAssertEqual(followed.body, onePixelPNG)
                XCTAssertEqual(followed.headers["Content-Type"], "image/png")

                // Unrecorded: the server's 404 with the nearest recorded requests.
                let unrecorded = try curlGet(server.baseURL.appendingPathComponent("dog.png"))
                XCTAssertEqual(unrecorded.status, 404)
                XCTAssertTrue(String(decoding: unrecorded.body, as: UTF8.self).contains("Nearest stubs"))
                let otherQuery = try curlGet(URL(string: server.baseURL.absoluteString + "/search?q=dogs")!)
                XCTAssertEqual(otherQuery.status, 404)
            }

            // In-process, the same HAR: URLSession follows redirects itself, so each answer is
            // compared with curl's --location view of the real upstream. curl sent `Accept: */*`
            // (part of the default key); so does this client.
            let inProcess = StubRegistry()
            try inProcess.load(har: har)
            let session = URLSession(configuration: .stubbed(by: inProcess))
            for path in paths {
                let url = URL(string: upstreamServer.baseURL.absoluteString + path)!
                let want = try curlGet(url, follow: true)
                var request = URLRequest(url: url)
                request.setValue("*/*", forHTTPHeaderField: "Accept")
                let (body, response) = try await session.data(for: request)
                let http = try XCTUnwrap(response as? HTTPURLResponse)
                XCTAssertEqual(http.statusCode, want.status, path)
                XCTAssertEqual(body, want.body, path)
                XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), want.headers["Content-Type"], path)
            }
            var webpRequest = URLRequest(url: URL(string: upstreamServer.baseURL.absoluteString + "/cat.webp")!)
            webpRequest.setValue("*/*", forHTTPHeaderField: "Accept")
            let (webp, _) = try await session.data(for: webpRequest)
            XCTAssertEqual(webp, try lossyWebP())
        }
    }

    func testRepeatedRequestsReplayInRecordedOrderAndTheLastRepeats() async throws {
        try requireEncoding(.webp)
        let origin = try upstream()
        try await withServer(origin) { upstreamServer in
            let har = try await record(upstream: upstreamServer) { base in
                for _ in 0..<3 {
                    _ = try curlGet(base.appendingPathComponent("count"))
                }
                // Another Accept is another key: its own stub (recorded after the upstream's
                // sequence reached its last answer).
                _ = try curlGet(base.appendingPathComponent("count"), headers: ["Accept: text/plain"])
            }
            let replay = StubRegistry()
            XCTAssertEqual(try replay.load(har: har, name: "session"), ["session-1", "session-2"])
            try await withServer(replay) { server in
                let bodies = try (0..<5).map { _ in
                    String(decoding: try curlGet(server.baseURL.appendingPathComponent("count")).body, as: UTF8.self)
                }
                XCTAssertEqual(bodies, ["one", "two", "three", "three", "three"])
                let other = try curlGet(server.baseURL.appendingPathComponent("count"), headers: ["Accept: text/plain"])
                XCTAssertEqual(String(decoding: other.body, as: UTF8.self), "three")
                XCTAssertEqual(other.headers["X-Understudy-Stub"], "session-2")
            }
        }
    }

    /// A recorded response's `Connection` header names fields that belonged to that connection:
    /// replay drops them, as the server's own hop-by-hop filter does, with the hop-by-hop ones.
    func testReplayDropsTheFieldsTheRecordedConnectionHeaderNames() async throws {
        let har = Data(#"""
        {"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "http://img.example.com/a.png", "headers": []},
         "response": {"status": 200, "headers": [
           {"name": "Connection", "value": "X-Trace, keep-alive"}, {"name": "X-Trace", "value": "abc"},
           {"name": "Keep-Alive", "value": "timeout=5"}, {"name": "X-Kept", "value": "1"}, {"name": "Content-Type", "value": "image/png"}],
          "content": {"size": 3, "mimeType": "image/png", "text": "png"}}}]}}
        """#.utf8)
        let stubs = StubRegistry()
        XCTAssertEqual(try stubs.load(har: har).count, 1)
        let session = URLSession(configuration: .stubbed(by: stubs))
        defer { session.finishTasksAndInvalidate() }
        let (body, response) = try await session.data(from: URL(string: "http://img.example.com/a.png")!)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(body, Data("png".utf8))
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Kept"), "1")
        XCTAssertNil(http.value(forHTTPHeaderField: "X-Trace"), "named by the recorded Connection header")
        XCTAssertNil(http.value(forHTTPHeaderField: "Keep-Alive"))
        XCTAssertNil(http.value(forHTTPHeaderField: "Connection"))
    }

    func testMatchKeyWithoutAcceptSharesOneStubAndHostKeyNeedsTheRecordedHost() throws {
        let entry = { (accept: String, body: String) in
            #"{"request": {"method": "GET", "url": "http://img.example.com/a", "headers": [{"name": "Accept", "value": "\#(accept)"}]}, "response": {"status": 200, "content": {"size": 1, "mimeType": "text/plain", "text": "\#(body)"}}}"#
        }
        let har = Data(#"{"log": {"version": "1.2", "entries": [\#(entry("a/b", "1")), \#(entry("c/d", "2"))]}}"#.utf8)
        let loose = StubRegistry()
        XCTAssertEqual(try loose.load(har: har, matching: [.method, .url]).count, 1)
        XCTAssertNotNil(loose.match(StubRequest("http://127.0.0.1:9/a")!))

        let byHost = StubRegistry()
        XCTAssertEqual(try byHost.load(har: har, matching: try HARMatchKey(parsing: "method,url,host")).count, 1)
        XCTAssertNil(byHost.match(StubRequest("http://127.0.0.1:9/a")!))
        XCTAssertNotNil(byHost.match(StubRequest("http://img.example.com/a")!))

        XCTAssertThrowsError(try HARMatchKey(parsing: "method,path")) { error in
            XCTAssertEqual("\(error)", "unknown match key part 'path'; expected method, url, host, body or header:NAME")
        }
        XCTAssertEqual(HARMatchKey.default.description, "method,url,header:Accept")
    }

    func testARequestRecordedWithoutAcceptAnswersAnyAcceptBehindOneRecordedWithIt() throws {
        let entry = { (accept: String?, body: String) in
            let headers = accept.map { #"[{"name": "Accept", "value": "\#($0)"}]"# } ?? "[]"
            return #"{"request": {"method": "GET", "url": "http://img.example.com/a", "headers": \#(headers)}, "response": {"status": 200, "content": {"size": 1, "mimeType": "text/plain", "text": "\#(body)"}}}"#
        }
        let har = Data(#"{"log": {"version": "1.2", "entries": [\#(entry(nil, "any")), \#(entry("image/webp", "webp"))]}}"#.utf8)
        let stubs = StubRegistry()
        XCTAssertEqual(try stubs.load(har: har, name: "s"), ["s-1", "s-2"])
        let answer = { (accept: String?) -> String? in
            let headers: HeaderFields = accept.map { ["Accept": $0] } ?? [:]
            return stubs.match(StubRequest("http://127.0.0.1:9/a", headers: headers)!)?.stubName
        }
        XCTAssertEqual(answer(nil), "s-1")
        XCTAssertEqual(answer("*/*"), "s-1")
        XCTAssertEqual(answer("image/png"), "s-1")
        XCTAssertEqual(answer("image/webp"), "s-2")
    }
}
