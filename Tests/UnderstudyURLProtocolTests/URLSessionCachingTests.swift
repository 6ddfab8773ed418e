import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// In-process caching, ranges, gates and cancellation through a real `URLSession`.
final class URLSessionCachingTests: XCTestCase {
    private let body = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    func testAURLCacheRevalidatesThroughTheStubsAndHandsBackTheCachedBody() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(body, contentType: "image/png").cache(CachePolicy(control: "no-cache")))
        let configuration = URLSessionConfiguration.stubbed(by: stubs)
        configuration.urlCache = URLCache(memoryCapacity: 10_000_000, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .useProtocolCachePolicy
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let request = URLRequest(url: url("http://img.example.com/photo.png"))

        let (first, firstResponse, firstError) = await completionDataTask(session, request)
        XCTAssertNil(firstError)
        XCTAssertEqual(first, body)
        let etag = try XCTUnwrap(firstResponse?.value(forHTTPHeaderField: "ETag"))

        for _ in 0..<2 {
            let (again, response, error) = await completionDataTask(session, request)
            XCTAssertNil(error)
            XCTAssertEqual(response?.statusCode, 200, "the caller sees the cached 200")
            XCTAssertEqual(again, body, "with the cached body")
            XCTAssertEqual(response?.value(forHTTPHeaderField: "ETag"), etag)
        }
        let journal = stubs.journal.interactions
        XCTAssertEqual(journal.map { $0.status ?? 0 }, [200, 304, 304], "revalidated through the stubs")
        XCTAssertEqual(journal.map(\.bodyBytesSent), [body.count, 0, 0])
        XCTAssertNil(journal[0].request.headers["If-None-Match"])
        XCTAssertEqual(journal[1].request.headers["If-None-Match"], etag)
        XCTAssertNotNil(journal[1].request.headers["If-Modified-Since"])

        // A changed stub answers the revalidation with the new 200, which replaces the entry.
        let changed = Data("changed".utf8)
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(changed, contentType: "image/png"))
        let (fresh, freshResponse, _) = await completionDataTask(session, request)
        XCTAssertEqual(fresh, changed)
        XCTAssertEqual(freshResponse?.statusCode, 200)
        XCTAssertEqual(stubs.journal.interactions.last?.status, 200)
        // Skipping the cache sends no validators.
        var reload = request
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        _ = await completionDataTask(session, reload)
        XCTAssertNil(stubs.journal.interactions.last?.request.headers["If-None-Match"])
    }

    func testAStubbedSessionHasNoCacheUnlessGivenOne() async {
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(body, contentType: "image/png"))
        let session = URLSession(configuration: .stubbed(by: stubs))
        defer { session.finishTasksAndInvalidate() }
        for _ in 0..<2 { _ = await completionDataTask(session, URLRequest(url: url("http://img.example.com/photo.png"))) }
        XCTAssertEqual(stubs.journal.interactions.map { $0.status ?? 0 }, [200, 200])
        XCTAssertNil(stubs.journal.interactions.last?.request.headers["If-None-Match"])
    }

    func testRangesInProcessAreTheBytesTheServerWouldSend() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(body, contentType: "image/png"))
        let session = URLSession(configuration: .stubbed(by: stubs))
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url("http://img.example.com/photo.png"))
        request.setValue("bytes=100-199", forHTTPHeaderField: "Range")
        let (data, response, _) = await completionDataTask(session, request)
        XCTAssertEqual(response?.statusCode, 206)
        XCTAssertEqual(response?.value(forHTTPHeaderField: "Content-Range"), "bytes 100-199/40000")
        XCTAssertEqual(data, body.subdata(in: 100..<200))
        request.setValue("bytes=50000-", forHTTPHeaderField: "Range")
        let (_, unsatisfiable, _) = await completionDataTask(session, request)
        XCTAssertEqual(unsatisfiable?.statusCode, 416)
    }

    func testAGateHoldsTheBodyInProcessAndCancellingTheTaskJournalsCancelled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/held.png"), named: "held", response: .data(body, contentType: "image/png").paused(afterBytes: 1_000, gate: "g"))
        let gate = stubs.gate("g")

        // Released: the delegate gets the first 1,000 bytes, then the rest.
        let recorder = TaskRecorder()
        let session = URLSession(configuration: .stubbed(by: stubs), delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: URLRequest(url: url("http://img.example.com/held.png"))).resume()
        try await gate.reached(count: 1)
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertEqual(recorder.data.count, 1_000, "held after the first 1,000 bytes")
        XCTAssertEqual(stubs.journal.interactions.first?.outcome, .inFlight)
        gate.release()
        await recorder.wait()
        XCTAssertEqual(recorder.data, body)
        XCTAssertEqual(stubs.journal.interactions.first?.outcome, .completed)

        // Held again, then the task is cancelled: the journal says cancelled, with the bytes sent.
        gate.close()
        let second = TaskRecorder()
        let secondSession = URLSession(configuration: .stubbed(by: stubs), delegate: second, delegateQueue: nil)
        defer { secondSession.finishTasksAndInvalidate() }
        let task = secondSession.dataTask(with: URLRequest(url: url("http://img.example.com/held.png")))
        task.resume()
        try await gate.reached(count: 2)
        task.cancel()
        await second.wait()
        XCTAssertEqual(second.error?.code, .cancelled)
        for _ in 0..<500 where stubs.journal.interactions.last?.outcome != .cancelled {
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTAssertEqual(stubs.journal.interactions.last?.outcome, .cancelled)
        XCTAssertEqual(stubs.journal.interactions.last?.bodyBytesSent, 1_000)
        XCTAssertEqual(gate.waitingCount, 0)
    }
}
