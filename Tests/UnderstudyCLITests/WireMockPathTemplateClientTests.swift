import Foundation
import XCTest

/// WireMock 3's `urlPathTemplate` against `understudy serve --root-dir` with real clients: a
/// mapping posted with Python's `requests` (WireMock's Python client has no field for it),
/// images fetched with `requests` and decoded by Pillow, and the near miss Understudy's journal
/// lists for a path parameter that fails. WireMock 2.35.1 predates path templates, so the
/// reference is WireMock 3's documentation, not a differential run.
final class WireMockPathTemplateClientTests: XCTestCase {
    private var root: URL!
    private var server: StartedUnderstudy?

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files/images"), withIntermediateDirectories: true)
        try WireMockPythonClientTests.png(width: 2, height: 2, red: 255).write(to: root.appendingPathComponent("__files/images/cat.png"))
        try WireMockPythonClientTests.png(width: 3, height: 1, red: 0).write(to: root.appendingPathComponent("__files/images/dog.png"))
    }

    override func tearDownWithError() throws {
        if let process = server?.process, process.isRunning {
            XCTAssertTrue(terminate(process), "still running 10 s after SIGTERM")
        }
        try? FileManager.default.removeItem(at: root)
    }

    func testAnImageChosenByAPathParameterAndANearMissNamingIt() throws {
        let server = try startUnderstudy(["serve", "--root-dir", root.path, "--port", "0", "--log", "quiet"])
        self.server = server
        let output = try runPythonScript(Self.script, arguments: ["http://127.0.0.1:\(server.port)"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.stdout.split(separator: "\n").map(String.init), [
            "posted: 201",
            "cat: 200 image/png (2, 2) (255, 0, 0) large",
            "dog: 200 image/png (3, 1) (0, 0, 255) large",
            "digits: 404",
            "near miss: path parameter id matches \\A(?:[a-z]+)\\z (got path parameter id is 123)",
        ])
        let curl = String(decoding: try curlOutput(["--write-out", " %{http_code}", "--output", "/dev/null", "http://127.0.0.1:\(server.port)/images/cat/small"]), as: UTF8.self)
        XCTAssertEqual(curl, " 404", "size must be large")
    }

    static let script = #"""
import io, sys, requests
from PIL import Image
base = sys.argv[1]
mapping = {"request": {"method": "GET", "urlPathTemplate": "/images/{id}/{size}",
                       "pathParameters": {"id": {"matches": "[a-z]+"}, "size": {"equalTo": "large"}}},
           "response": {"status": 200, "bodyFileName": "images/{{request.path.id}}.png", "transformers": ["response-template"],
                        "headers": {"Content-Type": "image/png", "X-Size": "{{request.path.size}}"}}}
print("posted:", requests.post(base + "/__admin/mappings", json=mapping).status_code)
for name in ["cat", "dog"]:
    r = requests.get("%s/images/%s/large" % (base, name))
    picture = Image.open(io.BytesIO(r.content)).convert("RGB")
    print("%s: %d %s %s %s %s" % (name, r.status_code, r.headers["Content-Type"], picture.size, picture.getpixel((0, 0)), r.headers["X-Size"]))
print("digits:", requests.get(base + "/images/123/large").status_code)
nearest = requests.get(base + "/__admin/near-misses").json()["unmatched"][-1]["nearMisses"][0]
print("near miss:", "; ".join("%s (got %s)" % (d["expected"], d["actual"]) for d in nearest["differences"]))
"""#
}
