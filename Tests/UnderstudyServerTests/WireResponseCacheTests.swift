import Foundation
import NIOCore
import NIOEmbedded
import Understudy
import UnderstudyImages
@testable import UnderstudyServer
import XCTest

/// The framed form of a rendering is made once for the whole server: every event loop's cache
/// sends the same bytes from the same storage, allocated to the byte (1,000 file stubs of 4 KB
/// each framed once per loop, in buffers NIO rounds up to 8 KB, held 83 MB after a feed).
final class WireResponseCacheTests: XCTestCase {
    private static let body = Data((0..<4_400).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) })

    private func rendering(id: UInt64) -> PreparedResponse {
        var prepared = PreparedResponse(
            status: 200, headers: ["Content-Type": "image/png", "Content-Length": "4400", "ETag": "\"f\(id)\""], body: Self.body, stubName: "feed"
        )
        prepared.renderID = id
        return prepared
    }

    func testABodyThatFillsItsOwnBufferIsKeptApartFromItsHead() throws {
        let body = Data(repeating: 0x42, count: 4_096)
        let prepared = PreparedResponse(status: 200, headers: ["Content-Type": "image/png", "Content-Length": "4096"], body: body, stubName: "exact")
        let wire = try WireResponse(prepared, allocator: ByteBufferAllocator())
        XCTAssertNil(wire.keepAliveResponse, "joined, head and body would take a buffer of 8 KB")
        XCTAssertEqual(wire.body.storageCapacity, 4_096, "the body's buffer holds the body and no more")
        XCTAssertEqual(Data(wire.body.readableBytesView), body)
        let head = wire.head(version: .http1_1, keepAlive: true, closing: false, allocator: ByteBufferAllocator())
        XCTAssertEqual(String(buffer: head), "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4096\r\n\r\n")
        XCTAssertEqual([0, 1, 2, 3, 4, 5, 255, 256, 257, 4_096, 4_400].map(WireResponse.held), [0, 1, 2, 4, 4, 8, 256, 256, 512, 4_096, 8_192])
    }

    func testEveryLoopSendsTheOneFramingOfARendering() throws {
        let shared = SharedWireResponses()
        let loops = [WireResponseCache(shared: shared), WireResponseCache(shared: shared)]
        let allocator = ByteBufferAllocator()
        let wires = try loops.map { try $0.response(for: rendering(id: 7), allocator: allocator) }
        let expected = Data("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4400\r\nETag: \"f7\"\r\n\r\n".utf8) + Self.body
        for wire in wires {
            let joined = try XCTUnwrap(wire.keepAliveResponse)
            XCTAssertEqual(Data(joined.readableBytesView), expected, "status line, headers and body, as sent")
            XCTAssertLessThan(joined.capacity, 2 * expected.count, "one allocation for the head and the body")
            XCTAssertEqual(
                wire.body.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) },
                joined.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } + UInt(joined.readableBytes - Self.body.count),
                "the body is a slice of the joined response"
            )
            XCTAssertEqual(Data(wire.body.readableBytesView), Self.body)
        }
        let addresses = wires.map { wire in wire.keepAliveResponse!.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } }
        XCTAssertEqual(addresses[0], addresses[1], "both loops send the same storage")

        let other = try loops[1].response(for: rendering(id: 8), allocator: allocator)
        XCTAssertTrue(Data(other.keepAliveResponse!.readableBytesView).starts(with: Data("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4400\r\nETag: \"f8\"\r\n".utf8)))
        XCTAssertNotEqual(other.keepAliveResponse!.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }, addresses[0], "another rendering, other bytes")
    }

    // MARK: - A body sent from its file

    /// A file of `count` bytes, with what the cache needs to open it.
    private func largeFile(_ count: Int) throws -> PreparedResponse.SourceFile {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.bin").path
        try Data(repeating: 7, count: count).write(to: URL(fileURLWithPath: path))
        return PreparedResponse.SourceFile(path: path, stamp: try XCTUnwrap(FileStamp(path: path)))
    }

    /// Whether `descriptor` is open in this process.
    private func isOpen(_ descriptor: CInt) -> Bool {
        fcntl(descriptor, F_GETFD) != -1
    }

    func testAFileWithNoQueuedWriteClosesWithItsLastResponse() throws {
        var file = OpenFile(try largeFile(70_000))
        let descriptor = try XCTUnwrap(file?.handle.withUnsafeFileDescriptor { $0 })
        XCTAssertTrue(isOpen(descriptor))
        file = nil
        XCTAssertFalse(isOpen(descriptor), "closed at once: nothing else holds it")
    }

    /// A client reading slowly keeps a write of the file queued after its connection moved on and
    /// the cache let the rendering go: the file must stay open for that write, then close, whether
    /// the write was done or failed.
    func testAFileStaysOpenWhileAWriteOfItIsQueuedThenCloses() throws {
        let loop = EmbeddedEventLoop()
        for outcome in ["done", "failed"] {
            var file = OpenFile(try largeFile(70_000))
            let descriptor = try XCTUnwrap(file?.handle.withUnsafeFileDescriptor { $0 })
            let written = loop.makePromise(of: Void.self)
            file?.keepOpen(until: written.futureResult)
            file = nil
            loop.run()
            XCTAssertTrue(isOpen(descriptor), "\(outcome): a queued write still sends from it")
            if outcome == "done" { written.succeed(()) } else { written.fail(ChannelError.ioOnClosedChannel) }
            XCTAssertFalse(isOpen(descriptor), "\(outcome): closed once the write let go of it")
        }
    }
}
