import Foundation
import NIOCore
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// The HTTP/1.1 fast path's state machine, fed the events its handlers send: when it keeps a
/// read's bytes for its event loop, when a read of the same bytes (on the same connection or
/// another of the loop's) is answered without decoding, and when it is not.
final class HTTP1FastPathTests: XCTestCase {
    private let stubs = StubRegistry()
    private let requestBytes = "GET /a.png HTTP/1.1\r\nHost: img.test\r\nAccept: image/*\r\n\r\n"

    override func setUp() {
        stubs.stub(.path("/a.png"), named: "a", response: .text("a"))
        stubs.stub(.path("/b.png"), named: "b", response: .text("b"))
    }

    private var head: HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")
        head.headers.add(name: "Host", value: "img.test")
        head.headers.add(name: "Accept", value: "image/*")
        return head
    }

    private func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// What the exchange keeps for the request of `head` (``head`` by default), as a fixed
    /// canned stub answers it.
    private func entry(_ head: HTTPRequestHead? = nil) throws -> RepeatCache<HTTPRequestHead>.Entry {
        let head = head ?? self.head
        let request = try XCTUnwrap(StubRequest("http://img.test\(head.uri)"))
        var match: StubRegistry.RepeatableMatch?
        _ = stubs.resolveImmediately(request, repeatable: &match)
        return RepeatCache.Entry(key: head, request: request, method: "GET", match: try XCTUnwrap(match))
    }

    /// One read through the decoder carrying one request that was answered at once and kept:
    /// what the handlers tell the fast path in that order.
    private func decodedRead(
        _ text: String, into path: inout HTTP1FastPath, head: HTTPRequestHead? = nil, kept: Bool = true, queueEmpty: Bool = true
    ) throws {
        XCTAssertNil(path.read(bytes(text)), "the read goes to the decoder")
        path.passedOn(queueEmpty: queueEmpty)
        if kept { path.repeats.keep(try entry(head)) }
        path.decided(kept: kept)
        path.responseEnded()
        path.decoded(bytes(text))
    }

    func testAReadThatWasExactlyOneKeptRequestArmsForTheSameBytes() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        let repeated = path.read(bytes(requestBytes))
        XCTAssertEqual(repeated?.request.url.path, "/a.png")
        XCTAssertTrue(path.isAnswering, "the repeat's response is going")
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

    func testAReadKeptOnOneConnectionIsAnsweredOnAnotherOfTheLoop() throws {
        let reads = RepeatedReads()
        var first = HTTP1FastPath(reads: reads), second = HTTP1FastPath(reads: reads)
        try decodedRead(requestBytes, into: &first)
        var other = head
        other.uri = "/b.png"
        let otherBytes = requestBytes.replacingOccurrences(of: "/a.png", with: "/b.png")
        try decodedRead(otherBytes, into: &second, head: other)
        XCTAssertEqual(reads.count, 2)
        XCTAssertEqual(second.read(bytes(requestBytes))?.request.url.path, "/a.png", "kept by the first connection")
        second.responseEnded()
        XCTAssertEqual(first.read(bytes(otherBytes))?.request.url.path, "/b.png", "kept by the second")
    }

    func testAConnectionNotAtABoundaryDecodesAReadTheLoopKept() throws {
        let reads = RepeatedReads()
        var first = HTTP1FastPath(reads: reads), second = HTTP1FastPath(reads: reads)
        try decodedRead(requestBytes, into: &first)
        XCTAssertFalse(second.atBoundary, "nothing read yet: the connection's first request is decoded")
        XCTAssertNil(second.read(bytes(requestBytes)))
        // Its decoder holds the start of a head: the same bytes now finish that head.
        XCTAssertNil(second.read(bytes("GET /b.png HTTP/1.1\r\nX-Begun-Earlier: ")))
        second.decoded(bytes("GET /b.png HTTP/1.1\r\nX-Begun-Earlier: "))
        XCTAssertNil(second.read(bytes(requestBytes)), "the rest of an earlier read's head is not a request of its own")
    }

    func testAHeadNamingNoHostIsNotKeptForTheLoop() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        var hostless = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")
        hostless.headers.add(name: "Accept", value: "image/*")
        let text = "GET /a.png HTTP/1.1\r\nAccept: image/*\r\n\r\n"
        try decodedRead(text, into: &path, head: hostless)
        XCTAssertTrue(path.atBoundary, "the decoder holds nothing")
        XCTAssertEqual(reads.count, 0, "its request depends on the listener's address, which the loop's connections need not share")
        XCTAssertNil(path.read(bytes(text)))
    }

    func testAStaleRepeatForgetsEveryReadTheLoopKept() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        var other = head
        other.uri = "/b.png"
        let otherBytes = requestBytes.replacingOccurrences(of: "/a.png", with: "/b.png")
        try decodedRead(otherBytes, into: &path, head: other)
        try decodedRead(requestBytes, into: &path)
        XCTAssertEqual(reads.count, 2)
        XCTAssertNotNil(path.read(bytes(otherBytes)))
        path.repeatFailed()
        XCTAssertEqual(reads.count, 0, "kept before the stubs changed, like the one found stale")
    }

    func testAClientThatNeverRepeatsIsKeptOnlyNowAndThen() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        let requests = RepeatBackoff.patience + 2 * RepeatBackoff.retryInterval
        for n in 0..<requests {
            // Each request differs from every other in a header (a trace id).
            let text = requestBytes.replacingOccurrences(of: "Accept: image/*", with: "Traceparent: \(n)")
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")
            head.headers.add(name: "Host", value: "img.test")
            head.headers.add(name: "Traceparent", value: "\(n)")
            XCTAssertNil(path.read(bytes(text)), "never seen before")
            path.passedOn(queueEmpty: true)
            // As the exchange does: the request kept before is forgotten, as this one does not
            // repeat it, and this one is kept when the connection's RepeatCache says so.
            path.repeats.forget()
            let kept = path.repeats.keepsNext()
            if kept { path.repeats.keep(try entry(head)) }
            path.decided(kept: kept)
            path.responseEnded()
            path.decoded(bytes(text))
        }
        XCTAssertEqual(reads.count, RepeatBackoff.patience + 2, "kept for the patience, then once a retry interval")
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
