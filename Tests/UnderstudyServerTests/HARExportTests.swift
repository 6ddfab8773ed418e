import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// `GET /__admin/requests.har` as a client downloads it: measured phases and the bodies of
/// canned answers, which the registry holds so the journal keeps no copy.
final class HARExportTests: XCTestCase {
    private func har(_ server: StubServer) throws -> [[String: Any]] {
        let result = try curl(["\(server.baseURL.absoluteString)/__admin/requests.har"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let log = try XCTUnwrap(document["log"] as? [String: Any])
        return try XCTUnwrap(log["entries"] as? [[String: Any]])
    }

    func testTimingsAreMeasuredPhasesAndCannedBodiesAreIncluded() async throws {
        let stubs = StubRegistry()
        let paced = String(repeating: "p", count: 2_000)
        stubs.stub(.path("/paced"), named: "paced", response: .text(paced).delayed(by: .milliseconds(150)).throttled(to: .bytesPerSecond(5_000)))
        stubs.stub(.path("/made")) { _ in .text("made by a closure") }
        try await withServer(stubs) { server in
            let paced = try curl(["-d", String(repeating: "u", count: 10_000), "\(server.baseURL.absoluteString)/paced"])
            XCTAssertEqual(paced.text.count, 2_000, paced.stderr)
            _ = try curl(["\(server.baseURL.absoluteString)/made"])

            let entries = try har(server)
            XCTAssertEqual(entries.count, 2)
            let timings = try XCTUnwrap(entries[0]["timings"] as? [String: Double])
            let time = try XCTUnwrap(entries[0]["time"] as? Double)
            // The stub's delay is waiting; 2,000 bytes at 5,000 B/s take about 400 ms to receive.
            XCTAssertGreaterThanOrEqual(timings["wait"] ?? 0, 140, "\(timings)")
            XCTAssertLessThan(timings["wait"] ?? 0, 380, "\(timings)")
            XCTAssertGreaterThanOrEqual(timings["receive"] ?? 0, 300, "\(timings)")
            XCTAssertGreaterThanOrEqual(timings["send"] ?? -1, 0, "\(timings)")
            XCTAssertEqual((timings["send"] ?? 0) + (timings["wait"] ?? 0) + (timings["receive"] ?? 0), time, accuracy: 2, "the phases add up to the whole")

            let content = try XCTUnwrap((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
            XCTAssertEqual(content["text"] as? String, String(repeating: "p", count: 2_000), "a canned answer's body is in the HAR")
            let made = try XCTUnwrap((entries[1]["response"] as? [String: Any])?["content"] as? [String: Any])
            XCTAssertNil(made["text"], "a closure's body is kept only when the journal keeps bodies")
            XCTAssertEqual(made["size"] as? Int, 17)
        }
    }
}
