import Foundation
import XCTest

/// `proxyBaseUrl` with `additionalProxyRequestHeaders`, and `--proxy-all`: WireMock 2.35.1 and
/// `understudy serve` both forward to an origin (a mapping of WireMock's own that answers only
/// when the added header arrives), and curl gets the same status, body and Content-Type.
final class WireMockProxyDifferentialTests: XCTestCase {
    static let root = LockedServers.temporaryRoot("wiremock-proxy")

    private static let servers = LockedServers(root: root)

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    typealias Probe = WireMockDifferentialTests.Probe

    func testProxyBaseUrlForwardsWithTheAdditionalHeaders() throws {
        let ports = try Self.servers.ports()
        let origin = #"""
            {"request": {"urlPathPattern": "/origin/proxied/[a-z]+", "headers": {"X-Token": {"equalTo": "abc"}}},
             "response": {"status": 203, "body": "from the origin", "headers": {"Content-Type": "text/plain"}}}
            """#
        XCTAssertEqual(try post(origin, port: ports.wireMock), "201")
        let proxy = #"""
            {"request": {"urlPathPattern": "/proxied/.*"},
             "response": {"proxyBaseUrl": "http://127.0.0.1:\#(ports.wireMock)/origin", "additionalProxyRequestHeaders": {"X-Token": "abc"}}}
            """#
        for port in [ports.wireMock, ports.understudy] {
            XCTAssertEqual(try post(proxy, port: port), "201", "port \(port)")
        }
        try WireMockDifferentialTests.compare([
            Probe("GET", "/proxied/cat"),
            Probe("GET", "/proxied/cat?size=2", headers: ["X-Token: wrong"]),
            Probe("POST", "/proxied/dog", body: "payload"),
        ], ports: ports)
    }

    func testProxyAllSendsWhatNoStubMatchesUpstream() throws {
        let ports = try Self.servers.ports()
        let origin = #"{"request": {"urlPath": "/everything/else"}, "response": {"status": 200, "body": "origin answered"}}"#
        XCTAssertEqual(try post(origin, port: ports.wireMock), "201")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-all-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"request": {"urlPath": "/local"}, "response": {"body": "local stub"}}"#.utf8)
            .write(to: directory.appendingPathComponent("mappings/local.json"))
        let server = try startUnderstudy([
            "serve", "--root-dir", directory.path, "--port", "0", "--log", "quiet", "--proxy-all", "http://127.0.0.1:\(ports.wireMock)",
        ])
        defer { XCTAssertTrue(terminate(server.process), "still running 10 s after SIGTERM") }
        let base = "http://127.0.0.1:\(server.port)"
        XCTAssertEqual(String(decoding: try curlOutput([base + "/local"]), as: UTF8.self), "local stub")
        XCTAssertEqual(String(decoding: try curlOutput([base + "/everything/else"]), as: UTF8.self), "origin answered")
    }

    private func post(_ mapping: String, port: Int) throws -> String {
        String(decoding: try curlOutput([
            "--max-time", "60", "--output", "/dev/null", "--write-out", "%{http_code}", "--data-binary", mapping,
            "--header", "Content-Type: application/json", "http://127.0.0.1:\(port)/__admin/mappings",
        ]), as: UTF8.self)
    }
}
