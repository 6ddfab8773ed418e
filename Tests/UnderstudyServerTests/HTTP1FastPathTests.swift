import Foundation
import NIOCore
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// The HTTP/1.1 fast path's state machine, fed the events its handlers send: when its event
/// loop keeps a read's bytes, when a read of the same bytes (on the same connection or another
/// of the loop's) is answered without decoding, and when it is not.
final class HTTP1FastPathTests: XCTestCase {
    private let stubs = StubRegistry()
    private let requestBytes = "GET /a.png HTTP/1.1\r\nHost: img.test\r\nAccept: image/*\r\n\r\n"
    private let otherBytes = "GET /b.png HTTP/1.1\r\nHost: img.test\r\nAccept: image/*\r\n\r\n"

    override func setUp() {
        stubs.stub(.path("/a.png"), named: "a", response: .text("a"))
        stubs.stub(.path("/b.png"), named: "b", response: .text("b"))
    }

    /// The head of `requestBytes` (`uri` `/a.png`) or of `otherBytes` (`/b.png`).
    private func head(_ uri: String = "/a.png") -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: "img.test")
        head.headers.add(name: "Accept", value: "image/*")
        return head
    }

    private func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// What the exchange keeps for the request of `head`, as a fixed canned stub answers it.
    private func entry(_ head: HTTPRequestHead) throws -> RepeatCache<HTTPRequestHead>.Entry {
        let request = try XCTUnwrap(StubRequest("http://img.test\(head.uri)"))
        var match: StubRegistry.RepeatableMatch?
        _ = stubs.resolveImmediately(request, repeatable: &match)
        return RepeatCache.Entry(key: head, request: request, method: "GET", match: try XCTUnwrap(match))
    }

    /// One read through the decoder carrying one request that was answered at once and, when
    /// `kept`, kept: what the handlers tell the fast path, in that order. Returns whether the
    /// fast path wanted it kept (its loop saw the bytes before).
    @discardableResult
    private func decodedRead(
        _ text: String, into path: inout HTTP1FastPath, head: HTTPRequestHead? = nil, kept: Bool = true, queueEmpty: Bool = true
    ) throws -> Bool {
        XCTAssertNil(path.read(bytes(text)), "the read goes to the decoder")
        let wanted = path.wantsKept
        path.passedOn(queueEmpty: queueEmpty)
        if kept { path.repeats.keep(try entry(head ?? self.head())) }
        path.decided(kept: kept)
        path.responseEnded()
        path.decoded(bytes(text))
        return wanted
    }

    func testARequestIsKeptTheSecondTimeItsBytesComeAndAnsweredTheThird() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        XCTAssertFalse(try decodedRead(requestBytes, into: &path), "bytes the loop never saw")
        XCTAssertEqual(reads.count, 0)
        XCTAssertTrue(try decodedRead(requestBytes, into: &path), "seen before: worth keeping")
        XCTAssertEqual(reads.count, 1)
        let repeated = path.read(bytes(requestBytes))
        XCTAssertEqual(repeated?.request.url.path, "/a.png")
        XCTAssertTrue(path.isAnswering, "the repeat's response is going")
        path.responseEnded()
        XCTAssertNotNil(path.read(bytes(requestBytes)), "and again, while the client repeats")
    }

    func testOtherBytesGoToTheDecoderAndLeaveTheBoundary() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        try decodedRead(requestBytes, into: &path)
        XCTAssertNil(path.read(bytes(requestBytes.replacingOccurrences(of: "image/*", with: "image/webp"))))
        XCTAssertFalse(path.isAnswering)
        XCTAssertFalse(path.atBoundary, "what the decoder holds now is not known")
        XCTAssertNil(path.read(bytes(requestBytes)), "so the same bytes as before go to the decoder too")
    }

    func testARepeatWhileAResponseIsGoingIsDecodedInTurn() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path)
        try decodedRead(requestBytes, into: &path)
        path.passedOn(queueEmpty: true)
        XCTAssertNil(path.read(bytes(requestBytes)), "pipelined behind a response: it waits in the connection's queue")
    }

    func testARequestNotKeptIsNotABoundary() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        try decodedRead(requestBytes, into: &path, kept: false)
        try decodedRead(requestBytes, into: &path, kept: false)
        XCTAssertFalse(path.atBoundary)
        XCTAssertEqual(reads.count, 0)
    }

    func testARequestWithSomethingQueuedBehindItIsNotABoundary() throws {
        var path = HTTP1FastPath()
        try decodedRead(requestBytes, into: &path, queueEmpty: false)
        try decodedRead(requestBytes, into: &path, queueEmpty: false)
        XCTAssertFalse(path.atBoundary)
        XCTAssertNil(path.read(bytes(requestBytes)))
    }

    func testAReadOfTwoRequestsIsNotKept() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        let two = requestBytes + requestBytes
        for _ in 1...2 {
            XCTAssertNil(path.read(bytes(two)))
            for _ in 1...2 {
                path.passedOn(queueEmpty: true)
                path.repeats.keep(try entry(head()))
                path.decided(kept: true)
                path.responseEnded()
            }
            path.decoded(bytes(two))
        }
        XCTAssertFalse(path.atBoundary)
        XCTAssertEqual(reads.count, 0)
    }

    func testAReadKeptOnOneConnectionIsAnsweredOnAnotherOfTheLoop() throws {
        let reads = RepeatedReads()
        var first = HTTP1FastPath(reads: reads), second = HTTP1FastPath(reads: reads)
        try decodedRead(requestBytes, into: &first)
        try decodedRead(otherBytes, into: &second, head: head("/b.png"))
        XCTAssertEqual(reads.count, 0, "each seen once")
        XCTAssertTrue(try decodedRead(requestBytes, into: &second), "seen on the other connection")
        XCTAssertTrue(try decodedRead(otherBytes, into: &first, head: head("/b.png")))
        XCTAssertEqual(reads.count, 2)
        XCTAssertEqual(second.read(bytes(otherBytes))?.request.url.path, "/b.png", "kept by the first connection")
        second.responseEnded()
        XCTAssertEqual(first.read(bytes(requestBytes))?.request.url.path, "/a.png", "kept by the second")
        let third = HTTP1FastPath(reads: reads)
        XCTAssertTrue(third.atBoundary, "a new connection's decoder holds nothing")
        var fresh = third
        XCTAssertEqual(fresh.read(bytes(requestBytes))?.request.url.path, "/a.png", "its first read may be answered too")
    }

    func testAConnectionNotAtABoundaryDecodesAReadTheLoopKept() throws {
        let reads = RepeatedReads()
        var first = HTTP1FastPath(reads: reads), second = HTTP1FastPath(reads: reads)
        try decodedRead(requestBytes, into: &first)
        try decodedRead(requestBytes, into: &first)
        XCTAssertEqual(reads.count, 1)
        // The second connection's decoder holds the start of a head: the same bytes finish it.
        let begun = "GET /b.png HTTP/1.1\r\nX-Begun-Earlier: "
        XCTAssertNil(second.read(bytes(begun)))
        second.decoded(bytes(begun))
        XCTAssertFalse(second.atBoundary)
        XCTAssertNil(second.read(bytes(requestBytes)), "the rest of an earlier read's head is not a request of its own")
    }

    func testAHeadNamingNoHostIsNotKeptForTheLoop() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        var hostless = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")
        hostless.headers.add(name: "Accept", value: "image/*")
        let text = "GET /a.png HTTP/1.1\r\nAccept: image/*\r\n\r\n"
        try decodedRead(text, into: &path, head: hostless)
        try decodedRead(text, into: &path, head: hostless)
        XCTAssertTrue(path.atBoundary, "the decoder holds nothing")
        XCTAssertEqual(reads.count, 0, "its request depends on the listener's address, which the loop's connections need not share")
        XCTAssertNil(path.read(bytes(text)))
    }

    func testAStaleRepeatForgetsEveryReadTheLoopKept() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        for text in [otherBytes, requestBytes, otherBytes, requestBytes] {
            try decodedRead(text, into: &path, head: head(text == otherBytes ? "/b.png" : "/a.png"))
        }
        XCTAssertEqual(reads.count, 2)
        XCTAssertNotNil(path.read(bytes(otherBytes)))
        path.repeatFailed()
        XCTAssertFalse(path.isAnswering, "the decoder's request will be passed on as usual")
        XCTAssertFalse(path.atBoundary)
        XCTAssertEqual(reads.count, 0, "kept before the stubs changed, like the one found stale")
    }

    func testTheLastConnectionClosedForgetsEveryRead() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        reads.connectionOpened()
        reads.connectionOpened()
        try decodedRead(requestBytes, into: &path)
        try decodedRead(requestBytes, into: &path)
        reads.connectionClosed()
        XCTAssertEqual(reads.count, 1, "one connection still uses it")
        reads.connectionClosed()
        XCTAssertEqual(reads.count, 0)
        XCTAssertFalse(try decodedRead(requestBytes, into: &path), "the bytes seen are forgotten too")
    }

    func testAClientThatNeverRepeatsFillsNothing() throws {
        let reads = RepeatedReads()
        var path = HTTP1FastPath(reads: reads)
        var boundaries = 0
        for n in 0..<(RepeatBackoff.patience + 2 * RepeatBackoff.retryInterval) {
            // Each request differs from every other in a header (a trace id).
            let text = requestBytes.replacingOccurrences(of: "Accept: image/*", with: "Traceparent: \(n)")
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")
            head.headers.add(name: "Host", value: "img.test")
            head.headers.add(name: "Traceparent", value: "\(n)")
            XCTAssertNil(path.read(bytes(text)), "never seen before")
            XCTAssertFalse(path.wantsKept)
            path.passedOn(queueEmpty: true)
            // As the exchange does: the request kept before is forgotten, as this one does not
            // repeat it, and this one is kept when the connection's RepeatCache says so.
            path.repeats.forget()
            let kept = path.repeats.keepsNext()
            if kept { path.repeats.keep(try entry(head)) }
            path.decided(kept: kept)
            path.responseEnded()
            path.decoded(bytes(text))
            if path.atBoundary { boundaries += 1 }
        }
        XCTAssertEqual(reads.count, 0)
        XCTAssertEqual(boundaries, RepeatBackoff.patience + 2, "at a boundary (and looking up) for the patience, then once a retry interval")
    }

    func testExactlyOneHeadIsItsRequestLineFieldsAndBlankLineAndNothingElse() {
        XCTAssertTrue(HTTP1FastPath.isExactly(head(), bytes(requestBytes)))
        XCTAssertFalse(HTTP1FastPath.isExactly(head(), bytes(requestBytes + "G")), "the start of a next request")
        XCTAssertFalse(HTTP1FastPath.isExactly(head(), bytes(String(requestBytes.dropFirst(4)))), "the end of an earlier read's request")
        var upgrade = head()
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

/// Which reads an event loop keeps: those that come a second time.
final class RepeatedReadsOfferTests: XCTestCase {
    private func read(_ path: String, _ header: String = "") -> ByteBuffer {
        ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\(header)\r\n")
    }

    func testEveryURLOfAFeedIsWorthKeepingTheSecondTimeItComes() {
        let reads = RepeatedReads()
        let feed = (0..<1000).map { read(String(format: "/feed/%04d.png", $0)) }
        XCTAssertEqual(feed.filter { reads.offer($0) }.count, 0, "the first time round")
        XCTAssertEqual(feed.filter { reads.offer($0) }.count, 1000, "the second")
    }

    func testReadsThatDifferEveryTimeAreNeverWorthKeeping() {
        let reads = RepeatedReads()
        let traced = (0..<5000).map { read("/4k.png", "traceparent: 00-\(String($0, radix: 16))-01\r\n") }
        XCTAssertEqual(traced.filter { reads.offer($0) }.count, 0)
    }

    func testTheQuickHashReadsEveryByte() {
        let base = read("/feed/0001.png")
        var hashes: Set<UInt64> = [base.quickHash]
        for index in 0..<base.readableBytes {
            var changed = base
            changed.setInteger(base.getInteger(at: index, as: UInt8.self)! ^ 1, at: index)
            hashes.insert(changed.quickHash)
        }
        XCTAssertEqual(hashes.count, base.readableBytes + 1, "a change to any one byte changes the hash")
    }
}
