import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Understudy
@testable import UnderstudyServer
import XCTest

/// The writes in front of the TLS handler: small ones made between two flushes arrive as one
/// (one TLS record instead of one each), large ones as they are, in order, and every writer's
/// promise is kept.
final class TLSWriteCoalescerTests: XCTestCase {
    func testSmallWritesBetweenFlushesArriveAsOneAndLargeOnesAsTheyAre() throws {
        let channel = EmbeddedChannel(handler: TLSWriteCoalescer())
        defer { _ = try? channel.finish() }
        let written = NIOLockedValueBox<[Int]>([])
        for (index, text) in ["HEADERS", "DATA-HEAD", "body"].enumerated() {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenSuccess { written.withLockedValue { $0.append(index) } }
            channel.write(ByteBuffer(string: text), promise: promise)
        }
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self), "nothing goes before the flush")
        let large = ByteBuffer(repeating: 7, count: TLSWriteCoalescer.passThroughSize)
        channel.write(large, promise: nil)
        channel.write(ByteBuffer(string: "tail"), promise: nil)
        channel.flush()

        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), ByteBuffer(string: "HEADERSDATA-HEADbody"))
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), large)
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), ByteBuffer(string: "tail"))
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self))
        XCTAssertEqual(written.withLockedValue { $0 }, [0, 1, 2], "each joined write's promise succeeds")
    }

    func testFlushedWritesWaitWhileTheSocketTakesNoMoreAndGoWhenItDoes() throws {
        let channel = EmbeddedChannel(handler: TLSWriteCoalescer())
        defer { _ = try? channel.finish() }
        channel.isWritable = false
        let body = ByteBuffer(repeating: 1, count: 3 * TLSWriteCoalescer.passThroughSize)
        channel.write(ByteBuffer(string: "head"), promise: nil)
        channel.write(body, promise: nil)
        channel.flush()
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self), "nothing is encrypted while the socket is full")

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), ByteBuffer(string: "head"))
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), body, "a large write goes as it is, not copied into another")
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self))
    }

    func testRemovingTheHandlerPassesOnWhatItHeld() throws {
        let coalescer = TLSWriteCoalescer()
        let channel = EmbeddedChannel(handler: coalescer)
        defer { _ = try? channel.finish() }
        channel.write(ByteBuffer(string: "held"), promise: nil)
        try channel.pipeline.syncOperations.removeHandler(coalescer).wait()
        channel.flush()
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), ByteBuffer(string: "held"))
    }

    /// Where the handler goes: behind the TLS handler of an HTTP/2 connection, whose many small
    /// frames it joins; an HTTP/1.1 connection over TLS (a response is one write) and HTTP/2
    /// without TLS (h2c) have none.
    func testOnlyHTTP2OverTLSGetsOne() throws {
        let shared = ServerShared(registry: StubRegistry(), configuration: .init())
        func coalescers(tls: Bool, configure: (any Channel) throws -> Void) throws -> Int {
            let channel = EmbeddedChannel()
            defer { _ = try? channel.finish() }
            if tls {
                try channel.pipeline.syncOperations.addHandler(StandIn(), name: TLSContextProvider.tlsHandlerName)
            }
            try configure(channel)
            // The pipeline's listing, a line per handler, head first.
            let lines = channel.pipeline.debugDescription.split(separator: "\n")
            let coalescerLines = lines.indices.filter { lines[$0].contains("TLSWriteCoalescer") }
            if let line = coalescerLines.first {
                let tlsLine = try XCTUnwrap(lines.firstIndex { $0.contains(TLSContextProvider.tlsHandlerName) }, "\(lines)")
                XCTAssertEqual(line, tlsLine + 1, "right behind the TLS handler: \(lines)")
            }
            return coalescerLines.count
        }
        XCTAssertEqual(try coalescers(tls: true) { try ServerPipeline.configureHTTP2($0, shared: shared, scheme: "https", authority: nil) }, 1)
        XCTAssertEqual(try coalescers(tls: false) { try ServerPipeline.configureHTTP2($0, shared: shared, scheme: "http", authority: nil) }, 0)
        XCTAssertEqual(try coalescers(tls: true) { try ServerPipeline.configureHTTP1($0, shared: shared) }, 0)
    }

    /// Stands where the TLS handler would be.
    private final class StandIn: ChannelDuplexHandler {
        typealias InboundIn = NIOAny
        typealias OutboundIn = NIOAny
    }
}
