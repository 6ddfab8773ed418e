import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// A listener that cannot be bound is refused in words that say why and what to do, not in
/// SwiftNIO's own terms.
final class ListenFailureTests: XCTestCase {
    func testAPortInUseIsNamedWithWhatToDo() async throws {
        let first = try await StubServer.start(serving: StubRegistry())
        do {
            let second = try await StubServer.start(serving: StubRegistry(), port: first.port)
            try await second.stop()
            XCTFail("port \(first.port) was bound twice")
        } catch {
            XCTAssertEqual(
                "\(error)",
                "cannot listen on 127.0.0.1:\(first.port): \(String(cString: strerror(EADDRINUSE))): something else listens there; "
                    + "use another port, or 0 for any free port"
            )
        }
        try await first.stop()
    }

    func testAnAddressOfNoInterfaceIsNamed() async throws {
        // TEST-NET-1 (RFC 5737): no machine has it, so binding fails at once and nothing is sent.
        var configuration = StubServer.Configuration()
        configuration.adminToken = "secret"
        do {
            let server = try await StubServer.start(serving: StubRegistry(), host: "192.0.2.7", configuration: configuration)
            try await server.stop()
            XCTFail("192.0.2.7 was bound")
        } catch {
            XCTAssertEqual(
                "\(error)",
                "cannot listen on 192.0.2.7:0: \(String(cString: strerror(EADDRNOTAVAIL))): no network interface of this machine has that address"
            )
        }
    }
}
