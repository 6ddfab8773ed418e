import Foundation
import Understudy
import UnderstudyClient
import UnderstudyServer
import UnderstudyXCTest
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A UI test's set-up in one process: a server started by the test, driven through its admin
/// API by `StubServerClient` as it would be from another process.
final class ServerClientTests: XCTestCase {
    func testTheClientStubsAServerAndReadsItsJournal() async throws {
        let server = try await StubServer.start(serving: StubRegistry())
        let client = StubServerClient(baseURL: server.baseURL)
        try await client.stub(.path("/avatar.png"), named: "avatar", response: .image(.generated(width: 4, height: 4, pattern: .checkerboard), as: .png))
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("avatar.png"))
        XCTAssertEqual(data.prefix(8), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        XCTAssertRequested(try await client.journal(), .path("/avatar.png"), times: 1)
        do {
            try await client.stub(.custom("isRetina") { _ in true }, response: .text("x"))
            XCTFail("a closure crossed the wire")
        } catch let error as StubServerClientError {
            XCTAssertTrue(error.description.contains(#".custom("isRetina") cannot cross the wire"#), error.description)
        }
        try await server.stop()
    }
}
