import NIOCore
import NIOEmbedded
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// The request-head timeout, the parse-error answers and pipelining of `StubHTTPHandler` on an
/// `EmbeddedChannel` whose clock the test moves: no sockets, no real time.
final class RequestGuardHandlerTests: XCTestCase {
    private func makeChannel(_ stubs: StubRegistry = StubRegistry()) throws -> EmbeddedChannel {
        let shared = ServerShared(registry: stubs, configuration: .init(requestHeadTimeout: .seconds(2), maxHeaderCount: 256), scheme: "http")
        let channel = EmbeddedChannel(handler: StubHTTPHandler(shared: shared))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    private func head(_ uri: String) -> HTTPServerRequestPart {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: "img.test")
        return .head(head)
    }

    /// Every response part written so far, decoded as a client would.
    private func responses(_ channel: EmbeddedChannel, _ reader: ResponseBytesReader) async throws -> [HTTPClientResponsePart] {
        var parts: [HTTPClientResponsePart] = []
        while let part = try await reader.next(from: { try channel.readOutbound(as: ByteBuffer.self) }) {
            parts.append(part)
        }
        return parts
    }

    func testTheHeadTimeoutClosesAnIdleConnectionAndSparesOneWithARequestInFlight() throws {
        let channel = try makeChannel()
        defer { _ = try? channel.finish() }

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(channel.isActive, "still within the timeout")
        try channel.writeInbound(head("/"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        XCTAssertTrue(channel.isActive, "a request whose head is in is the stub's to time, e.g. no-response")

        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        XCTAssertNotNil(try channel.readOutbound(as: ByteBuffer.self), "the 404 of the unmatched request")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(channel.isActive, "the next head has two seconds from the end of the response")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        XCTAssertFalse(channel.isActive, "no head within two seconds of the response: closed")
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
        XCTAssertEqual(stubs.journal.interactions.map(\.request.url.path), ["/slow", "/fast"])
    }
}
