import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delays, bandwidth, truncation, faults and cancellation through a real URLSession.
/// Time is asserted with generous lower bounds and by ordering, never tight upper bounds.
final class URLSessionTimingAndFaultTests: XCTestCase {
    func testDelayHoldsTheResponse() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), response: .text("late").delayed(by: .milliseconds(300)))
        let start = Date()
        let (data, _) = try await URLSession(configuration: .stubbed(by: stubs)).data(from: url("http://x.test/slow"))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.28)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "late")
        XCTAssertGreaterThanOrEqual(stubs.journal.interactions[0].duration, .milliseconds(280))
    }

    func testBandwidthDeliversTheBodyInSlicesOverTime() async {
        let body = Data((0..<64_000).map { UInt8($0 % 251) })
        let stubs = StubRegistry()
        stubs.stub(.path("/big.bin"), response: .data(body).throttled(to: .bytesPerSecond(160_000)))
        let start = Date()
        let recorder = await record(URLRequest(url: url("http://x.test/big.bin")), stubs: stubs)
        XCTAssertNil(recorder.error)
        XCTAssertEqual(recorder.data, body)
        // 160,000 B/s in slices of 16,000 bytes: four slices, the last after ~0.4 s.
        XCTAssertEqual(recorder.chunks.map(\.bytes), [16_000, 16_000, 16_000, 16_000])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.35)
        let chunks = recorder.chunks
        guard chunks.count == 4 else { return }
        XCTAssertGreaterThan(chunks[3].at.timeIntervalSince(chunks[0].at), 0.2, "slices spread over time")
    }

    func testTruncationDeliversThePrefixThenFails() async {
        let body = Data(repeating: 0xAB, count: 10_000)
        let stubs = StubRegistry()
        stubs.stub(.path("/cut"), named: "cut", response: .data(body).truncated(after: 1_024))
        let recorder = await record(URLRequest(url: url("http://x.test/cut")), stubs: stubs)
        XCTAssertEqual(recorder.response?.value(forHTTPHeaderField: "Content-Length"), "10000")
        XCTAssertEqual(recorder.data.count, 1_024)
        XCTAssertEqual(recorder.error?.code, .networkConnectionLost)
        XCTAssertEqual(recorder.error?.localizedDescription, "Understudy truncated the body after 1024 of 10000 bytes (stub \"cut\")")
        XCTAssertEqual(stubs.journal.interactions[0].outcome, .truncated(bytes: 1_024))
        XCTAssertEqual(stubs.journal.interactions[0].bodyBytesSent, 1_024)
    }

    func testTruncationBeyondTheBodySendsItAll() async {
        let stubs = StubRegistry()
        stubs.stub(.path("/whole"), response: .text("0123456789").truncated(after: 10))
        let recorder = await record(URLRequest(url: url("http://x.test/whole")), stubs: stubs)
        XCTAssertNil(recorder.error)
        XCTAssertEqual(recorder.data, Data("0123456789".utf8))
    }

    func testEachFaultMapsToItsDocumentedURLError() async {
        let cases: [(Fault, URLError.Code)] = [
            (.connectionReset, .networkConnectionLost),
            (.emptyResponse, .badServerResponse),
            (.malformedChunk, .cannotParseResponse),
            (.randomDataThenClose, .cannotParseResponse),
            (.urlError(.notConnectedToInternet), .notConnectedToInternet),
            (.urlError(.secureConnectionFailed), .secureConnectionFailed),
        ]
        for (fault, code) in cases {
            let stubs = StubRegistry()
            stubs.stub(.any, named: "f", response: .failure(fault))
            let recorder = await record(URLRequest(url: url("http://x.test/")), stubs: stubs)
            XCTAssertEqual(recorder.error?.code, code, "\(fault)")
            XCTAssertNil(recorder.response, "\(fault): no response head before the fault")
            XCTAssertEqual(stubs.journal.interactions.first?.outcome, .fault(fault))
            XCTAssertNil(stubs.journal.interactions.first?.status)
        }
    }

    func testNoResponseHoldsUntilTheClientTimesOut() async {
        let stubs = StubRegistry()
        stubs.stub(.any, response: .failure(.noResponse))
        var request = URLRequest(url: url("http://x.test/hang"))
        request.timeoutInterval = 0.5
        let start = Date()
        let recorder = await record(request, stubs: stubs)
        XCTAssertEqual(recorder.error?.code, .timedOut)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.45)
    }

    func testDelayAlsoDelaysAFault() async {
        let stubs = StubRegistry()
        stubs.stub(.any, response: .failure(.connectionReset).delayed(by: .milliseconds(250)))
        let start = Date()
        let recorder = await record(URLRequest(url: url("http://x.test/")), stubs: stubs)
        XCTAssertEqual(recorder.error?.code, .networkConnectionLost)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.23)
    }

    func testCancellingStopsTheTimersAndIsJournaled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/forever"), response: .text("never").delayed(by: .seconds(30)))
        let recorder = TaskRecorder()
        let session = URLSession(configuration: .stubbed(by: stubs), delegate: recorder, delegateQueue: nil)
        let task = session.dataTask(with: url("http://x.test/forever"))
        let start = Date()
        task.resume()
        try await stubs.journal.wait(for: .path("/forever"), count: 1, timeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await recorder.wait()
        XCTAssertEqual(recorder.error?.code, .cancelled)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the 30 s delay did not run out")
        // The loader notices the cancellation on its timer and journals it.
        for _ in 0..<100 where stubs.journal.interactions[0].outcome != .cancelled {
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertEqual(stubs.journal.interactions[0].outcome, .cancelled)
        session.invalidateAndCancel()
    }
}
