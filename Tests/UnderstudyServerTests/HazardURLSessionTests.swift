import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache hazards driven by URLSession with a `URLCache`, a client nobody here wrote: the
/// request numbers it shows, in order, and that nothing cut short is kept.
final class HazardURLSessionTests: XCTestCase {
    private func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 8 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .useProtocolCachePolicy
        return URLSession(configuration: configuration)
    }

    /// The request number the image shows, or `nil` when it is not one of the numbered images.
    private func number(in data: Data) -> Int? {
        guard let image = try? RGBAImage(decoding: data) else { return nil }
        return (1...20).first { Hazard.numberedImage($0) == image }
    }

    func testURLSessionWithACacheShowsTheNewestNumberForEachChangingHazard() async throws {
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        try await withServer(registry) { server in
            let session = session()
            for name in ["changes-no-cache", "changes-max-age-0", "changes-no-store", "changes-must-revalidate", "changes-expired"] {
                let url = server.baseURL.appendingPathComponent("hazards/\(name)")
                var seen: [Int?] = []
                for _ in 1...3 {
                    let (data, _) = try await session.data(from: url)
                    seen.append(number(in: data))
                }
                XCTAssertEqual(seen, [1, 2, 3], "\(name): URLSession showed \(seen)")
            }
        }
    }

    func testURLSessionCachesNothingCutShortAndShowsTheWholeImageNext() async throws {
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        try await withServer(registry) { server in
            let session = session()
            let url = server.baseURL.appendingPathComponent("hazards/truncated-then-whole")
            do {
                let (data, _) = try await session.data(from: url)
                XCTFail("the first answer is cut short, yet URLSession returned \(data.count) bytes")
            } catch {}
            let (data, response) = try await session.data(from: url)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
            XCTAssertEqual(number(in: data), 2)
        }
    }

    // MARK: In-process: the same client, its requests answered by the stub protocol

    private func inProcessSession(_ registry: StubRegistry) -> URLSession {
        let configuration = URLSessionConfiguration.stubbed(by: registry)
        configuration.urlCache = URLCache(memoryCapacity: 8 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .useProtocolCachePolicy
        return URLSession(configuration: configuration)
    }

    func testInProcessURLSessionWithACacheShowsTheNewestNumberForEachChangingHazard() async throws {
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        let session = inProcessSession(registry)
        defer { session.finishTasksAndInvalidate() }
        for name in ["changes-no-cache", "changes-max-age-0", "changes-no-store", "changes-must-revalidate", "changes-expired"] {
            let url = URL(string: "http://img.example.com/hazards/\(name)")!
            var seen: [Int?] = []
            for _ in 1...3 {
                let (data, _) = try await session.data(from: url)
                seen.append(number(in: data))
            }
            XCTAssertEqual(seen, [1, 2, 3], "\(name): URLSession showed \(seen)")
        }
        XCTAssertEqual(registry.journal.interactions.count, 15, "every request reached the stubs")
    }

    func testInProcessURLSessionCachesNothingCutShortAndShowsTheWholeImageNext() async throws {
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        let session = inProcessSession(registry)
        defer { session.finishTasksAndInvalidate() }
        let url = URL(string: "http://img.example.com/hazards/truncated-then-whole")!
        do {
            let (data, _) = try await session.data(from: url)
            XCTFail("the first answer is cut short, yet URLSession returned \(data.count) bytes")
        } catch {}
        let (data, response) = try await session.data(from: url)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(number(in: data), 2)
        XCTAssertEqual(registry.journal.interactions.count, 2)
    }
}
