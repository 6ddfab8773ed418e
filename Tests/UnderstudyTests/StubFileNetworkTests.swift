import Foundation
import Understudy
import XCTest

/// `network:` and `pieces:` under `response:` in stub files (SPEC 16).
final class StubFileNetworkTests: XCTestCase {
    func testNetworkAndPiecesLoad() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
            stubs:
              - request: { path: /slow }
                response: { body: hello, network: slow-3g, delay: 10ms }
              - request: { path: /custom }
                response: { body: hello, network: { latency: 300ms, rate: 800kbit/s } }
              - request: { path: /pieces }
                response: { body: "0123456789", pieces: { at: [2, 6], interval: 150ms } }
              - request: { path: /scans }
                response: { body: x, pieces: { by: scans } }
            """)
        let stubs = StubRegistry()
        try stubs.load(from: sandbox.stubs)
        let slow = try await stubs.answer("http://h/slow")
        XCTAssertEqual(slow.network, .slow3G)
        XCTAssertEqual(slow.delay, .milliseconds(10), "the stub's own delay wins over its profile's latency")
        XCTAssertEqual(slow.bandwidth, NetworkProfile.slow3G.rate)
        let custom = try await stubs.answer("http://h/custom")
        XCTAssertEqual(custom.network, .custom(latency: .milliseconds(300), rate: .bytesPerSecond(100_000)))
        XCTAssertEqual(custom.delay, .milliseconds(300))
        let pieces = try await stubs.answer("http://h/pieces")
        XCTAssertEqual(pieces.pieces, PreparedResponse.Pieces(offsets: [2, 6], interval: .milliseconds(150)))
        XCTAssertEqual(stubs.stubs.count, 4)
    }

    func testAnUnknownProfileNamesTheFileLineAndTheKnownNames() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
            stubs:
              - response: { body: x }
              - response:
                  network: 5g
            """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:4: stubs[1].response.network: unknown network profile '5g'; expected one of slow-3g, slow-4g, fast-4g, gprs, "
                + "regular-2g, good-2g, regular-3g, good-3g, regular-4g, dsl, wifi, or {latency: 300ms, rate: 800kbit/s}",
        ])
    }

    func testBadPiecesAndCustomProfilesSayWhatWasExpected() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.json", """
            {"stubs": [
              {"response": {"pieces": {"by": "lines"}}},
              {"response": {"pieces": {"at": [], "interval": "1s"}}},
              {"response": {"pieces": {"interval": "1s"}}},
              {"response": {"pieces": {"at": [10], "by": "scans"}}},
              {"response": {"network": {"latency": "fast"}}}
            ]}
            """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.json:2: stubs[0].response.pieces.by: unknown cut 'lines'; expected scans (a progressive JPEG) or frames (an animated WebP, GIF or AVIF)",
            "Stubs/a.json:3: stubs[1].response.pieces.at: expected a list of byte offsets like [1024, 8192], found a list",
            "Stubs/a.json:4: stubs[2].response.pieces: missing key 'at' or 'by'; expected {at: [offsets], interval: 200ms} or {by: scans | frames, interval: 200ms}",
            "Stubs/a.json:5: stubs[3].response.pieces.by: found both 'at' and 'by'; expected one of them",
            "Stubs/a.json:6: stubs[4].response.network.latency: invalid duration 'fast'; expected a number with a unit, like 300ms or 1.5s",
        ])
    }
}
