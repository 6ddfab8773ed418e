import Foundation
@testable import Understudy
import XCTest

/// WireMock 3's `urlPathTemplate` with `pathParameters` and `{{request.path.<name>}}` (WireMock
/// 2.35 predates them, so WireMock 3's documentation is the reference here): which paths fit,
/// which parameter a near miss names, an image chosen by a parameter, and the load-time errors.
final class WireMockPathTemplateTests: XCTestCase {
    func testTheTemplateParsesAndFitsWholeSegmentsOnly() throws {
        let template = try PathTemplate("/images/{id}/size/{size}")
        XCTAssertEqual(template.parameterNames, ["id", "size"])
        XCTAssertEqual(template.parameters(in: "/images/cat/size/2"), ["id": "cat", "size": "2"])
        XCTAssertEqual(template.parameters(in: "/images/a%20b/size/2"), ["id": "a%20b", "size": "2"], "as sent, as WireMock's urlPath")
        XCTAssertNil(template.parameters(in: "/images/cat/size/2/more"))
        XCTAssertNil(template.parameters(in: "/images//size/2"), "a parameter is never empty")
        XCTAssertNil(template.parameters(in: "/pictures/cat/size/2"))
        XCTAssertThrowsError(try PathTemplate("/images/a{id}")) { error in
            XCTAssertEqual("\(error)", "segment 'a{id}' of path template '/images/a{id}' mixes text and a parameter; expected a whole segment such as {id}")
        }
        XCTAssertThrowsError(try PathTemplate("/{id}/{id}")) { error in
            XCTAssertEqual("\(error)", "parameter 'id' appears twice in path template '/{id}/{id}'; expected each name once")
        }
    }

    func testAnImageIsChosenByAPathParameterAndANearMissNamesTheFailingParameter() async throws {
        let sandbox = try WireMockSandbox()
        try FileManager.default.createDirectory(at: sandbox.directory.appendingPathComponent("__files/images"), withIntermediateDirectories: true)
        let cat = pngBytes + Data([1, 2, 3])
        try cat.write(to: sandbox.directory.appendingPathComponent("__files/images/cat.png"))
        try sandbox.write("mappings/images.json", """
            {"name": "images", "request": {"method": "GET", "urlPathTemplate": "/images/{id}/{size}",
              "pathParameters": {"id": {"matches": "[a-z]+"}, "size": {"equalTo": "large"}}},
             "response": {"bodyFileName": "images/{{request.path.id}}.png", "transformers": ["response-template"],
                          "headers": {"Content-Type": "image/png", "X-Size": "{{request.path.size}} {{request.path.[1]}}"}}}
            """)
        let stubs = StubRegistry()
        try stubs.load(wireMock: sandbox.directory)
        let answer = try await stubs.answer("http://img.test/images/cat/large?x=1")
        XCTAssertEqual(answer.body, cat)
        XCTAssertEqual(answer.headers["X-Size"], "large cat")
        let isUnmatched = await stubs.isUnmatched("http://img.test/images/123/large")
        XCTAssertTrue(isUnmatched)

        let miss = try XCTUnwrap(stubs.nearMisses(for: StubRequest(url: URL(string: "http://img.test/images/123/large")!)).first)
        XCTAssertEqual(miss.mismatches.map(\.description), ["path parameter id matches \\A(?:[a-z]+)\\z (got path parameter id is 123)"])
        let other = try XCTUnwrap(stubs.nearMisses(for: StubRequest(url: URL(string: "http://img.test/images/cat")!)).first)
        XCTAssertEqual(other.mismatches.map(\.expected), ["path fits /images/{id}/{size}", "path parameter id matches \\A(?:[a-z]+)\\z", "path parameter size is large"])
        XCTAssertEqual(other.mismatches.last?.actual, "path /images/cat, which does not fit /images/{id}/{size}")
    }

    func testMistakesAreLoadErrorsNamingTheField() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/list.json", """
            {"mappings": [
              {"request": {"urlPathTemplate": "/a/{id}", "pathParameters": {"nope": {"equalTo": "1"}}}},
              {"request": {"urlPath": "/a", "pathParameters": {"id": {"equalTo": "1"}}}},
              {"request": {"urlPathTemplate": "/a/{id}"}, "response": {"transformers": ["response-template"], "body": "{{request.path.name}}"}},
              {"request": {"urlPathTemplate": "a/{id}"}},
              {"request": {"urlPathTemplate": "/a/{id}", "pathParameters": {"id": {"absent": true}}}}
            ]}
            """)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/list.json:2: mappings[0].request.pathParameters.nope: no parameter 'nope' in urlPathTemplate /a/{id}; expected one of id",
            "wiremock/mappings/list.json:3: mappings[1].request.pathParameters: pathParameters needs a urlPathTemplate naming them (found 'urlPath'); expected a urlPathTemplate such as /images/{id}",
            "wiremock/mappings/list.json:4: mappings[2].response.body: 'request.path.name' names no path parameter: its parameters are id; expected a urlPathTemplate such as /images/{name}",
            "wiremock/mappings/list.json:5: mappings[3].request.urlPathTemplate: path template 'a/{id}' does not start with '/'; expected one like /images/{id}",
            "wiremock/mappings/list.json:6: mappings[4].request.pathParameters.id.absent: path parameter 'id' is in every path the template fits; expected equalTo, contains or matches",
        ])
    }

    func testTheSwiftAPIMatchesWithTheSameType() throws {
        let template = try PathTemplate("/images/{id}")
        let stubs = StubRegistry()
        stubs.stub(.path(template: template) && .pathParameter("id", of: template, is: "cat"), named: "cat", response: .text("cat"))
        XCTAssertEqual(stubs.match(StubRequest(url: URL(string: "http://img.test/images/cat")!))?.stubName, "cat")
        XCTAssertNil(stubs.match(StubRequest(url: URL(string: "http://img.test/images/dog")!)))
    }
}
