import NIOCore
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// The server's one cache of decisions, on its own: which heads are the same request, when one
/// is kept, and its bounds. That a kept decision is never answered stale (stubs, scenarios,
/// `.custom` matchers, files) is shown on the wire in `RepeatedRequestTests`.
final class DecisionCacheTests: XCTestCase {
    private func head(_ uri: String = "/a.png", _ fields: [(String, String)] = [("Host", "img.test"), ("Accept", "image/*")]) -> RequestHead {
        RequestHead(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: HTTPHeaders(fields)))
    }

    private func entry(_ uri: String) throws -> DecisionCache.Entry {
        let stubs = StubRegistry()
        stubs.stub(.path(uri), response: .text("kept"))
        let request = StubRequest(method: "GET", url: URL(string: "http://img.test\(uri)")!)
        var match: StubRegistry.RepeatableMatch?
        _ = stubs.resolveImmediately(request, keepingRepeat: true, repeatable: &match)
        return DecisionCache.Entry(request: request, match: try XCTUnwrap(match, "a fixed canned stub gives a repeatable match"))
    }

    func testAHeadIsWorthKeepingTheSecondTimeItComes() {
        let cache = DecisionCache()
        let key = DecisionKey(scheme: "http", head: head())
        XCTAssertFalse(cache.offer(key), "the first time")
        XCTAssertTrue(cache.offer(key), "the second time")
        XCTAssertFalse(cache.offer(DecisionKey(scheme: "http", head: head("/b.png"))), "another URL is another request")
    }

    func testHeadsThatDifferEveryTimeAreNeverWorthKeeping() {
        let cache = DecisionCache()
        for trace in 0..<5_000 {
            let key = DecisionKey(scheme: "http", head: head("/a.png", [("Host", "img.test"), ("traceparent", "00-\(trace)-01")]))
            XCTAssertFalse(cache.offer(key), "request \(trace)")
        }
        XCTAssertEqual(cache.count, 0)
    }

    func testTheSameFieldsInAnotherOrderOrSchemeAreAnotherRequest() {
        let key = DecisionKey(scheme: "http", head: head())
        XCTAssertEqual(key, DecisionKey(scheme: "http", head: head()))
        XCTAssertNotEqual(key, DecisionKey(scheme: "https", head: head()), "the scheme is part of the request")
        XCTAssertNotEqual(key, DecisionKey(scheme: "http", head: head("/a.png", [("Accept", "image/*"), ("Host", "img.test")])))
        XCTAssertNotEqual(key, DecisionKey(scheme: "http", head: head("/a.png", [("Host", "img.test"), ("Accept", "image/webp")])))
        XCTAssertTrue(key.namesHost)
        XCTAssertFalse(DecisionKey(scheme: "http", head: head("/a.png", [("Accept", "*/*")])).namesHost, "its request depends on the listener")
    }

    func testAKeptDecisionIsFoundByItsHeadOnly() throws {
        let cache = DecisionCache()
        let key = DecisionKey(scheme: "http", head: head())
        XCTAssertNil(cache.entry(for: key))
        cache.keep(try entry("/a.png"), for: key)
        XCTAssertEqual(cache.entry(for: DecisionKey(scheme: "http", head: head()))?.request.url.path, "/a.png")
        XCTAssertNil(cache.entry(for: DecisionKey(scheme: "http", head: head("/b.png"))))
        cache.removeAll()
        XCTAssertNil(cache.entry(for: key), "forgotten once one was found stale")
    }

    func testPastItsBoundTheLeastRecentlyAskedForGoFirst() throws {
        let cache = DecisionCache()
        let kept = try entry("/a.png")
        let keys = (0...DecisionCache.maxEntries).map { DecisionKey(scheme: "http", head: head("/\($0).png")) }
        for key in keys.dropLast() { cache.keep(kept, for: key) }
        XCTAssertNotNil(cache.entry(for: keys[0]), "asked for: now the most recent")
        cache.keep(kept, for: keys.last!)
        XCTAssertEqual(cache.count, DecisionCache.maxEntries)
        XCTAssertNotNil(cache.entry(for: keys[0]))
        XCTAssertNil(cache.entry(for: keys[1]), "the least recently asked for went")
    }
}
