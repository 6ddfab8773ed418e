import Foundation
import NIOCore
import Understudy
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

    func testEveryLoopSendsTheOneFramingOfARendering() throws {
        let shared = SharedWireResponses()
        let loops = [WireResponseCache(shared: shared), WireResponseCache(shared: shared)]
        let allocator = ByteBufferAllocator()
        let wires = try loops.map { try $0.response(for: rendering(id: 7), allocator: allocator) }
        let expected = Data("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4400\r\nETag: \"f7\"\r\n\r\n".utf8) + Self.body
        for wire in wires {
            let joined = try XCTUnwrap(wire.keepAliveResponse)
            XCTAssertEqual(Data(joined.readableBytesView), expected, "status line, headers and body, as sent")
            XCTAssertEqual(joined.capacity, expected.count, "no spare capacity kept for the server's life")
            XCTAssertEqual(Data(wire.body.readableBytesView), Self.body)
        }
        let addresses = wires.map { wire in wire.keepAliveResponse!.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } }
        XCTAssertEqual(addresses[0], addresses[1], "both loops send the same storage")

        let other = try loops[1].response(for: rendering(id: 8), allocator: allocator)
        XCTAssertTrue(Data(other.keepAliveResponse!.readableBytesView).starts(with: Data("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4400\r\nETag: \"f8\"\r\n".utf8)))
        XCTAssertNotEqual(other.keepAliveResponse!.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }, addresses[0], "another rendering, other bytes")
    }
}
