import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import UnderstudyServer
import XCTest

/// The request-head timeout and the parse-error answers on an `EmbeddedChannel` whose clock the
/// test moves: no sockets, no real time.
final class RequestGuardHandlerTests: XCTestCase {
    func testTheHeadTimeoutClosesAnIdleConnectionAndSparesOneWithARequestInFlight() throws {
        let channel = EmbeddedChannel(handler: RequestHeadTimeoutHandler(timeout: .seconds(2)))
        defer { _ = try? channel.finish() }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(channel.isActive, "still within the timeout")
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        XCTAssertTrue(channel.isActive, "a request whose head is in is the stub's to time, e.g. no-response")

        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(channel.isActive, "the next head has two seconds from the end of the response")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        XCTAssertFalse(channel.isActive, "no head within two seconds of the response: closed")
    }

    func testHeaderOverflowIs431AndOtherParseErrors400WithTheReason() throws {
        for (error, expected) in [
            (HTTPParserError.headerOverflow, "431 request header fields too large: at most 256 header fields and 81920 bytes of names and values\n"),
            (HTTPParserError.invalidChunkSize, "400 bad request: invalid character in chunk size header\n"),
        ] {
            let channel = EmbeddedChannel(handler: HTTPErrorResponder(maxHeaderCount: 256, maxHeaderBytes: 81_920))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            channel.pipeline.fireErrorCaught(error)
            guard case .head(let head) = try channel.readOutbound(as: HTTPServerResponsePart.self),
                  case .body(.byteBuffer(let body)) = try channel.readOutbound(as: HTTPServerResponsePart.self),
                  case .end = try channel.readOutbound(as: HTTPServerResponsePart.self)
            else { return XCTFail("\(error): expected head, body, end") }
            XCTAssertEqual("\(head.status.code) \(String(buffer: body))", expected)
            XCTAssertEqual(head.headers["Connection"], ["close"])
            XCTAssertEqual(head.headers["Content-Length"], [String(body.readableBytes)])
            channel.embeddedEventLoop.advanceTime(by: .seconds(3))
            XCTAssertFalse(channel.isActive, "\(error): closed after the lingering period")
            _ = try? channel.finish()
        }
    }
}
