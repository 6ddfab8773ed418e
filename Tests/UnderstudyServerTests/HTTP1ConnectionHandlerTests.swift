import NIOCore
import NIOEmbedded
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// ``HTTP1ConnectionHandler``'s manners, with the HTTP/1.1 handlers around it on an
/// `EmbeddedChannel` whose clock the test moves: the head and body timeouts, the refusals and
/// their answers, pipelining in order. No sockets, no real time.
final class HTTP1ConnectionHandlerTests: XCTestCase {
    private func makeChannel(_ stubs: StubRegistry = StubRegistry()) throws -> EmbeddedChannel {
        let shared = ServerShared(registry: stubs, configuration: .init(requestHeadTimeout: .seconds(2), maxHeaderCount: 256))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(ServerPipeline.http1Handlers(shared: shared, eventLoop: channel.eventLoop).all)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    private func head(_ uri: String) -> HTTPServerRequestPart {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: "img.test")
        return .head(head)
    }

    /// Every response part written so far, decoded as a client would: after the loop's turn
    /// ends, when a kept connection's responses are flushed.
    private func responses(_ channel: EmbeddedChannel, _ reader: ResponseBytesReader) async throws -> [HTTPClientResponsePart] {
        channel.embeddedEventLoop.run()
        var parts: [HTTPClientResponsePart] = []
        while let part = try await reader.next(from: { try channel.readOutbound(as: ByteBuffer.self) }) {
            parts.append(part)
        }
        return parts
    }

