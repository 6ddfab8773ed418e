import Foundation
import Understudy
import UnderstudyTestSupport
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class URLSessionUnmatchedAndForwardTests: XCTestCase {
    func testUnmatchedFailsNamingTheNearestStubsAndIsJournaled() async {
        let stubs = StubRegistry()
        stubs.stub(.host("img.example.com") && .path("/cat.png"), named: "cat", response: .text("cat"))
        stubs.stub(.host("img.example.com") && .pathExtension("webp"), named: "webp", response: .text("webp"))
        stubs.stub(.host("api.example.com"), named: "api", response: .text("api"))
        // An unroutable address: had the request reached the network it would fail differently.
        let recorder = await record(URLRequest(url: url("http://img.example.com/dog.png")), stubs: stubs)
        XCTAssertEqual(recorder.error?.code, .resourceUnavailable)
        XCTAssertEqual(recorder.error?.localizedDescription, """
            No stub matched GET http://img.example.com/dog.png.
            Nearest stubs:
              1. "cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)
              2. "api" (0 of 1 parts matched): host is api.example.com (got img.example.com)
              3. "webp" (1 of 2 parts matched): extension is webp (got png)
            """)
        let unmatched = stubs.journal.unmatched
        XCTAssertEqual(unmatched.count, 1)
        XCTAssertEqual(unmatched.first?.nearMisses.map(\.stubName), ["cat", "api", "webp"], "ranked by distance, as WireMock ranks them: /cat.png is three letters from /dog.png")
        XCTAssertEqual(unmatched.first?.outcome, .unmatched)
    }

    func testNotFoundPolicyAnswers404WithTheReport() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/a.png"), named: "a", response: .text("a"))
        let session = URLSession(configuration: .stubbed(by: stubs, unmatched: .notFound))
        let (data, response) = try await session.data(from: url("http://x.test/b.png"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 404)
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), """
            No stub matched GET http://x.test/b.png.
            Nearest stubs:
              1. "a" (0 of 1 parts matched): path is /a.png (got /b.png)

            """, "the report as a line of its own, byte for byte what the server sends")
        XCTAssertEqual(stubs.journal.unmatched.first?.status, 404)
    }

    func testForwardFetchesTheRealResponseFromALocalUpstream() async throws {
        let upstreamBody = Data("from upstream".utf8)
        let upstream = try LocalUpstream(files: ["real.txt": upstreamBody])
        defer { upstream.stop() }
        let stubs = StubRegistry()
        stubs.stub(.host("img.example.com"), named: "fwd", response: .forward(to: upstream.baseURL).headers(["X-Added": "1"]))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, response) = try await session.data(from: url("http://img.example.com/real.txt"))
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(data, upstreamBody)
        XCTAssertEqual(http.statusCode, 200)
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Added"), "1")
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Understudy-Stub"), "fwd")
        XCTAssertNotNil(http.value(forHTTPHeaderField: "Server"), "upstream's own headers come through")
        let (_, missing) = try await session.data(from: url("http://img.example.com/absent.txt"))
        XCTAssertEqual((missing as? HTTPURLResponse)?.statusCode, 404, "the upstream's 404, not a stub's")
        XCTAssertEqual(stubs.journal.count, 2, "the inner fetch does not loop back into the stubs")
    }

    func testPassThroughLetsUnmatchedRequestsReachTheNetwork() async throws {
        let upstream = try LocalUpstream(files: ["p.txt": Data("passed".utf8)])
        defer { upstream.stop() }
        let stubs = StubRegistry()
        let session = URLSession(configuration: .stubbed(by: stubs, unmatched: .passThrough))
        let (data, _) = try await session.data(from: upstream.baseURL.appendingPathComponent("p.txt"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "passed")
        XCTAssertEqual(stubs.journal.interactions.first?.transport, .proxy)
        XCTAssertEqual(stubs.journal.unmatched.count, 1)
    }

    func testForwardToADeadUpstreamIsA502() async throws {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "dead", response: .forward(to: url("http://127.0.0.1:9")))
        let (data, response) = try await URLSession(configuration: .stubbed(by: stubs)).data(from: url("http://x.test/a"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 502)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).hasPrefix("forward to http://127.0.0.1:9/a failed:"))
    }

    func testThousandConcurrentRequestsAreAllJournaled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/n/"), response: .text("ok"))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let ok = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<50 {
                group.addTask {
                    var ok = 0
                    for i in 0..<20 {
                        let (data, _) = try await session.data(from: url("http://x.test/n/\(worker)-\(i)"))
                        if data == Data("ok".utf8) { ok += 1 }
                    }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(ok, 1_000)
        XCTAssertEqual(stubs.journal.count, 1_000)
        XCTAssertEqual(Set(stubs.journal.interactions.map(\.request.path)).count, 1_000, "no entry lost or doubled")
        XCTAssertEqual(Set(stubs.journal.interactions.map(\.id)).count, 1_000)
        XCTAssertTrue(stubs.journal.interactions.allSatisfy { $0.outcome == .completed })
    }

    func testTwoRegistriesDoNotSeeEachOthersRequests() async throws {
        let first = StubRegistry(), second = StubRegistry()
        first.stub(.any, response: .text("first"))
        second.stub(.any, response: .text("second"))
        let (a, _) = try await URLSession(configuration: .stubbed(by: first)).data(from: url("http://x.test/"))
        let (b, _) = try await URLSession(configuration: .stubbed(by: second)).data(from: url("http://x.test/"))
        XCTAssertEqual(String(decoding: a, as: UTF8.self), "first")
        XCTAssertEqual(String(decoding: b, as: UTF8.self), "second")
        XCTAssertEqual(first.journal.count, 1)
        XCTAssertEqual(second.journal.count, 1)
    }
}
