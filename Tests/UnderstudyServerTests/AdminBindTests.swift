import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// Only a numeric loopback address or `localhost` may be bound without an admin token: a host
/// name that merely starts like one is refused before anything is bound.
final class AdminBindTests: XCTestCase {
    func testHostNamesThatLookLikeLoopbackNeedAToken() async throws {
        for host in ["127.0.0.1.nip.io", "127.example.com", "0.0.0.0", "::", "::ffff:10.0.0.1", "10.0.0.1"] {
            do {
                let server = try await StubServer.start(serving: StubRegistry(), host: host)
                try await server.stop()
                XCTFail("\(host): expected a refusal")
            } catch {
                XCTAssertEqual(
                    "\(error)",
                    "binding \(host) exposes the admin API beyond this machine; pass an admin token (--admin-token) to bind a non-loopback host"
                )
            }
        }
    }

    func testLoopbackAddressesNeedNoToken() async throws {
        var hosts = ["127.0.0.1", "localhost"]
        #if os(Linux)
        hosts.append("127.0.0.2")  // all of 127.0.0.0/8 is bound to lo on Linux, only 127.0.0.1 on macOS
        #endif
        for host in hosts {
            let server = try await StubServer.start(serving: StubRegistry(), host: host)
            let health = try curl(["--write-out", "%{http_code}", "--output", "/dev/null", server.baseURL.absoluteString + "/__admin/health"])
            try await server.stop()
            XCTAssertEqual(health.text, "200", host)
        }
    }
}
