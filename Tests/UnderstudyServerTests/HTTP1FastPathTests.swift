import Foundation
import NIOCore
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// The HTTP/1.1 fast path's state machine, fed the events its handlers send: when it arms on a
/// read's bytes, when a read of the same bytes is answered without decoding, and when it is not.
final class HTTP1FastPathTests: XCTestCase {
    private let stubs = StubRegistry()
    private let requestBytes = "GET /a.png HTTP/1.1\r\nHost: img.test\r\nAccept: image/*\r\n\r\n"

    override func setUp() {
        stubs.stub(.path("/a.png"), named: "a", response: .text("a"))
    }

    private var head: HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")
        head.headers.add(name: "Host", value: "img.test")
        head.headers.add(name: "Accept", value: "image/*")
        return head
    }

    private func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// What the exchange keeps for the request of ``head``, as a fixed canned stub answers it.
    private func entry() throws -> RepeatCache<HTTPRequestHead>.Entry {
        let request = try XCTUnwrap(StubRequest("http://img.test/a.png"))
        var match: StubRegistry.RepeatableMatch?
        _ = stubs.resolveImmediately(request, repeatable: &match)
        return RepeatCache.Entry(key: head, request: request, method: "GET", match: try XCTUnwrap(match))
    }

    /// One read through the decoder carrying one request that was answered at once and kept:
    /// what the handlers tell the fast path in that order.
    private func decodedRead(_ text: String, into path: inout HTTP1FastPath, kept: Bool = true, queueEmpty: Bool = true) throws {
        XCTAssertNil(path.read(bytes(text)), "the read goes to the decoder")
        path.passedOn(queueEmpty: queueEmpty)
        if kept { path.repeats.keep(try entry()) }
        path.decided(kept: kept)
        path.responseEnded()
        path.decoded(bytes(text))
    }

    func testAReadThatWasExactlyOneKeptRequestArmsForTheSameBytes() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        let repeated = path.read(bytes(requestBytes))
        XCTAssertEqual(repeated?.key.uri, "/a.png")
        XCTAssertTrue(path.isAnswering, "the repeat's response is going")
        path.repeatAnswered()
        path.responseEnded()
        XCTAssertNotNil(path.read(bytes(requestBytes)), "it stays armed while the client repeats")
    }

    func testOtherBytesDisarmAndGoToTheDecoder() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        XCTAssertNil(path.read(bytes(requestBytes.replacingOccurrences(of: "image/*", with: "image/webp"))))
        XCTAssertFalse(path.isAnswering)
        XCTAssertNil(path.read(bytes(requestBytes)), "disarmed: the same bytes as before now go to the decoder too")
    }

    func testARepeatWhileAResponseIsGoingIsDecodedInTurn() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        path.passedOn(queueEmpty: true)
        XCTAssertNil(path.read(bytes(requestBytes)), "pipelined behind a response: it waits in the connection's queue")
    }

    func testARequestNotKeptDoesNotArm() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path, kept: false)
        XCTAssertNil(path.read(bytes(requestBytes)))
    }

    func testARequestWithSomethingQueuedBehindItDoesNotArm() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path, queueEmpty: false)
        XCTAssertNil(path.read(bytes(requestBytes)))
    }

    func testAReadOfTwoRequestsDoesNotArm() throws {
        var path = HTTP1FastPath()
        let two = requestBytes + requestBytes
        XCTAssertNil(path.read(bytes(two)))
        for _ in 1...2 {
            path.passedOn(queueEmpty: true)
            path.repeats.keep(try entry())
            path.decided(kept: true)
            path.responseEnded()
        }
        path.decoded(bytes(two))
        XCTAssertNil(path.read(bytes(requestBytes)))
        XCTAssertNil(path.read(bytes(two)))
    }

    func testAStaleRepeatGoesToTheDecoderAndIsNoLongerAnswering() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        XCTAssertNotNil(path.read(bytes(requestBytes)))
        path.repeatFailed()
        XCTAssertFalse(path.isAnswering, "the decoder's request will be passed on as usual")
        XCTAssertNil(path.read(bytes(requestBytes)), "disarmed")
    }

    func testAClientThatNeverRepeatsIsArmedOnlyNowAndThen() throws {
        var path = HTTP1FastPath()
        var armings = 0
        for n in 0..<(RepeatBackoff.patience + 2 * RepeatBackoff.retryInterval) {
            // Each request differs from the one before in its target (a feed of URLs).
            let text = requestBytes.replacingOccurrences(of: "/a.png", with: "/a.png?n=\(n)")
            var head = self.head
            head.uri = "/a.png?n=\(n)"
            XCTAssertNil(path.read(bytes(text)))
            path.passedOn(queueEmpty: true)
            let kept = try entry()
            path.repeats.keep(RepeatCache.Entry(key: head, request: kept.request, method: "GET", match: kept.match))
            path.decided(kept: true)
            path.responseEnded()
            path.decoded(bytes(text))
            // Armed when the next differing read finds bytes to disarm: counted by a probe that
            // repeats this read's bytes without disturbing the state.
            var probe = path
            if probe.read(bytes(text)) != nil { armings += 1 }
        }
        XCTAssertEqual(armings, RepeatBackoff.patience + 2, "armed for the patience, then once a retry interval")
    }

    func testExactlyOneHeadIsItsRequestLineFieldsAndBlankLineAndNothingElse() {
        XCTAssertTrue(HTTP1FastPath.isExactly(head, bytes(requestBytes)))
        XCTAssertFalse(HTTP1FastPath.isExactly(head, bytes(requestBytes + "G")), "the start of a next request")
        XCTAssertFalse(HTTP1FastPath.isExactly(head, bytes(String(requestBytes.dropFirst(4)))), "the end of an earlier read's request")
        var upgrade = head
        upgrade.headers.add(name: "Upgrade", value: "h2c")
        XCTAssertFalse(HTTP1FastPath.isExactly(upgrade, bytes(requestBytes.replacingOccurrences(of: "\r\n\r\n", with: "\r\nUpgrade: h2c\r\n\r\n"))))
    }
}

