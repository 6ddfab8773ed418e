import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A throttled body arrives in slices spread over time, on both transports: not held back and
/// then delivered at once (which a total-time check alone would let pass), and never ahead of
/// the rate. 128,000 bytes at 160,000 B/s, in slices of 16,000 bytes (100 ms), take about
/// 0.7 s from the first slice to the last; a client starved of CPU may take two slices in one
/// read, so at least half of the eight must arrive apart.
final class ConformanceBandwidthTests: XCTestCase {
    static let size = 128_000
    static let rate = 160_000
    static let slice = DeliveryPlan.maximumSliceSize

    /// What is wrong with `arrivals` for a throttled body, or `nil` when they show pacing.
    static func pacingProblem(_ arrivals: [(time: TimeInterval, bytes: Int)]) -> String? {
        let total = arrivals.reduce(0) { $0 + $1.bytes }
        guard total == size else { return "\(total) bytes arrived, not \(size)" }
        guard arrivals.count >= 4 else { return "the body came in \(arrivals.count) pieces, expected about \(size / slice)" }
        let first = arrivals[0].time
        let spread = arrivals[arrivals.count - 1].time - first
        guard spread >= 0.5 else { return "first to last byte took \(spread) s; at \(rate) B/s it takes about 0.7 s" }
        var received = 0
        for arrival in arrivals {
            received += arrival.bytes
            // One slice may come at once at the start; after that no faster than the rate
            // (with a slice of slack for timer granularity).
            let allowed = Int(Double(rate) * (arrival.time - first)) + 2 * slice
            if received > allowed {
                return "\(received) bytes had arrived \(arrival.time - first) s after the first; the rate allows \(allowed)"
            }
        }
        let halfway = arrivals.filter { $0.time - first <= spread / 2 }.reduce(0) { $0 + $1.bytes }
        guard halfway < size else { return "the whole body had arrived by half time" }
        return nil
    }

    /// The check itself: it passes paced arrivals and fails a body held back then sent at once,
    /// one sent at once straight away, and one that runs ahead of the rate.
    func testThePacingCheckTellsSlicesFromABurst() {
        let paced = (0..<8).map { (time: 0.05 + Double($0) * 0.1, bytes: Self.slice) }
        XCTAssertNil(Self.pacingProblem(paced))
        XCTAssertNotNil(Self.pacingProblem([(time: 0.8, bytes: Self.size)]), "held back, then all at once")
        XCTAssertNotNil(Self.pacingProblem((0..<8).map { (time: 0.001 * Double($0), bytes: Self.slice) }), "all at once, in pieces")
        XCTAssertNotNil(Self.pacingProblem([(time: 0, bytes: 16_000), (time: 0.05, bytes: 64_000), (time: 0.6, bytes: 24_000), (time: 0.7, bytes: 24_000)]),
                        "ahead of the rate")
    }

    func testAThrottledBodyReachesURLSessionsDelegateInSlicesOnBothTransports() async throws {
        for transport in TransportPair.Transport.allCases {
            let stubs = StubRegistry()
            stubs.stub(.path("/big"), named: "big", response: .data(Data(count: Self.size)).throttled(to: .bytesPerSecond(Self.rate)))
            let server = try await StubServer.start(serving: stubs)
            let configuration: URLSessionConfiguration = transport == .inProcess ? .stubbed(by: stubs) : .ephemeral
            let request = URLRequest(url: server.baseURL.appendingPathComponent("big"), timeoutInterval: 10)
            let (status, arrivals, error) = await ArrivalRecorder.load(request, configuration: configuration)
            let journal = await TransportPair.settledJournal(stubs)
            try await server.stop()
            XCTAssertNil(error, "\(transport)")
            XCTAssertEqual(status, 200, "\(transport)")
            if let problem = Self.pacingProblem(arrivals.map { ($0.time, $0.bytes) }) {
                XCTFail("\(transport): \(problem); arrivals: \(arrivals.map { String(format: "%.3f s %d B", $0.time, $0.bytes) })")
            }
            XCTAssertEqual(journal.map(\.bodyBytesSent), [Self.size], "\(transport)")
            XCTAssertEqual(journal.map(\.outcome), ["completed"], "\(transport)")
        }
    }

    /// The same over a raw socket, where nothing in a client library can buffer: the server
    /// writes the slices apart in time.
    func testTheServerWritesTheSlicesApartInTime() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/big"), response: .data(Data(count: Self.size)).throttled(to: .bytesPerSecond(Self.rate)))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /big HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let start = Date()
            var arrivals: [(time: TimeInterval, bytes: Int)] = []
            var received = [UInt8]()
            var ending = RawSocket.Ending.timedOut
            while true {
                let piece = socket.read(stoppingWhen: { !$0.isEmpty })
                arrivals.append((Date().timeIntervalSince(start), piece.bytes.count))
                received += piece.bytes
                if piece.ending != .satisfied {
                    ending = piece.ending
                    break
                }
            }
            XCTAssertEqual(ending, .closed, "Connection: close")
            let headEnd = try XCTUnwrap(RawSocket.firstIndex(of: Array("\r\n\r\n".utf8), in: received))
            // Count body bytes only: drop the head from the arrivals it came in.
            var headLeft = headEnd + 4
            var bodyArrivals: [(time: TimeInterval, bytes: Int)] = []
            for arrival in arrivals {
                let head = min(headLeft, arrival.bytes)
                headLeft -= head
                if arrival.bytes - head > 0 { bodyArrivals.append((arrival.time, arrival.bytes - head)) }
            }
            if let problem = Self.pacingProblem(bodyArrivals) {
                XCTFail("\(problem); arrivals: \(bodyArrivals.map { String(format: "%.3f s %d B", $0.time, $0.bytes) })")
            }
        }
    }
}
