import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Clients that send their request and then shut down their side of the connection (HTTP/1.0-era
/// tools, `nc -N`, scripts): the answer must reach them however their bytes fell into the
/// server's reads, although the server flushes responses at the end of its event loop's turn.
final class HalfClosedRequestTests: XCTestCase {
    func testARequestFollowedByTheClientsShutdownIsAnsweredWhateverItsLength() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "a", response: .text("hello-END"))
        try await withServer(stubs) { server in
            // Around SwiftNIO's first read buffer, 2,048 bytes: a read that fills its buffer is
            // followed by another, which finds the end of the input at once, and SwiftNIO closes
            // the connection then, dropping what was written and not yet flushed.
            for length in [1_024, 2_047, 2_048, 2_049, 4_096] {
                let socket = try RawSocket(port: server.port)
                socket.send(Self.request(length: length))
                XCTAssertEqual(shutdown(socket.fd, Int32(SHUT_WR)), 0)
                let received = socket.read(until: "hello-END")
                XCTAssertEqual(received.ending, .satisfied, "a \(length)-byte request, then the client's FIN: \(received)")
                XCTAssertTrue(received.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "a \(length)-byte request: \(received)")
            }
            XCTAssertEqual(stubs.journal.count(matching: .path("/a.txt")), 5)
        }
    }

    func testPipelinedRequestsFillingOneReadBeforeTheClientsShutdownAreAllAnswered() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "a", response: .text("hello-END"))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            // Two requests of 1,024 bytes: together exactly the first read's buffer.
            socket.send(Self.request(length: 1_024) + Self.request(length: 1_024))
            XCTAssertEqual(shutdown(socket.fd, Int32(SHUT_WR)), 0)
            let received = socket.read(occurrences: 2, of: "hello-END")
            XCTAssertEqual(received.ending, .satisfied, "both answers before the close: \(received)")
            XCTAssertEqual(RawSocket.count(of: Array("HTTP/1.1 200 OK\r\n".utf8), in: received.bytes), 2)
        }
    }

    /// A GET of `/a.txt` exactly `length` bytes long, padded with a header.
    private static func request(length: Int) -> [UInt8] {
        let head = "GET /a.txt HTTP/1.1\r\nHost: img.test\r\nX-Pad: "
        let tail = "\r\n\r\n"
        let pad = length - head.utf8.count - tail.utf8.count
        precondition(pad > 0, "a request of \(length) bytes leaves no room for the padding")
        return Array((head + String(repeating: "p", count: pad) + tail).utf8)
    }
}
