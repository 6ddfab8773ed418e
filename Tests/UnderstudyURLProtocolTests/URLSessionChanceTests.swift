import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `chance:` through a real URLSession: seeded, so the same requests in the same order fail the
/// same, and the journal marks the ones that drew the fault.
final class URLSessionChanceTests: XCTestCase {
    /// The request numbers that failed, out of 1,000, with `seed`, and whether the journal
    /// marked exactly those.
    private func failures(seed: UInt64) async throws -> (failed: [Int], journalAgrees: Bool) {
        let stubs = StubRegistry(seed: seed)
        stubs.stub(.path("/flaky.png"), named: "flaky", response: .text("fine").faulted(.disconnectAfterRequest, chance: 0.3))
        let session = URLSession(configuration: .stubbed(by: stubs))
        defer { session.invalidateAndCancel() }
        var failed: [Int] = []
        for index in 0..<1_000 {
            do {
                let (data, _) = try await session.data(from: url("http://x.test/flaky.png"))
                XCTAssertEqual(String(decoding: data, as: UTF8.self), "fine")
            } catch let error as URLError {
                XCTAssertEqual(error.code, .badServerResponse)
                failed.append(index)
            }
        }
        let journal = stubs.journal.interactions
        let marked = journal.enumerated().filter { $0.element.drawn == [.fault] }.map(\.offset)
        let outcomes = journal.enumerated().filter { $0.element.fault == .disconnectAfterRequest }.map(\.offset)
        return (failed, marked == failed && outcomes == failed && journal.count == 1_000)
    }

    func testTheSameSeedFailsTheSameRequestsAboutAsOftenAsItsChance() async throws {
        let first = try await failures(seed: 2_026)
        let again = try await failures(seed: 2_026)
        let other = try await failures(seed: 7)
        XCTAssertEqual(first.failed, again.failed, "the same seed, the same requests in the same order")
        XCTAssertTrue((250...350).contains(first.failed.count), "\(first.failed.count) of 1,000 failed at chance 0.3")
        XCTAssertNotEqual(first.failed, other.failed, "another seed fails other requests")
        XCTAssertTrue(first.journalAgrees && other.journalAgrees, "the journal marks exactly the requests that drew the fault")
    }

    func testAStatusDelayAndNetworkByChanceAreDrawnAndMarked() async throws {
        let stubs = StubRegistry(seed: 11)
        stubs.stub(.path("/sometimes-busy"), named: "busy", response: .text("fine").status(503, chance: 0.5))
        let session = URLSession(configuration: .stubbed(by: stubs))
        defer { session.invalidateAndCancel() }
        var statuses: [Int] = []
        for _ in 0..<40 {
            let (_, response) = try await session.data(from: url("http://x.test/sometimes-busy"))
            statuses.append((response as? HTTPURLResponse)?.statusCode ?? 0)
        }
        XCTAssertEqual(Set(statuses), [200, 503])
        let marked = stubs.journal.interactions.map { $0.drawn == [.status] }
        XCTAssertEqual(marked, statuses.map { $0 == 503 })
    }
}
