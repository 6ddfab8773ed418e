import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// ``HTTP1Answerer`` behind the other HTTP/1.1 handlers on a test channel whose clock the
/// test moves: delays, pacing and a refused body without sockets or real time; and the wire
/// actions each fault is carried out with.
final class HTTP1AnswererTests: XCTestCase {
    private func makeChannel(_ stubs: StubRegistry) async throws -> NIOAsyncTestingChannel {
        let shared = ServerShared(registry: stubs, configuration: .init(maxBodySize: 100))
        let channel = NIOAsyncTestingChannel()
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandlers(ServerPipeline.http1Handlers(shared: shared, eventLoop: channel.eventLoop).all)
        }.get()
        return channel
    }

    private func send(_ channel: NIOAsyncTestingChannel, _ method: HTTPMethod, _ uri: String, body: String? = nil) async throws {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        head.headers.add(name: "Host", value: "img.test")
        try await channel.writeInbound(HTTPServerRequestPart.head(head))
        if let body {
            try await channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: body)))
        }
        try await channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    /// The next response part the handler wrote, decoded as a client would; waits (in real
    /// time, briefly) for the stub to resolve off the loop and the handler to write.
    private func nextOutbound(_ channel: NIOAsyncTestingChannel, _ reader: ResponseBytesReader) async throws -> HTTPClientResponsePart? {
        try await reader.next {
            for _ in 0..<200 {
                if let bytes = try await channel.readOutbound(as: ByteBuffer.self) { return bytes }
                try await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }
    }

    func testDelayHoldsTheHeadUntilTheClockMoves() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), named: "slow", response: .text("late").delayed(by: .milliseconds(250)))
        let channel = try await makeChannel(stubs)
        let reader = ResponseBytesReader()
        try await send(channel, .GET, "/slow")
        try await Task.sleep(for: .milliseconds(100))
        let early = try await channel.readOutbound(as: ByteBuffer.self)
        XCTAssertNil(early, "nothing before the delay")
        await channel.testingEventLoop.advanceTime(by: .milliseconds(249))
        let stillEarly = try await channel.readOutbound(as: ByteBuffer.self)
        XCTAssertNil(stillEarly)
        await channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        guard case .head(let head)? = try await nextOutbound(channel, reader) else { return XCTFail("expected the head") }
        XCTAssertEqual(head.status, .ok)
        XCTAssertEqual(head.headers.first(name: "X-Understudy-Stub"), "slow")
        guard case .body(let body)? = try await nextOutbound(channel, reader) else { return XCTFail("expected the body") }
        XCTAssertEqual(String(buffer: body), "late")
        guard case .end? = try await nextOutbound(channel, reader) else { return XCTFail("expected the end") }
        XCTAssertEqual(stubs.journal.interactions.first?.outcome, .completed)
        _ = try await channel.finish()
    }

    /// 160,000 B/s: a 16,000-byte slice every 100 ms.
    func testBandwidthWritesEachSliceWhenItsTimeComes() async throws {
        let stubs = StubRegistry()
        stubs.stub(.any, response: .data(Data(count: 48_000)).throttled(to: .bytesPerSecond(160_000)))
        let channel = try await makeChannel(stubs)
        let reader = ResponseBytesReader()
        try await send(channel, .GET, "/x")
        guard case .head? = try await nextOutbound(channel, reader) else { return XCTFail("expected the head") }
        var sizes: [Int] = []
        for _ in 0..<3 {
            let none = try await channel.readOutbound(as: ByteBuffer.self)
            XCTAssertNil(none, "no slice before its time")
            await channel.testingEventLoop.advanceTime(by: .milliseconds(100))
            guard case .body(let slice)? = try await nextOutbound(channel, reader) else { return XCTFail("expected a slice") }
            sizes.append(slice.readableBytes)
        }
        XCTAssertEqual(sizes, [16_000, 16_000, 16_000])
        guard case .end? = try await nextOutbound(channel, reader) else { return XCTFail("expected the end") }
        _ = try await channel.finish()
    }

    func testOversizedBodyGets413AndCloses() async throws {
        let channel = try await makeChannel(StubRegistry())
        let reader = ResponseBytesReader()
        try await send(channel, .POST, "/upload", body: String(repeating: "x", count: 101))
        guard case .head(let head)? = try await nextOutbound(channel, reader) else { return XCTFail("expected the head") }
        XCTAssertEqual(head.status.code, 413)
        XCTAssertEqual(head.headers.first(name: "connection"), "close")
        _ = try? await channel.finish()
    }

    func testWireActionsOfEachFault() {
        XCTAssertEqual(Fault.connectionReset.wireActions(stubName: "s"), [.close(reset: true)])
        XCTAssertEqual(Fault.emptyResponse.wireActions(stubName: "s"), [.close(reset: false)])
        XCTAssertEqual(Fault.noResponse.wireActions(stubName: "s"), [.hold])
        XCTAssertEqual(Fault.randomDataThenClose.wireActions(stubName: "s", randomBytes: Data([1, 2])), [.writeRaw(Data([1, 2])), .close(reset: false)])
        XCTAssertEqual(Fault.malformedChunk.wireActions(stubName: "s"), [
            .writeRaw(Data("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\nX-Understudy-Stub: s\r\n\r\nzz\r\nthis is not chunked framing\r\n".utf8)),
            .close(reset: false),
        ])
        XCTAssertEqual(Fault.randomGarbage().count, 256)
        XCTAssertEqual(Fault.randomGarbage().first, 0xFF, "never starts like HTTP/")
    }
}