    func testTheHeadTimeoutClosesAnIdleConnectionAndSparesOneWithARequestInFlight() throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), named: "slow", response: .text("late").delayed(by: .seconds(60)))
        let channel = try makeChannel(stubs)
        defer { _ = try? channel.finish() }

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(channel.isActive, "still within the timeout")
        try channel.writeInbound(head("/slow"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(59_900))
        XCTAssertTrue(channel.isActive, "a request that is in is the stub's to time, e.g. a delay or no-response")
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self), "the stub's delay is not over")

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        XCTAssertNotNil(try channel.readOutbound(as: ByteBuffer.self), "the delayed answer")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(channel.isActive, "the next head has two seconds from the end of the response")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        XCTAssertFalse(channel.isActive, "no head within two seconds of the response: closed")
        XCTAssertEqual(stubs.journal.count, 1, "an idle connection closing is not a request")
    }

    func testABodyThatTricklesPastTheBodyTimeoutGets408AndIsJournaled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/upload"), response: .status(201))
        let shared = ServerShared(registry: stubs, configuration: .init(requestHeadTimeout: .seconds(2), bodyTimeout: .seconds(5)))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(ServerPipeline.http1Handlers(shared: shared, eventLoop: channel.eventLoop).all)
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        let reader = ResponseBytesReader()

        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/upload")
        head.headers.add(name: "Host", value: "img.test")
        head.headers.add(name: "Content-Length", value: "100")
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        for second in 1...4 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "byte \(second)")))
        }
        XCTAssertTrue(channel.isActive, "within the body timeout")
        let early = try await responses(channel, reader)
        XCTAssertTrue(early.isEmpty, "no answer before the body timeout")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let parts = try await responses(channel, reader)
        guard case .head(let answered) = parts.first, case .body(let body) = parts.dropFirst().first else {
            return XCTFail("expected a 408; got \(parts)")
        }
        XCTAssertEqual(answered.status.code, 408)
        XCTAssertEqual(String(buffer: body), "request body not received within 5s\n")
        XCTAssertEqual(answered.headers["Connection"], ["close"])
        let entry = try XCTUnwrap(stubs.journal.interactions.last)
        XCTAssertEqual(entry.request.method, "POST")
        XCTAssertEqual(entry.request.url.absoluteString, "http://img.test/upload")
        XCTAssertEqual(entry.status, 408)
        XCTAssertEqual(entry.outcome, .failed("request body not received within 5s"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        XCTAssertFalse(channel.isActive, "closed after the lingering period")
    }

    func testAnHTTP11RequestWithoutHostGets400AndIsJournaled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.any, response: .text("ok"))
        let channel = try makeChannel(stubs)
        defer { _ = try? channel.finish() }
        let reader = ResponseBytesReader()
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a.png")))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        let parts = try await responses(channel, reader)
        guard case .head(let answered) = parts.first, case .body(let body) = parts.dropFirst().first else {
            return XCTFail("expected a 400; got \(parts)")
        }
        XCTAssertEqual(answered.status.code, 400)
        XCTAssertEqual(String(buffer: body), "bad request: an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)\n")
        XCTAssertEqual(stubs.journal.interactions.map(\.status), [400])
        XCTAssertEqual(stubs.journal.interactions.first?.stubName, nil)

        // HTTP/1.0 needs none, and neither does an absolute-form (proxy) request.
        for (version, uri) in [(HTTPVersion.http1_0, "/a.png"), (.http1_1, "http://img.test/a.png")] {
            let other = try makeChannel(stubs)
            try other.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: version, method: .GET, uri: uri)))
            try other.writeInbound(HTTPServerRequestPart.end(nil))
            guard case .head(let ok) = try await responses(other, ResponseBytesReader()).first else { return XCTFail("no answer to \(uri)") }
            XCTAssertEqual(ok.status.code, 200, "\(version) \(uri)")
            _ = try? other.finish()
        }
    }

    func testHeaderOverflowIs431AndOtherParseErrors400WithTheReason() async throws {
        for (error, expected) in [
            (HTTPParserError.headerOverflow, "431 request header fields too large: at most 256 header fields and 81920 bytes of names and values\n"),
            (HTTPParserError.invalidChunkSize, "400 bad request: invalid character in chunk size header\n"),
        ] {
            let channel = try makeChannel()
            let reader = ResponseBytesReader()
            channel.pipeline.fireErrorCaught(error)
            let parts = try await responses(channel, reader)
            guard parts.count == 3, case .head(let head) = parts[0], case .body(let body) = parts[1], case .end = parts[2]
            else { return XCTFail("\(error): expected head, body, end; got \(parts)") }
            XCTAssertEqual("\(head.status.code) \(String(buffer: body))", expected)
            XCTAssertEqual(head.headers["Connection"], ["close"])
            XCTAssertEqual(head.headers["Content-Length"], [String(body.readableBytes)])
            channel.embeddedEventLoop.advanceTime(by: .seconds(3))
            XCTAssertFalse(channel.isActive, "\(error): closed after the lingering period")
            _ = try? channel.finish()
        }
    }

    func testPipelinedRequestsAndAParseErrorAreAnsweredInOrder() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), named: "slow", response: .text("slow").delayed(by: .milliseconds(500)))
        stubs.stub(.path("/fast"), named: "fast", response: .text("fast"))
        let channel = try makeChannel(stubs)
        defer { _ = try? channel.finish() }
        let reader = ResponseBytesReader()

        // Three requests and a parse error arrive together, the first one slow to answer.
        for uri in ["/slow", "/fast"] {
            try channel.writeInbound(head(uri))
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
        }
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidMethod)
        var answered = try await responses(channel, reader)
        XCTAssertTrue(answered.isEmpty, "nothing jumps the queue while the first answer waits")

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        answered = try await responses(channel, reader)
        let statuses = answered.compactMap { part -> String? in
            guard case .head(let head) = part else { return nil }
            return "\(head.status.code) \(head.headers.first(name: "X-Understudy-Stub") ?? "-")"
        }
        let bodies = answered.compactMap { part -> String? in
            guard case .body(let body) = part else { return nil }
            return String(buffer: body)
        }
        XCTAssertEqual(statuses, ["200 slow", "200 fast", "400 -"])
        XCTAssertEqual(bodies, ["slow", "fast", "bad request: invalid HTTP method\n"])
        // The refused request is journaled too, with what could be read of it (nothing here).
        XCTAssertEqual(stubs.journal.interactions.map(\.request.url.path), ["/slow", "/fast", "/"])
        XCTAssertEqual(stubs.journal.interactions.map(\.status), [200, 200, 400])
        XCTAssertEqual(stubs.journal.interactions.last?.outcome, .failed("bad request: invalid HTTP method"))
    }
}
