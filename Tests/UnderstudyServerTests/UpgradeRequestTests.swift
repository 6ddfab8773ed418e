import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// A request asking to upgrade to h2c (`Upgrade: h2c`, `Connection: Upgrade, HTTP2-Settings`),
/// as java.net.http's client and `curl --http2` send on every `http://` connection, is answered
/// over HTTP/1.1 and the connection goes on serving the requests that follow.
final class UpgradeRequestTests: XCTestCase {
    func testRequestsAfterAnUpgradeRequestOnTheSameConnectionAreAnswered() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/photo"), named: "photo", response: .text("ok"))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            let started = Date()
            let result = try curl([
                "--http2", "--write-out", "%{http_code} %{http_version} %{num_connects}\n",
                "--output", "/dev/null", base + "/photo/1", "--output", "/dev/null", base + "/photo/2",
                "--output", "/dev/null", base + "/photo/3",
            ], maxTime: 5)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text, "200 1.1 1\n200 1.1 0\n200 1.1 0\n", "one connection, three answers over HTTP/1.1")
            XCTAssertLessThan(Date().timeIntervalSince(started), 3, "no request waited for a timeout")
            XCTAssertEqual(stubs.journal.interactions.map(\.request.path), ["/photo/1", "/photo/2", "/photo/3"])
        }
    }
}
