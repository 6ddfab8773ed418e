import Foundation
import Understudy
import XCTest

/// YAML anchors and aliases work, but a "billion laughs" document (each anchor listing the
/// previous one ten times: under a kilobyte that stands for 10^9 nodes) is refused from its
/// size alone, in files and in admin-API bodies alike, instead of hanging the loader.
final class StubFileAliasBombTests: XCTestCase {
    /// `levels` anchors under `response.json`, each a list of ten aliases of the one before.
    private func laughs(levels: Int) -> String {
        var lines = ["      json:", "        a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...levels {
            let previous = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("        a\(level): &a\(level) [\(previous)]")
        }
        return "stubs:\n  - request: { path: /lol }\n    response:\n" + lines.joined(separator: "\n") + "\n"
    }

    private let refusal = "aliases expand the document to more than 100000 nodes; expected at most 100000, the larger of 100000 and its size in bytes"

    func testBillionLaughsIsRefusedInAFile() throws {
        let sandbox = try StubFileSandbox()
        let text = laughs(levels: 9)
        XCTAssertLessThan(text.utf8.count, 1024)
        try sandbox.write("laughs.yaml", text)
        XCTAssertEqual(sandbox.issues(), ["Stubs/laughs.yaml:1: \(refusal)"])
    }

    func testBillionLaughsIsRefusedInAnAdminBody() throws {
        XCTAssertThrowsError(try StubFileLoader.stubs(parsing: laughs(levels: 9), format: .yaml)) { error in
            XCTAssertEqual("\(error)", "request body:1: \(refusal)")
        }
        let matcher = "request:\n  headers:\n    X: &x [" + Array(repeating: "a", count: 400).joined(separator: ", ") + "]\n"
            + "    Y: &y [" + Array(repeating: "*x", count: 400).joined(separator: ", ") + "]\n"
        XCTAssertThrowsError(try StubFileLoader.requestMatcher(parsing: matcher, format: .yaml)) { error in
            XCTAssertEqual("\(error)", "request body:1: \(refusal)")
        }
    }

    func testAliasesThatStaySmallStillWork() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
            stubs:
              - request: { path: /a }
                response: { status: 200, headers: &common { Cache-Control: max-age=60, X-Env: test } }
              - request: { path: /b }
                response: { status: 201, headers: *common }
              - request: { path: /c }
                response: { json: { four: \(laughsJSON(levels: 3)) } }
            """)
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        let b = try await registry.answer("http://x.test/b")
        XCTAssertEqual(b.status, 201)
        XCTAssertEqual(b.headers["X-Env"], "test")
        XCTAssertEqual(b.headers["Cache-Control"], "max-age=60")
        let c = try await registry.answer("http://x.test/c")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: c.body) as? [String: Any])
        let levels = try XCTUnwrap(json["four"] as? [String: Any])
        XCTAssertEqual((levels["a3"] as? [Any])?.count, 10)
        XCTAssertEqual(((levels["a3"] as? [[[[String]]]])?.first?.first?.first)?.count, 10, "a3 expands to 10x10x10x10 strings")
    }

    /// A flow mapping of `levels` anchored lists, each ten aliases of the one before: about 12,000 nodes for three.
    private func laughsJSON(levels: Int) -> String {
        var entries = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...levels {
            entries.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        return "{ " + entries.joined(separator: ", ") + " }"
    }
}
