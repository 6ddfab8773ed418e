import Foundation
import Understudy
import UnderstudyImages
import UnderstudySupport
import UnderstudyServer
import XCTest

/// `GET /__admin/gates` and `POST /__admin/gates/{name}/release|close`, without sockets.
final class AdminGatesTests: XCTestCase {
    private func send(_ admin: AdminAPI, _ method: String, _ target: String) async -> (status: Int, text: String) {
        let response = await admin.handle(AdminRequest(method: method, target: target))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    func testGatesAreListedReleasedAndClosed() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        let empty = await send(admin, "GET", "/__admin/gates")
        XCTAssertEqual(empty.text, #"{"gates":[]}"# + "\n")

        // A held body, as a transport would hold it.
        let gate = registry.gate("first-scan")
        let resumed = LockedState(false)
        XCTAssertNotNil(gate.arrive(bytesSent: 2048) { resumed.withLock { $0 = true } })
        let held = await send(admin, "GET", "/__admin/gates")
        XCTAssertEqual(held.text, #"{"gates":[{"bytesSent":2048,"name":"first-scan","open":false,"reached":1,"waiting":1}]}"# + "\n")

        let released = await send(admin, "POST", "/__admin/gates/first-scan/release")
        XCTAssertEqual(released.status, 200)
        XCTAssertEqual(released.text, #"{"bytesSent":0,"name":"first-scan","open":true,"reached":1,"waiting":0}"# + "\n")
        XCTAssertTrue(resumed.withLock { $0 })
        XCTAssertNil(gate.arrive(bytesSent: 0) {}, "an open gate lets bodies pass")

        let closed = await send(admin, "POST", "/__admin/gates/first-scan/close")
        XCTAssertEqual(closed.text, #"{"bytesSent":0,"name":"first-scan","open":false,"reached":2,"waiting":0}"# + "\n")
        // A gate not named before is made, so a test may open one before any body reaches it.
        let later = await send(admin, "POST", "/__admin/gates/later/release")
        XCTAssertEqual(later.status, 200)
        XCTAssertTrue(registry.gate("later").isOpen)
    }

    func testWrongMethodsAndActionsAreRefused() async {
        let admin = AdminAPI(registry: StubRegistry(), token: nil)
        let wrongMethod = await send(admin, "GET", "/__admin/gates/g/release")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertTrue(wrongMethod.text.contains("expected POST"), wrongMethod.text)
        let unknown = await send(admin, "POST", "/__admin/gates/g/open")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.text, #"{"error":"no admin endpoint /__admin/gates/g/open; expected /__admin/gates/{name}/release or /__admin/gates/{name}/close"}"# + "\n")
        let list = await send(admin, "POST", "/__admin/gates")
        XCTAssertEqual(list.status, 405)
    }

    func testReachedWaitsForBodiesAndTimesOutWithAMessage() async throws {
        let gate = StubRegistry().gate("g")
        async let reached: Void = gate.reached(count: 2, timeout: .seconds(5))
        _ = gate.arrive(bytesSent: 1) {}
        _ = gate.arrive(bytesSent: 1) {}
        try await reached
        do {
            try await gate.reached(count: 3, timeout: .milliseconds(50))
            XCTFail("expected a timeout")
        } catch let error as GateTimeoutError {
            XCTAssertEqual(error.description, #"timed out after 50ms waiting for 3 bodies to reach gate "g"; 2 did"#)
        }
    }
}
