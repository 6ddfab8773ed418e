import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Delivery in pieces on the wire (SPEC 16): each piece a burst of its own, at the stated
/// offsets, after each scan of a progressive JPEG, after each frame of an animated WebP; the
/// bytes those of the whole; a client leaving during a pause journaled `cancelled`.
final class PiecesServerTests: XCTestCase {
    /// The body's arrivals grouped into bursts: a gap of more than `gap` seconds starts a new one.
    /// Returns the body offset where each burst ended.
    static func burstEnds(_ arrivals: NetworkProfileServerTests.Arrivals, gap: TimeInterval) -> [Int] {
        var ends: [Int] = []
        var received = 0
        var last: TimeInterval?
        for arrival in arrivals {
            if let last, arrival.time - last > gap { ends.append(received) }
            received += arrival.bytes
            last = arrival.time
        }
        if received > 0 { ends.append(received) }
        return ends
    }

    func testPiecesArriveAsSeparateBurstsAtTheStatedOffsets() async throws {
        let body = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let stubs = StubRegistry()
        stubs.stub(.path("/p"), response: .data(body).inPieces(.at([1_000, 3_000]), interval: .milliseconds(300)))
        try await withServer(stubs) { server in
            let (_, arrivals) = try NetworkProfileServerTests.rawArrivals(port: server.port, path: "/p")
            XCTAssertEqual(Self.burstEnds(arrivals, gap: 0.15), [1_000, 3_000, 5_000], "\(arrivals)")
            let spread = (arrivals.last?.time ?? 0) - (arrivals.first?.time ?? 0)
            XCTAssertGreaterThanOrEqual(spread, 0.55, "two pauses of 300 ms")
            // The same bytes as served whole.
            let whole = try curl(["-o", "-", server.baseURL.appendingPathComponent("p").absoluteString]).stdout
            XCTAssertEqual(whole, body)
        }
    }

    func testAProgressiveJPEGByScansArrivesInOneBurstPerScan() async throws {
        try requireEncoding(.jpeg)
        let jpeg = try ImageTranscoder().renderSync(.generated(width: 96, height: 64, pattern: .photo), as: .jpegProgressive(quality: 80))
        let scans = Self.offsets(of: [0xFF, 0xDA], in: jpeg)
        XCTAssertGreaterThan(scans.count, 3)
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.jpg"), response: .data(jpeg).inPieces(.scans, interval: .milliseconds(250)))
        try await withServer(stubs) { server in
            let (_, arrivals) = try NetworkProfileServerTests.rawArrivals(port: server.port, path: "/photo.jpg")
            XCTAssertEqual(Self.burstEnds(arrivals, gap: 0.1), Array(scans.dropFirst()) + [jpeg.count], "one burst per SOS marker")
        }
    }

    func testAnAnimatedWebPByFramesArrivesInOneBurstPerFrame() async throws {
        try requireEncoding(.webp)
        let webp = try ImageTranscoder().renderSync(
            .animated(width: 40, height: 30, pattern: .checkerboard, frames: 4, frameDuration: .milliseconds(100)), as: .webp(quality: 80)
        )
        let stubs = StubRegistry()
        stubs.stub(.path("/spinner.webp"), response: .data(webp).inPieces(.frames, interval: .milliseconds(250)))
        try await withServer(stubs) { server in
            let (_, arrivals) = try NetworkProfileServerTests.rawArrivals(port: server.port, path: "/spinner.webp")
            let ends = Self.burstEnds(arrivals, gap: 0.1)
            XCTAssertEqual(ends.count, 4, "one burst per frame: \(ends)")
            XCTAssertEqual(Array(ends.dropLast()), Array(Self.offsets(of: Array("ANMF".utf8), in: webp).dropFirst()))
        }
    }

    func testAnAnimatedAVIFByFramesArrivesInOneBurstPerFrameInsideItsMediaData() async throws {
        try requireEncoding(.avif)
        let avif = try ImageTranscoder().renderSync(
            .animated(width: 40, height: 30, pattern: .checkerboard, frames: 4, frameDuration: .milliseconds(100)),
            as: .avif(quality: 60, speed: 8)
        )
        let stubs = StubRegistry()
        stubs.stub(.path("/spinner.avif"), response: .data(avif).inPieces(.frames, interval: .milliseconds(250)))
        try await withServer(stubs) { server in
            let (_, arrivals) = try NetworkProfileServerTests.rawArrivals(port: server.port, path: "/spinner.avif")
            let ends = Self.burstEnds(arrivals, gap: 0.1)
            XCTAssertEqual(ends.count, 4, "one burst per frame: \(ends)")
            XCTAssertEqual(ends.last, avif.count)
            // Each cut falls inside the media data (after the `mdat` box's header), where the
            // coded frames are, and they ascend: not inside the boxes that describe them.
            let mdat = try XCTUnwrap(Self.offsets(of: Array("mdat".utf8), in: avif).first)
            for cut in ends.dropLast() { XCTAssertGreaterThan(cut, mdat + 4, "cut \(cut), mdat at \(mdat)") }
            XCTAssertEqual(ends, ends.sorted())
        }
    }

    func testARangeOfABodyInPiecesIsTheRightBytes() async throws {
        let body = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let stubs = StubRegistry()
        stubs.stub(.path("/p"), response: .data(body).inPieces(.at([1_000, 3_000]), interval: .milliseconds(100)))
        try await withServer(stubs) { server in
            let ranged = try curl(["-r", "2000-3999", "-o", "-", "-w", "", server.baseURL.appendingPathComponent("p").absoluteString]).stdout
            XCTAssertEqual(ranged, body[2_000..<4_000])
        }
    }

    func testAClientLeavingDuringAPauseIsJournaledCancelledWithTheBytesSent() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/p"), response: .data(Data(count: 5_000)).inPieces(.at([1_000]), interval: .seconds(5)))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /p HTTP/1.1\r\nHost: a\r\n\r\n")
            let head = socket.read(stoppingWhen: { bytes in
                guard let end = RawSocket.firstIndex(of: Array("\r\n\r\n".utf8), in: bytes) else { return false }
                return bytes.count - end - 4 >= 1_000
            })
            XCTAssertEqual(head.ending, .satisfied)
            shutdown(socket.fd, Int32(SHUT_RDWR))
            try await stubs.journal.wait(for: .path("/p"), count: 1, timeout: .seconds(5))
            let deadline = Date().addingTimeInterval(3)
            while stubs.journal.interactions.first?.outcome == .inFlight, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let entry = try XCTUnwrap(stubs.journal.interactions.first)
            XCTAssertEqual(entry.outcome, .cancelled)
            XCTAssertEqual(entry.bodyBytesSent, 1_000)
        }
    }

    static func offsets(of pattern: [UInt8], in data: Data) -> [Int] {
        let bytes = [UInt8](data)
        guard bytes.count >= pattern.count else { return [] }
        return (0...(bytes.count - pattern.count)).filter { Array(bytes[$0..<$0 + pattern.count]) == pattern }
    }
}
