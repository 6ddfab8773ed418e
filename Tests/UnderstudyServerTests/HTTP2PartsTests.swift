import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Understudy
@testable import UnderstudyServer
import XCTest

/// The socket-free parts of HTTP/2: telling the preface from HTTP/1.1, header blocks, what
/// each fault does on a stream, and what the journal, log and JSON say of the version.
final class HTTP2PartsTests: XCTestCase {
    func testTheSnifferTellsThePrefaceFromHTTP1() {
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        XCTAssertEqual(HTTPVersionSniffer.version(of: preface), .http2)
        XCTAssertEqual(HTTPVersionSniffer.version(of: preface + [0, 0, 0, 4]), .http2, "with the first frame behind it")
        XCTAssertNil(HTTPVersionSniffer.version(of: Array(preface.prefix(10))), "a prefix needs more bytes")
        XCTAssertNil(HTTPVersionSniffer.version(of: [UInt8]()))
        XCTAssertEqual(HTTPVersionSniffer.version(of: Array("POST / HTTP/1.1\r\n".utf8)), .http1, "P, then not R")
        XCTAssertEqual(HTTPVersionSniffer.version(of: Array("GET".utf8)), .http1)
        XCTAssertEqual(HTTPVersionSniffer.version(of: Array("PRI * HTTP/1.1\r\n\r\n".utf8)), .http1)
    }

    func testTheSnifferLeavesAnHTTP1ConnectionAfterItsFirstRead() throws {
        let shared = ServerShared(registry: StubRegistry(), configuration: .init())
        let channel = EmbeddedChannel()
        try ServerPipeline.configurePlain(channel, shared: shared)
        XCTAssertNoThrow(try channel.pipeline.syncOperations.handler(type: HTTPVersionSniffer.self))
        try channel.writeInbound(ByteBuffer(string: "GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n"))
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: HTTPVersionSniffer.self), "gone after the first read")
        XCTAssertNoThrow(try channel.pipeline.syncOperations.handler(type: HTTP1ConnectionHandler.self))
        let response = try XCTUnwrap(channel.readOutbound(as: IOData.self))
        guard case .byteBuffer(let head) = response else { return XCTFail("not bytes: \(response)") }
        XCTAssertTrue(String(buffer: head).hasPrefix("HTTP/1.1 404 Not Found\r\n"), String(buffer: head))
        _ = try? channel.finish()
    }

    func testTheSnifferSetsUpHTTP2AfterThePreface() throws {
        let shared = ServerShared(registry: StubRegistry(), configuration: .init())
        let channel = EmbeddedChannel()
        try ServerPipeline.configurePlain(channel, shared: shared)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: HTTPVersionSniffer.self))
        XCTAssertNoThrow(try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self))
        // The server's SETTINGS, its first frame: type 4 on stream 0.
        let settings = try XCTUnwrap(channel.readOutbound(as: IOData.self))
        guard case .byteBuffer(let frame) = settings else { return XCTFail("not bytes") }
        XCTAssertEqual(frame.getInteger(at: frame.readerIndex + 3, as: UInt8.self), 4)
        _ = try? channel.finish()
    }

    func testHeaderBlocksFollowRFC9113() {
        let block = HTTP2HeaderBlock.response(status: 200, headers: [
            "Content-Type": "image/png", "Content-Length": "4", "ETag": "\"x\"", "Vary": "Accept",
            "Connection": "close, X-Private", "X-Private": "1", "Keep-Alive": "timeout=5", "Transfer-Encoding": "chunked",
            "Upgrade": "h2c", "Proxy-Connection": "close",
        ])
        XCTAssertEqual(block.map { $0.name }, [":status", "content-type", "content-length", "etag", "vary"])
        XCTAssertEqual(block.first(name: ":status"), "200")
        XCTAssertEqual(block.first(name: "etag"), "\"x\"")
        let notModified = HTTP2HeaderBlock.response(status: 304, headers: ["Content-Length": "4", "ETag": "\"x\""])
        XCTAssertEqual(notModified.map { $0.name }, [":status", "etag"], "no content-length without a body")
    }

    func testEachFaultsHTTP2Form() {
        let garbage = Data([0xFF, 1, 2])
        XCTAssertEqual(Fault.connectionReset.http2Action(randomBytes: garbage), .reset(.internalError))
        XCTAssertEqual(Fault.urlError(.timedOut).http2Action(randomBytes: garbage), .reset(.internalError))
        XCTAssertEqual(Fault.emptyResponse.http2Action(randomBytes: garbage), .reset(.noError))
        XCTAssertEqual(Fault.noResponse.http2Action(randomBytes: garbage), .hold)
        XCTAssertEqual(Fault.randomDataThenClose.http2Action(randomBytes: garbage), .garbleConnection(garbage))
        XCTAssertEqual(Fault.goaway.http2Action(randomBytes: garbage), .goAway)
        guard case .overlongBody(let declared, let body) = Fault.malformedChunk.http2Action() else { return XCTFail("malformed-chunk") }
        XCTAssertGreaterThan(body.count, declared)
        XCTAssertEqual(Fault.goaway.wireActions(stubName: nil), [.writeResponseClosing, .close(reset: false)], "HTTP/1.1")
    }

    func testGoawayIsAStubFileFaultThatFailsInProcessAsAConnectionLoss() {
        XCTAssertEqual(Fault(fileName: "goaway"), .goaway)
        XCTAssertEqual(Fault.goaway.description, "goaway")
        XCTAssertTrue(Fault.fileNames.contains("goaway"))
        XCTAssertEqual(Fault.goaway.urlErrorCode, .networkConnectionLost)
    }

    func testTheLogAndJSONSayHTTP2() throws {
        let entry = JournalEntry(
            id: 3, time: Date(timeIntervalSince1970: 1_700_000_000.5),
            request: .init(method: "GET", url: "http://img.example.com/a.png", headers: [:], bodySize: 0),
            stub: "cat", response: .init(status: 200, headers: [:], bodySize: 10), outcome: "completed",
            durationMs: 4, transport: "server", httpVersion: .http2
        )
        XCTAssertEqual(RequestLog(format: .text).line(for: entry), "GET http://img.example.com/a.png HTTP/2 -> stub \"cat\" 200 4ms")
        let json = try XCTUnwrap(RequestLog(format: .json).line(for: entry))
        XCTAssertTrue(json.contains(#""httpVersion":"HTTP/2""#), json)
        XCTAssertEqual(try JSONDecoder().decode(JournalEntry.self, from: Data(json.utf8)), entry)
        var older = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        older["httpVersion"] = nil
        let decoded = try JSONDecoder().decode(JournalEntry.self, from: JSONSerialization.data(withJSONObject: older))
        XCTAssertEqual(decoded.httpVersion, .http1_1, "entries written before the field read as HTTP/1.1")
    }
}
