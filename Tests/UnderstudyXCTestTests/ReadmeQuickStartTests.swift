import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Understudy
import UnderstudyURLProtocol
import UnderstudyXCTest
import XCTest

// The README's quick start, verbatim: if this stops compiling or passing, the README is wrong.
final class AvatarTests: XCTestCase {
    func testLoadsTheAvatarAndFollowsTheRedirect() async throws {
        let stubs = StubRegistry()
        stubs.stub(.host("img.example.com") && .path("/old/avatar.png"), response: .redirect(to: "/avatar.png", status: 301))
        stubs.stub(.host("img.example.com") && .path("/avatar.png"), named: "avatar",
                   response: .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])).delayed(by: .milliseconds(50)))
        stubs.stub(.pathExtension("webp"), response: .failure(.connectionReset))

        // The code under test gets a session; every request it makes is answered by `stubs`.
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, response) = try await session.data(from: URL(string: "https://img.example.com/old/avatar.png")!)

        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(data.count, 8)
        XCTAssertRequested(stubs, .path("/avatar.png"), times: 1)
        XCTAssertRequestOrder(stubs, [.path("/old/avatar.png"), .path("/avatar.png")])
        XCTAssertNoUnmatchedRequests(stubs)
    }
}

/// `StubbedTestCase` gives each test fresh stubs and a session.
final class StubbedTestCaseTests: StubbedTestCase {
    func testSessionIsAnsweredByTheStubs() async throws {
        stubs.stub(.path("/hello"), response: .text("hi"))
        let (data, _) = try await session.data(from: URL(string: "http://x.test/hello")!)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "hi")
        XCTAssertRequested(stubs, .path("/hello"), times: 1)
    }
}
