import Foundation
import Understudy
import XCTest

/// `cache:`, `ranges:` and `pause:` in stub files: what they do, and the exact issue lines a
/// mistake in them gives.
final class StubFileCachingTests: XCTestCase {
    private func load(_ text: String) throws -> (StubRegistry, StubFileSandbox) {
        let sandbox = try StubFileSandbox()
        try sandbox.write("photo.bin", Data((0..<64).map { UInt8($0) }))
        try sandbox.write("a.yaml", text)
        let stubs = StubRegistry()
        try stubs.load(from: sandbox.stubs)
        return (stubs, sandbox)
    }

    private func answer(_ stubs: StubRegistry, _ headers: HeaderFields = [:]) async -> PreparedResponse {
        let responder = StubResponder(registry: stubs, transport: .inProcess, upstream: nil)
        return await responder.answer(StubRequest(method: "GET", url: URL(string: "http://h/p")!, headers: headers)).response
    }

    func testCacheRangesAndPauseKeys() async throws {
        let (stubs, sandbox) = try load("""
        stubs:
          - request: { path: /p }
            response:
              file: photo.bin
              cache: { etag: '"v7"', lastModified: 2024-01-01T00:00:00Z, control: max-age=60 }
              ranges: false
              pause: { afterBytes: 16, gate: first-scan }
        """)
        let response = await answer(stubs)
        XCTAssertEqual(response.headers["ETag"], "\"v7\"")
        XCTAssertEqual(response.headers["Last-Modified"], "Mon, 01 Jan 2024 00:00:00 GMT")
        XCTAssertEqual(response.headers["Cache-Control"], "max-age=60")
        XCTAssertNil(response.headers["Accept-Ranges"])
        XCTAssertEqual(response.pause, BodyPause(afterBytes: 16, gate: "first-scan"))
        let ranged = await answer(stubs, ["Range": "bytes=0-1"])
        XCTAssertEqual(ranged.status, 200)
        let notModified = await answer(stubs, ["If-None-Match": "\"v7\""])
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.headers["Cache-Control"], "max-age=60")
        withExtendedLifetime(sandbox) {}
    }

    func testCacheFalseTurnsValidatorsOff() async throws {
        let (stubs, sandbox) = try load("stubs:\n  - response: { file: photo.bin, cache: false }\n")
        let response = await answer(stubs, ["If-None-Match": "*"])
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.headers["ETag"])
        XCTAssertEqual(response.headers["Accept-Ranges"], "bytes", "ranges stay on")
        withExtendedLifetime(sandbox) {}
    }

    func testMistakesNameFileLineAndPath() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
        stubs:
          - name: a
            response:
              body: x
              cache: { etag: sometimes, lastModified: last tuesday, control: "a\\u0007b", ttl: 5 }
              ranges: yes please
              pause: { afterBytes: -1 }
          - name: b
            response:
              cache: 5
              pause: { afterBytes: 10, gate: a/b }
        """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:5: stubs[0].response.cache.ttl: unknown key 'ttl'; expected one of etag, lastModified, control",
            #"Stubs/a.yaml:5: stubs[0].response.cache.etag: invalid etag 'sometimes'; expected strong, weak, none or a quoted entity tag like '"v7"'"#,
            "Stubs/a.yaml:5: stubs[0].response.cache.lastModified: invalid lastModified 'last tuesday'; expected file, none or a date like 2024-01-01T00:00:00Z",
            "Stubs/a.yaml:5: stubs[0].response.cache.control: the Cache-Control value contains the control character U+0007; expected text like max-age=60",
            "Stubs/a.yaml:6: stubs[0].response.ranges: expected true or false, found string 'yes please'",
            "Stubs/a.yaml:7: stubs[0].response.pause.afterBytes: expected an integer >= 0, found integer -1",
            "Stubs/a.yaml:10: stubs[1].response.cache: expected {etag, lastModified, control}, true or false, found integer 5",
            "Stubs/a.yaml:11: stubs[1].response.pause.gate: invalid gate name 'a/b'; expected a non-empty name without '/'",
        ])
    }
}
