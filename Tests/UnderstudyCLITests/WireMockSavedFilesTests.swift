import Foundation
import XCTest

/// Files each server saves, loaded by the other: WireMock 2.35.1 and `understudy serve` share one
/// root; a mapping posted to one and saved (`POST /__admin/mappings/save`) answers from the other
/// after its `POST /__admin/mappings/reset`.
final class WireMockSavedFilesTests: XCTestCase {
    static let root = LockedServers.temporaryRoot("wiremock-saved")

    private static let servers = LockedServers(root: root, flags: ["--local-response-templating"])

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    func testEachServerLoadsTheFilesTheOtherSaved() throws {
        let ports = try Self.servers.ports()
        let fromWireMock = #"{"request": {"method": "GET", "url": "/saved-by-wiremock"}, "response": {"status": 201, "body": "from WireMock's file"}, "metadata": {"by": "wiremock"}}"#
        let fromUnderstudy = #"""
            {"scenarioName": "s", "requiredScenarioState": "Started", "newScenarioState": "next",
             "request": {"method": "GET", "urlPathPattern": "/saved-by-understudy/[a-z]+"},
             "response": {"status": 202, "body": "{{request.pathSegments.[1]}} from Understudy's file", "transformers": ["response-template"]}}
            """#
        XCTAssertEqual(try status("POST", "/__admin/mappings", port: ports.wireMock, body: fromWireMock), "201")
        XCTAssertEqual(try status("POST", "/__admin/mappings/save", port: ports.wireMock), "200")
        XCTAssertEqual(try status("POST", "/__admin/mappings", port: ports.understudy, body: fromUnderstudy), "201")
        XCTAssertEqual(try status("POST", "/__admin/mappings/save", port: ports.understudy), "200")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("mappings").path)
        XCTAssertEqual(files.count, 2, "\(files)")
        let wireMockFile = try XCTUnwrap(files.first { $0.contains("by-wiremock") }, "WireMock names its file after the URL: \(files)")
        let saved = try String(contentsOf: Self.root.appendingPathComponent("mappings/\(wireMockFile)"), encoding: .utf8)
        XCTAssertTrue(saved.contains("\"persistent\" : true") && saved.contains("insertionIndex"), "WireMock's own fields: \(saved)")

        for port in [ports.wireMock, ports.understudy] {
            XCTAssertEqual(try status("POST", "/__admin/mappings/reset", port: port), "200")
        }
        for port in [ports.wireMock, ports.understudy] {
            XCTAssertEqual(try fetch("/saved-by-wiremock", port: port), "201 from WireMock's file")
            XCTAssertEqual(try fetch("/saved-by-understudy/cat", port: port), "202 cat from Understudy's file")
            XCTAssertEqual(try fetch("/saved-by-understudy/dog", port: port).prefix(3), "404", "the scenario moved on")
        }
    }

    private func status(_ method: String, _ path: String, port: Int, body: String? = nil) throws -> String {
        // WireMock's JVM may take longer than curlOutput's 10 s over its first calls on a busy machine.
        var arguments = ["--max-time", "60", "--request", method, "--output", "/dev/null", "--write-out", "%{http_code}", "http://127.0.0.1:\(port)\(path)"]
        if let body { arguments += ["--data-binary", body, "--header", "Content-Type: application/json"] }
        return String(decoding: try curlOutput(arguments), as: UTF8.self)
    }

    private func fetch(_ path: String, port: Int) throws -> String {
        let output = String(decoding: try curlOutput(["--max-time", "60", "--write-out", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"]), as: UTF8.self)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return "\(lines.last ?? "") \(lines.dropLast().joined(separator: "\n"))"
    }
}
