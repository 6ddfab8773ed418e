import Foundation
import XCTest

/// Scenarios and response templating served by WireMock 2.35.1 itself and by
/// `understudy serve --wiremock` from one root written here: the same requests get the same
/// statuses, bodies and journal counts. One difference is on purpose: WireMock renders a
/// templated binary `bodyFileName` as text and corrupts the image (its issue 2028); Understudy
/// serves the file's bytes.
final class WireMockTemplatingDifferentialTests: XCTestCase {
    /// A PNG whose bytes are not UTF-8 text (0x89, 0xFF, 0xC3 0x28), as every PNG's are not.
    static let png = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x08, 0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0x00,
        0x00, 0x03, 0x01, 0x01, 0x00, 0xC9, 0xFE, 0x92, 0xEF, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
        0x44, 0xAE, 0x42, 0x60, 0x82, 0xFF, 0xC3, 0x28,
    ])

    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-templating-\(UUID().uuidString)")
        let mappings: [String: String] = [
            "scenario.json": #"""
            {"mappings": [
              {"scenarioName": "cart", "requiredScenarioState": "Started", "newScenarioState": "filled",
               "request": {"method": "GET", "url": "/cart"}, "response": {"status": 200, "body": "empty"}},
              {"scenarioName": "cart", "requiredScenarioState": "filled",
               "request": {"method": "GET", "url": "/cart"}, "response": {"status": 200, "body": "cat.png"}},
              {"scenarioName": "cart", "requiredScenarioState": "filled", "newScenarioState": "Started",
               "request": {"method": "DELETE", "url": "/cart"}, "response": {"status": 204}}
            ]}
            """#,
            "echo.json": #"""
            {"request": {"method": "ANY", "urlPathPattern": "/echo/.*"},
             "response": {"status": 200, "transformers": ["response-template"],
                          "body": "{{request.method}} {{request.path}} [{{request.pathSegments.[1]}}] q={{request.query.q}} h={{request.headers.X-Id}} url={{{request.url}}}",
                          "headers": {"X-Path": "{{request.path}}"}}}
            """#,
            "escaped.json": #"""
            {"request": {"urlPath": "/escaped"},
             "response": {"transformers": ["response-template"], "body": "{{request.url}}"}}
            """#,
            "literal.json": #"""
            {"request": {"urlPath": "/literal"}, "response": {"body": "{{request.path}}"}}
            """#,
            "text-file.json": #"""
            {"request": {"urlPathPattern": "/texts/[a-z]+"},
             "response": {"transformers": ["response-template"], "bodyFileName": "texts/{{request.pathSegments.[1]}}.txt"}}
            """#,
            "image-file.json": #"""
            {"request": {"urlPathPattern": "/images/[a-z]+"},
             "response": {"transformers": ["response-template"], "bodyFileName": "images/{{request.pathSegments.[1]}}.png",
                          "headers": {"Content-Type": "image/png"}}}
            """#,
        ]
        do {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("__files/texts"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("__files/images"), withIntermediateDirectories: true)
            for (name, text) in mappings { try Data(text.utf8).write(to: root.appendingPathComponent("mappings/\(name)")) }
            try Data("hello from a file\n".utf8).write(to: root.appendingPathComponent("__files/texts/hello.txt"))
            try png.write(to: root.appendingPathComponent("__files/images/cat.png"))
        } catch {
            XCTFail("cannot write the root: \(error)")
        }
        return root
    }()

    private static let servers = LockedServers(root: root, flags: ["--local-response-templating"])

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    typealias Probe = WireMockDifferentialTests.Probe

    func testAScenarioWalksTheSameStatesAndCountsTheSame() throws {
        let ports = try Self.servers.ports()
        for port in [ports.wireMock, ports.understudy] {
            _ = try admin("POST", "/__admin/scenarios/reset", port: port)
            _ = try admin("DELETE", "/__admin/requests", port: port)
        }
        try WireMockDifferentialTests.compare([
            Probe("GET", "/cart"), Probe("GET", "/cart"), Probe("GET", "/cart"),
            Probe("DELETE", "/cart"), Probe("DELETE", "/cart", unmatched: true), Probe("GET", "/cart"),
        ], ports: ports)
        let pattern = #"{"method": "GET", "url": "/cart"}"#
        let counts = try [ports.wireMock, ports.understudy].map { port in
            try JSONSerialization.jsonObject(with: admin("POST", "/__admin/requests/count", port: port, body: pattern)) as? [String: Any]
        }
        XCTAssertEqual(counts.map { $0?["count"] as? Int }, [4, 4])
        let totals = try [ports.wireMock, ports.understudy].map { port in
            ((try JSONSerialization.jsonObject(with: admin("GET", "/__admin/requests", port: port)) as? [String: Any])?["meta"] as? [String: Any])?["total"] as? Int
        }
        XCTAssertEqual(totals, [6, 6])
        // Reset, and the scenario starts again on both.
        for port in [ports.wireMock, ports.understudy] { _ = try admin("POST", "/__admin/scenarios/reset", port: port) }
        try WireMockDifferentialTests.compare([Probe("GET", "/cart"), Probe("GET", "/cart")], ports: ports)
    }

    func testTemplatesRenderTheSame() throws {
        try WireMockDifferentialTests.compare([
            Probe("GET", "/echo/cat/more?q=1", headers: ["X-Id: 7"]),
            Probe("POST", "/echo/dog", body: "x"),
            Probe("GET", "/escaped?a=1&b='2'"),
            Probe("GET", "/literal"),
            Probe("GET", "/texts/hello"),
        ], ports: Self.servers.ports())
        let ports = try Self.servers.ports()
        let headers = try [ports.wireMock, ports.understudy].map {
            try WireMockDifferentialTests.fetch(Probe("GET", "/echo/a/b"), port: $0).values(of: "X-Path")
        }
        XCTAssertEqual(headers, [["/echo/a/b"], ["/echo/a/b"]])
    }

    func testATemplatedBinaryBodyFileNameIsCorruptedByWireMockAndServedByUnderstudy() throws {
        let ports = try Self.servers.ports()
        let wireMock = try WireMockDifferentialTests.fetch(Probe("GET", "/images/cat"), port: ports.wireMock)
        let understudy = try WireMockDifferentialTests.fetch(Probe("GET", "/images/cat"), port: ports.understudy)
        XCTAssertEqual(wireMock.status, 200)
        XCTAssertEqual(understudy.status, 200)
        XCTAssertNotEqual(wireMock.body, Self.png, "WireMock 2.35 renders the file as text (its issue 2028)")
        XCTAssertTrue(wireMock.body.contains(0xEF), "the bytes that are not UTF-8 became U+FFFD: \(wireMock.body.map { String(format: "%02x", $0) }.joined())")
        XCTAssertEqual(understudy.body, Self.png, "Understudy serves the file's bytes")
        XCTAssertEqual(understudy.values(of: "Content-Type"), ["image/png"])
    }

    private func admin(_ method: String, _ path: String, port: Int, body: String? = nil) throws -> Data {
        // WireMock's JVM may take longer than curlOutput's 10 s over its first calls on a busy machine.
        var arguments = ["--max-time", "60", "--request", method, "http://127.0.0.1:\(port)\(path)"]
        if let body { arguments += ["--data-binary", body, "--header", "Content-Type: application/json"] }
        return try curlOutput(arguments)
    }
}