/// The last request a fixed canned stub answered, kept for an identical next one: what repeats
/// it, what forgets it.
final class RepeatCacheTests: XCTestCase {
    private func entry(_ uri: String, stubs: StubRegistry) throws -> RepeatCache<HTTPRequestHead>.Entry {
        let request = try XCTUnwrap(StubRequest("http://img.test\(uri)"))
        var match: StubRegistry.RepeatableMatch?
        _ = stubs.resolveImmediately(request, repeatable: &match)
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: "img.test")
        return RepeatCache.Entry(key: head, request: request, method: "GET", match: try XCTUnwrap(match))
    }

    func testTheSameHeadRepeatsAndAnyOtherForgets() throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/"), named: "any", response: .text("x"))
        let cache = RepeatCache<HTTPRequestHead>()
        let kept = try entry("/a", stubs: stubs)
        cache.keep(kept)
        XCTAssertEqual(cache.entry(repeatedBy: kept.key)?.request.url.path, "/a")
        var reordered = kept.key
        reordered.headers.add(name: "Accept", value: "*/*")
        XCTAssertNil(cache.entry(repeatedBy: reordered), "another field: another request")
        XCTAssertNil(cache.entry, "forgotten")
        XCTAssertNil(cache.entry(repeatedBy: kept.key), "nothing kept any more")
    }

    func testFieldsInAnotherOrderAreAnotherRequest() {
        var first = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a")
        first.headers.add(name: "A", value: "1")
        first.headers.add(name: "B", value: "2")
        var second = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a")
        second.headers.add(name: "B", value: "2")
        second.headers.add(name: "A", value: "1")
        XCTAssertTrue(first.repeats(first))
        XCTAssertFalse(second.repeats(first))
        var http10 = first
        http10.version = .http1_0
        XCTAssertFalse(http10.repeats(first))
    }

    func testForgettingUnrepeatedEntriesBacksOffKeeping() throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/"), named: "any", response: .text("x"))
        let cache = RepeatCache<HTTPRequestHead>()
        for n in 0..<RepeatBackoff.patience {
            XCTAssertTrue(cache.keepsNext())
            cache.keep(try entry("/\(n)", stubs: stubs))
            cache.forget()
        }
        let kept = (0..<RepeatBackoff.retryInterval).filter { _ in cache.keepsNext() }
        XCTAssertEqual(kept.count, 1, "one request in the retry interval is kept")
    }
}
