import Foundation
@testable import UnderstudyCLI
import XCTest

/// `understudy check --wiremock` and `understudy serve --wiremock`, through the built binary.
final class WireMockCommandTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-wiremock-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    private func write(_ path: String, _ text: String) throws {
        let url = base.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func testWireMockDirectoriesAloneDoNotCheckStubs() throws {
        let check = try UnderstudyCommand.Check.parse(["--wiremock", "a", "--wiremock", "b"])
        XCTAssertEqual(check.paths, [])
        XCTAssertEqual(check.wireMockDirectories, ["a", "b"])
        XCTAssertEqual(try UnderstudyCommand.Check.parse(["S", "--wiremock", "a"]).paths, ["S"])
        XCTAssertEqual(try UnderstudyCommand.Serve.parse(["--wiremock", "a"]).wireMockDirectories, ["a"])
    }

    func testCheckReportsTheFixtureAndEveryErrorWithExitCode2() throws {
        try write("good/mappings/a.json", #"{"request": {"url": "/a"}, "response": {"body": "a"}}"#)
        try write("Stubs/s.yaml", "stubs:\n  - request: { path: /s }\n")
        let good = try runUnderstudy(["check", "Stubs", "--wiremock", "good"], in: base)
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(good.stdout, "OK: 2 stubs in 2 files from Stubs, good\n")

        try write("bad/mappings/b.json", "{\"request\": {\"url\": \"/b\", \"multipartPatterns\": []},\n \"response\": {\"fault\": \"BOOM\"}}")
        let bad = try runUnderstudy(["check", "--wiremock", "bad"], in: base)
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, """
            bad/mappings/b.json:1: request.multipartPatterns: unsupported field; supported: method, url, urlPath, urlPattern, urlPathPattern, urlPathTemplate, pathParameters, scheme, host, port, headers, queryParameters, cookies, basicAuthCredentials, bodyPatterns
            bad/mappings/b.json:2: response.fault: unknown fault 'BOOM'; expected one of EMPTY_RESPONSE, CONNECTION_RESET_BY_PEER, MALFORMED_RESPONSE_CHUNK, RANDOM_DATA_THEN_CLOSE

            """)
    }

    func testServeRefusesABadDirectoryAndResetRereadsTheMappings() throws {
        try write("bad/mappings/b.json", #"{"response": {"statusMessage": "x"}}"#)
        let refused = try runUnderstudy(["serve", "--wiremock", "bad", "--port", "0"], in: base)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.hasPrefix("bad/mappings/b.json:1: response.statusMessage: unsupported field; supported: status, body"), refused.stderr)

        let directory = base.appendingPathComponent("wm")
        try write("wm/mappings/a.json", #"{"request": {"url": "/a"}, "response": {"body": "before"}}"#)
        let server = try startUnderstudy(["serve", "--wiremock", directory.path, "--port", "0", "--log", "quiet"])
        defer {
            XCTAssertTrue(terminate(server.process), "still running 10 s after SIGTERM")
        }
        XCTAssertTrue(server.readyLine.hasSuffix(" (1 stubs from \(directory.path))\n"), server.readyLine)
        let url = "http://127.0.0.1:\(server.port)"
        XCTAssertEqual(String(decoding: try curlOutput([url + "/a"]), as: UTF8.self), "before")
        try write("wm/mappings/a.json", #"{"request": {"url": "/a"}, "response": {"body": "after"}}"#)
        XCTAssertEqual(String(decoding: try curlOutput([url + "/a"]), as: UTF8.self), "before")
        _ = try curlOutput(["--request", "POST", url + "/__admin/reset"])
        XCTAssertEqual(String(decoding: try curlOutput([url + "/a"]), as: UTF8.self), "after")
    }
}
