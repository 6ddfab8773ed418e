import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Understudy
import UnderstudyURLProtocol
import XCTest

// The example of the "Caching, ranges and gates" article (Sources/Understudy/Understudy.docc),
// verbatim: if this stops compiling or passing, the article is wrong.
final class ReadmeCachingTests: XCTestCase {
    func testTheSecondLoadRevalidatesAndAHalfLoadedImageCanBeSeen() async throws {
        let stubs = StubRegistry()
        let photo = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        stubs.stub(.path("/photo.png"), response: .data(photo, contentType: "image/png").cache(CachePolicy(control: "no-cache")))
        stubs.stub(.path("/progressive.jpg"), response: .data(photo, contentType: "image/jpeg").paused(afterBytes: 2048, gate: "first-scan"))

        // A session with a URLCache: the second load sends If-None-Match, the stub answers 304,
        // and the caller gets the cached 200 and body.
        let configuration = URLSessionConfiguration.stubbed(by: stubs)
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let session = URLSession(configuration: configuration)
        for _ in 0..<2 {
            let (data, response) = try await session.data(from: URL(string: "https://img.example.com/photo.png")!)
            XCTAssertEqual(data, photo)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.status), [200, 304])

        // Ranges, as a resuming client asks for them.
        var resume = URLRequest(url: URL(string: "https://img.example.com/photo.png")!)
        resume.setValue("bytes=4000-", forHTTPHeaderField: "Range")
        let (rest, partial) = try await session.data(for: resume)
        XCTAssertEqual((partial as? HTTPURLResponse)?.statusCode, 206)
        XCTAssertEqual(photo.prefix(4000) + rest, photo)

        // A gate: the body stops after 2048 bytes until released.
        let gate = stubs.gate("first-scan")
        let load = Task { try await session.data(from: URL(string: "https://img.example.com/progressive.jpg")!) }
        try await gate.reached(count: 1)            // 2048 bytes are out, the rest is held
        XCTAssertEqual(stubs.journal.inFlightCount, 1)
        gate.release()
        let (whole, _) = try await load.value
        XCTAssertEqual(whole, photo)
    }
}
