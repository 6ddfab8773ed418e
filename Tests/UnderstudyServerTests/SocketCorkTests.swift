#if os(Linux)
import Foundation
import Glibc
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import Understudy
import UnderstudyImages
@testable import UnderstudyServer
import UnderstudySupport
import XCTest
import UnderstudyTestSupport

/// A response head corked with its file body (``SocketCork``): the socket is corked only for
/// the flush that sends them, and uncorked once it is made, so that nothing written after waits
/// on the cork (Linux holds corked bytes for up to 200 ms).
final class SocketCorkTests: XCTestCase {
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: CInt(TCP_CORK)))

    /// Stands for the handler that writes a response; its context is the one handed to ``TurnFlushes``.
    private final class Writer: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
    }

    /// Gathers what the client receives.
    private final class Received: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let bytes = LockedState(ByteBuffer())
        var text: String { bytes.withLock { String(buffer: $0) } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var chunk = unwrapInboundIn(data)
            bytes.withLock { $0.writeBuffer(&chunk) }
        }
    }

    /// A loopback TCP connection: the server's end, with a ``Writer``, and the client's.
    private struct Connection {
        let server: any Channel
        let client: any Channel
        let received: Received
        let listener: any Channel

        init(group: any EventLoopGroup) throws {
            let accepted = group.next().makePromise(of: (any Channel).self)
            listener = try ServerBootstrap(group: group)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Writer())
                        accepted.succeed(channel)
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
            let received = Received()
            self.received = received
            client = try ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(received) }
                }
                .connect(to: listener.localAddress!).wait()
            server = try accepted.futureResult.wait()
        }

        func close() {
            try? client.close().wait()
            try? server.close().wait()
            try? listener.close().wait()
        }

        /// Waits (at most about 5 s) until the client has received `text`.
        func waitForClient(toReceive text: String, file: StaticString = #filePath, line: UInt = #line) {
            for _ in 0..<500 where received.text != text { usleep(10_000) }
            XCTAssertEqual(received.text, text, file: file, line: line)
        }
    }

    private var group: MultiThreadedEventLoopGroup!

    override func setUp() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    override func tearDown() {
        try? group.syncShutdownGracefully()
    }

    func testACorkedFlushUncorksTheSocketOnceMade() throws {
        let connection = try Connection(group: group)
        defer { connection.close() }
        let duringTheTurn = try connection.server.eventLoop.submit { () -> (corked: Bool, corkedAfterAsking: Int) in
            let context = try connection.server.pipeline.syncOperations.context(handlerType: Writer.self)
            let flushes = TurnFlushes()
            context.write(NIOAny(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\nbody")), promise: nil)
            let cork = SocketCork(connection.server)
            let corked = cork.cork()
            flushes.flushAtTurnEnd(context, uncorking: corked ? cork : nil)
            return (corked, try connection.server.syncOptions!.getOption(Self.cork))
        }.wait()
        XCTAssertTrue(duringTheTurn.corked, "a TCP socket can be corked")
        XCTAssertNotEqual(duringTheTurn.corkedAfterAsking, 0, "corked until the turn's flush")

        connection.waitForClient(toReceive: "HTTP/1.1 200 OK\r\n\r\nbody")
        let afterTheTurn = try connection.server.eventLoop.submit {
            try connection.server.syncOptions!.getOption(Self.cork)
        }.wait()
        XCTAssertEqual(afterTheTurn, 0, "uncorked once the flush is made")
    }

    func testFlushNowUncorksTooForAConnectionWhoseInputEnded() throws {
        let connection = try Connection(group: group)
        defer { connection.close() }
        let state = try connection.server.eventLoop.submit { () -> (before: Int, after: Int) in
            let context = try connection.server.pipeline.syncOperations.context(handlerType: Writer.self)
            let flushes = TurnFlushes()
            context.write(NIOAny(ByteBuffer(string: "last words")), promise: nil)
            let cork = SocketCork(connection.server)
            flushes.flushAtTurnEnd(context, uncorking: cork.cork() ? cork : nil)
            let before = try connection.server.syncOptions!.getOption(Self.cork)
            flushes.flushNow(connection.server)
            return (before, try connection.server.syncOptions!.getOption(Self.cork))
        }.wait()
        XCTAssertNotEqual(state.before, 0)
        XCTAssertEqual(state.after, 0, "flushed at once, and uncorked with it")
        connection.waitForClient(toReceive: "last words")
    }

    func testAnUncorkedFlushLeavesTheSocketAsItWas() throws {
        let connection = try Connection(group: group)
        defer { connection.close() }
        try connection.server.eventLoop.submit {
            let context = try connection.server.pipeline.syncOperations.context(handlerType: Writer.self)
            let flushes = TurnFlushes()
            context.write(NIOAny(ByteBuffer(string: "small")), promise: nil)
            flushes.flushAtTurnEnd(context)
        }.wait()
        connection.waitForClient(toReceive: "small")
        XCTAssertEqual(try connection.server.eventLoop.submit { try connection.server.syncOptions!.getOption(Self.cork) }.wait(), 0)
    }

    func testARegionFromInsideAPageIsSplitAtTheNextPageBoundary() {
        let page = Int(sysconf(CInt(_SC_PAGESIZE)))
        XCTAssertEqual(SocketCork.pageBoundary(atOrAfter: 0), 0)
        XCTAssertEqual(SocketCork.pageBoundary(atOrAfter: page), page, "already on one")
        XCTAssertEqual(SocketCork.pageBoundary(atOrAfter: 1), page)
        XCTAssertEqual(SocketCork.pageBoundary(atOrAfter: 10_000), (10_000 / page + 1) * page)
        XCTAssertEqual(SocketCork.pageBoundary(atOrAfter: 3 * page - 1), 3 * page)
    }

    func testOnlyAFileRegionStartingOnAPageBoundaryIsCorked() {
        let page = Int(sysconf(CInt(_SC_PAGESIZE)))
        XCTAssertTrue(SocketCork.worthCorking(fileOffset: 0), "a whole file")
        XCTAssertTrue(SocketCork.worthCorking(fileOffset: page))
        XCTAssertTrue(SocketCork.worthCorking(fileOffset: 3 * page))
        XCTAssertFalse(SocketCork.worthCorking(fileOffset: 10_000), "a range from byte 10,000")
        XCTAssertFalse(SocketCork.worthCorking(fileOffset: page - 1))
        XCTAssertFalse(SocketCork.worthCorking(fileOffset: page + 1))
    }

    /// What a writer puts on the wire for a file body: a region starting inside a page sends its
    /// bytes up to the next page boundary in one buffer with the head, then the rest from the
    /// file; a later piece of a paced body, with no head to join, goes whole from the file.
    func testOnlyThePieceWithTheHeadIsSplitAtAPageBoundary() throws {
        let directory = try makeTemporaryDirectory("cork-writer")
        let path = directory.appendingPathComponent("big.bin").path
        try Data((0..<102_400).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: path))
        let channel = EmbeddedChannel(handler: Writer())
        let context = try channel.pipeline.syncOperations.context(handlerType: Writer.self)
        let clock = LoopClock(eventLoop: channel.embeddedEventLoop)
        let writer = HTTP1ResponseWriter(context: context, sendsFiles: true, clock: clock) {}
        var prepared = PreparedResponse(status: 200, headers: ["Content-Length": "102400"], body: try Data(contentsOf: URL(fileURLWithPath: path)))
        prepared.sourceFile = PreparedResponse.SourceFile(path: path, stamp: try XCTUnwrap(FileStamp(path: path)))
        let file = try XCTUnwrap(OpenFile(prepared.sourceFile!))
        let wire = try WireResponse(prepared, allocator: channel.allocator, file: file)
        func written() throws -> [String] {
            var parts: [String] = []
            while let data = try channel.readOutbound(as: IOData.self) {
                switch data {
                case .byteBuffer(let buffer):
                    // "head + N bytes" where a head leads the buffer, "N bytes" where none does.
                    let bytes = Array(buffer.readableBytesView)
                    if bytes.starts(with: Array("HTTP/1.1 200 OK\r\n".utf8)), let end = RawSocket.firstIndex(of: Array("\r\n\r\n".utf8), in: bytes) {
                        parts.append("head + \(bytes.count - end - 4) bytes")
                    } else {
                        parts.append("\(bytes.count) bytes")
                    }
                case .fileRegion(let region):
                    parts.append("file \(region.readerIndex)..<\(region.endIndex)")
                }
            }
            return parts
        }

        writer.prepare(wire, version: .http1_1, keepAlive: true, closing: false, lingering: false)
        writer.writeHead()
        writer.writeBody(10_000..<75_536)
        writer.flush()
        let page = SocketCork.pageBoundary(atOrAfter: 10_000)
        XCTAssertEqual(try written(), ["head + \(page - 10_000) bytes", "file \(page)..<75536"], "the head with the bytes up to a page boundary")

        writer.prepare(wire, version: .http1_1, keepAlive: true, closing: false, lingering: false)
        writer.writeHead()
        writer.flush()
        writer.writeBody(0..<16_000)
        writer.writeBody(16_000..<32_000)
        writer.flush()
        XCTAssertEqual(try written(), ["head + 0 bytes", "file 0..<16000", "file 16000..<32000"], "paced pieces whole from the file")
        _ = try channel.finish()
    }

    /// File bodies sent corked (a whole file, a range from a page boundary) and not (a range from
    /// inside a page, whose bytes up to the next boundary go from memory with the head, and a
    /// HEAD's head with no body after it), with small answers from memory
    /// between them, on one kept-alive connection: each arrives whole and framed, in order, the
    /// small ones after a corked one too.
    func testCorkedAndUncorkedFileBodiesAndSmallAnswersShareAConnection() async throws {
        let directory = try makeTemporaryDirectory("cork")
        let file = directory.appendingPathComponent("big.txt")
        // 102,400 bytes, over the size sent from the file, each line saying where it starts.
        let text = (0..<6_400).map { String(format: "%015d\n", $0 * 16) }.joined()
        try Data(text.utf8).write(to: file)
        let bytes = Array(text.utf8)
        func slice(_ range: ClosedRange<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        let stubs = StubRegistry()
        stubs.stub(.path("/big.txt"), named: "file", response: .file(file))
        stubs.stub(.path("/small"), named: "small", response: .text("small"))

        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            func ask(_ path: String, _ field: String = "Accept: */*") -> RawResponse? {
                socket.send("GET \(path) HTTP/1.1\r\nHost: img.test\r\n\(field)\r\n\r\n")
                return socket.readResponses(count: 1).first
            }
            for round in 1...2 {
                let whole = try XCTUnwrap(ask("/big.txt"), "round \(round)")
                XCTAssertEqual(whole.status, 200)
                XCTAssertEqual(whole.body, text, "the whole file, from a page boundary (corked)")
                XCTAssertEqual(ask("/small")?.summary, "200 OK small")
                let aligned = try XCTUnwrap(ask("/big.txt", "Range: bytes=4096-69631"))
                XCTAssertEqual(aligned.status, 206)
                XCTAssertEqual(aligned.headers["content-range"], "bytes 4096-69631/102400")
                XCTAssertEqual(aligned.body, slice(4096...69631), "a range from a page boundary (corked)")
                XCTAssertEqual(ask("/small")?.summary, "200 OK small")
                let unaligned = try XCTUnwrap(ask("/big.txt", "Range: bytes=10000-75535"))
                XCTAssertEqual(unaligned.status, 206)
                XCTAssertEqual(unaligned.body, slice(10000...75535), "a range from inside a page: its first bytes from memory with the head, the rest from the file")
                XCTAssertEqual(ask("/small")?.summary, "200 OK small")
                // A file response's head waits for its first bytes; with none to follow, it goes alone.
                socket.send("HEAD /big.txt HTTP/1.1\r\nHost: img.test\r\n\r\nGET /small HTTP/1.1\r\nHost: img.test\r\n\r\n")
                let heads = String(decoding: socket.read(until: "\r\n\r\nsmall").bytes, as: UTF8.self)
                let parts = heads.components(separatedBy: "\r\n\r\n")
                XCTAssertEqual(parts.count, 3, "two heads and the small body: \(heads)")
                XCTAssertTrue(parts[0].hasPrefix("HTTP/1.1 200 OK\r\n"), parts[0])
                XCTAssertTrue(parts[0].lowercased().contains("content-length: 102400"), parts[0])
                XCTAssertTrue(parts[1].hasPrefix("HTTP/1.1 200 OK\r\n"), "no body after the HEAD's head: \(parts[1].prefix(40))")
                XCTAssertEqual(parts.last, "small")
            }
        }
    }
}
#endif
