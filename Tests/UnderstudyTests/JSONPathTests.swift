import Foundation
@testable import Understudy
import XCTest

/// JSONPath as WireMock's `matchesJsonPath` reads it (Jayway's dialect), and the matcher it
/// makes for mappings, stub files and Swift alike.
final class JSONPathTests: XCTestCase {
    private let document: JSONValue = try! JSONValue(parsing: Data(#"""
        {"owner": {"name": "ann", "id": 1},
         "images": [{"id": 10, "type": "png", "width": 50, "name": "cat"},
                    {"id": 11, "type": "webp", "width": 150, "name": "Dog"},
                    {"id": 12, "type": "png", "width": 300, "name": "cow"}]}
        """#.utf8))

    private func select(_ expression: String) throws -> [JSONValue] {
        try JSONPath(expression).evaluate(document)
    }

    func testPathsSelectWhatJaywaySelects() throws {
        XCTAssertEqual(try select("$.owner.name"), ["ann"])
        XCTAssertEqual(try select("$['owner']['id']"), [1])
        XCTAssertEqual(try select("$.images[0].id"), [10])
        XCTAssertEqual(try select("$.images[-1].id"), [12])
        XCTAssertEqual(try select("$.images[0,2].id"), [10, 12])
        XCTAssertEqual(try select("$.images[1:].id"), [11, 12])
        XCTAssertEqual(try select("$.images[*].type"), ["png", "webp", "png"])
        XCTAssertEqual(try select("$..id"), [10, 11, 12, 1], "objects in key order: images before owner")
        XCTAssertEqual(try select("$.images[?(@.width > 100)].id"), [11, 12])
        XCTAssertEqual(try select("$.images[?(@.type == 'png' && @.width >= 300)].id"), [12])
        XCTAssertEqual(try select("$.images[?(@.type != 'png' || @.id == 10)].id"), [10, 11])
        XCTAssertEqual(try select("$.images[?(@.name =~ /d.*/i)].id"), [11])
        XCTAssertEqual(try select("$.images[?(!(@.width < 100))].id"), [11, 12])
        XCTAssertEqual(try select("$.images[?(@.missing)].id"), [])
        XCTAssertEqual(try select("$.images[?(@.width > $.owner.id)].id"), [10, 11, 12])
        XCTAssertTrue(try JSONPath("$.a[0].b").isDefinite)
        XCTAssertFalse(try JSONPath("$.a[*]").isDefinite)
    }

    func testAnUnreadableExpressionNamesWhereAndWhatWasExpected() {
        let cases = [
            ("owner.name", "JSONPath 'owner.name': found 'o' at position 1; expected '$' to start the path, as in $.images[0]"),
            ("$.images[?(@.width > )]", "JSONPath '$.images[?(@.width > )]': found ')' at position 22; expected @, $, a string, a number, true, false, null or a /regular expression/"),
            ("$.images[", "JSONPath '$.images[': found the end at position 10; expected an index, a slice, '*', a quoted name or a filter '?(...)'"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try JSONPath(text), text) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }

    func testTheMatcherFromAMappingAStubFileAndSwiftAgree() throws {
        let wireMock = try WireMockLoader.requestPattern(parsing: #"{"bodyPatterns": [{"matchesJsonPath": "$.images[?(@.width > 100)]"}]}"#)
        let stubFile = try StubFileLoader.requestMatcher(parsing: #"request: {body: {jsonPath: "$.images[?(@.width > 100)]"}}"#, format: .yaml)
        let swift = RequestMatcher.jsonBody(path: try JSONPath("$.images[?(@.width > 100)]"))
        for (body, expected) in [(#"{"images": [{"width": 150}]}"#, true), (#"{"images": [{"width": 50}]}"#, false), ("not json", false)] {
            let request = StubRequest(method: "POST", url: URL(string: "http://img.test/a")!, body: Data(body.utf8))
            for (source, matcher) in [("mapping", wireMock), ("stub file", stubFile), ("Swift", swift)] {
                XCTAssertEqual(matcher.matches(request), expected, "\(source): \(body)")
            }
        }
        XCTAssertEqual(try StubFileWriter.request(swift)["body"], ["jsonPath": "$.images[?(@.width > 100)]"])
        let valued = try WireMockLoader.requestPattern(parsing: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.owner.name", "equalTo": "ann"}}]}"#)
        XCTAssertEqual(valued.description, RequestMatcher.jsonBody(path: try JSONPath("$.owner.name"), is: "ann").description)
        let request = StubRequest(method: "POST", url: URL(string: "http://img.test/a")!, body: Data(#"{"owner": {"name": "bob"}}"#.utf8))
        XCTAssertEqual(valued.mismatches(for: request).map(\.expected), ["JSON body at $.owner.name is ann"])
    }

    func testEqualToJsonOptions() {
        let loose = JSONComparison(ignoresArrayOrder: true, ignoresExtraElements: true)
        XCTAssertTrue(loose.matches(["a": [1, 2], "b": 1], ["a": [2, 1, 3], "b": 1, "c": 3]))
        XCTAssertFalse(loose.matches(["a": [1, 2]], ["a": [2]]))
        XCTAssertFalse(loose.matches(["a": [1, 1]], ["a": [1, 2]]), "each expected item pairs with its own")
        let extra = JSONComparison(ignoresExtraElements: true)
        XCTAssertTrue(extra.matches(["a": [1, 2]], ["a": [1, 2, 3], "z": 0]))
        XCTAssertFalse(extra.matches(["a": [1, 2]], ["a": [2, 1]]), "order still counts")
        XCTAssertFalse(JSONComparison.exact.matches(["a": 1], ["a": 1, "b": 2]))
    }
}
