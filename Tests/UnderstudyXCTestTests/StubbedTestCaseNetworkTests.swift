import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Understudy
import UnderstudyURLProtocol
import UnderstudyXCTest
import XCTest

/// A `StubbedTestCase` whose session delivers on a network profile.
final class StubbedTestCaseNetworkTests: StubbedTestCase {
    override var network: NetworkProfile? { .custom(latency: .milliseconds(200), rate: .kilobitsPerSecond(8_000)) }

    func testTheSessionDeliversOnTheTestCasesProfile() async throws {
        stubs.stub(.path("/a"), response: .text("a"))
        let started = Date()
        _ = try await session.data(from: URL(string: "http://x.test/a")!)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
        XCTAssertEqual(stubs.journal.interactions.map(\.network), [.custom(latency: .milliseconds(200), rate: .kilobitsPerSecond(8_000))])
    }
}
