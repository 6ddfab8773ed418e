import Foundation
import Understudy
import XCTest

/// Malformed stub files: each case asserts the exact lines `understudy check` would print.
final class StubFileErrorTests: XCTestCase {
    private func assertIssues(
        _ name: String, _ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write(name, text)
        XCTAssertEqual(sandbox.issues(), expected, file: file, line: line)
    }

    // MARK: - Document shape

    func testTopLevelListIsRefused() throws {
        try assertIssues("a.yaml", "- name: x\n", [
            "Stubs/a.yaml:1: found a list at the top level; expected a mapping with a 'stubs' list",
        ])
    }

    func testEmptyFileIsRefused() throws {
        try assertIssues("empty.yaml", "# nothing here\n", [
            "Stubs/empty.yaml:1: the document is empty; expected a mapping with a 'stubs' list",
        ])
    }

    func testMissingStubsKeyAndUnknownTopLevelKey() throws {
        try assertIssues("a.yaml", "version: 2\n", [
            "Stubs/a.yaml:1: version: unknown key 'version'; expected one of stubs, tls",
            "Stubs/a.yaml:1: missing key 'stubs'; expected a mapping with a 'stubs' list",
        ])
    }

    func testEmptyStubsList() throws {
        try assertIssues("a.yaml", "stubs: []\n", [
            "Stubs/a.yaml:1: stubs: the list is empty; expected at least one stub",
        ])
    }

    func testStubsIsNotAList() throws {
        try assertIssues("a.json", #"{"stubs": {"name": "x"}}"#, [
            "Stubs/a.json:1: stubs: expected a list of stubs, found a mapping",
        ])
    }

    func testYAMLSyntaxErrorHasItsLine() throws {
        try assertIssues("a.yaml", "stubs:\n  - name: x\n   request: 1\n", [
            "Stubs/a.yaml:3: invalid YAML: did not find expected '-' indicator (while parsing a block collection on line 2)",
        ])
    }

    func testYAMLDuplicateKey() throws {
        try assertIssues("a.yaml", "stubs:\n  - name: x\n    response: {status: 200}\n    name: y\n", [
            "Stubs/a.yaml:2: invalid YAML: duplicate key 'name'; expected each key once in a mapping",
        ])
    }

    func testJSONSyntaxErrorHasItsLine() throws {
        try assertIssues("a.json", "{\n  \"stubs\": [\n    {\"name\": }\n  ]\n}\n", [
            "Stubs/a.json:3: invalid JSON: invalid value",
        ])
    }

    func testTruncatedJSONPointsAtTheEnd() throws {
        try assertIssues("a.json", "{\n  \"stubs\": [\n    {\"name\": \"x\"}\n", [
            "Stubs/a.json:3: invalid JSON: unexpected end of file during JSON parse",
        ])
    }

    // MARK: - Stubs

    func testUnknownStubKeyListsTheAllowedKeys() throws {
        try assertIssues("a.yaml", "stubs:\n  - name: x\n    colour: red\n", [
            "Stubs/a.yaml:3: stubs[0].colour: unknown key 'colour'; expected one of name, priority, times, scenario, request, response, responses",
        ])
    }

    func testTimesMustBeAnIntegerOfAtLeastOne() throws {
        try assertIssues("a.yaml", "stubs:\n  - times: 0\n  - times: 1.5\n  - times: '2'\n", [
            "Stubs/a.yaml:2: stubs[0].times: expected an integer >= 1, found integer 0",
            "Stubs/a.yaml:3: stubs[1].times: expected an integer >= 1, found number 1.5",
            "Stubs/a.yaml:4: stubs[2].times: expected an integer >= 1, found string '2'",
        ])
    }

    func testPriorityMustBeAnInteger() throws {
        try assertIssues("a.json", "{\"stubs\": [\n  {\"priority\": \"high\"}\n]}", [
            "Stubs/a.json:2: stubs[0].priority: expected an integer, found string 'high'",
        ])
    }

    func testResponseAndResponsesTogether() throws {
        try assertIssues("a.yaml", "stubs:\n  - response: {status: 200}\n    responses: [{status: 500}]\n", [
            "Stubs/a.yaml:3: stubs[0]: has both 'response' and 'responses'; expected one of them",
        ])
    }

    func testEmptyName() throws {
        try assertIssues("a.yaml", "stubs:\n  - name: ''\n", [
            "Stubs/a.yaml:2: stubs[0].name: the name is empty; expected a non-empty string",
        ])
    }

    func testDuplicateNamesAcrossFiles() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - name: cat\n  - name: a-3\n  - {}\n")
        try sandbox.write("b/c.json", "{\"stubs\": [\n  {\"name\": \"cat\"}\n]}\n")
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:4: stubs[2]: duplicate stub name 'a-3' (its default name); give it a 'name'; already used by the stub at Stubs/a.yaml:3",
            "Stubs/b/c.json:2: stubs[0].name: duplicate stub name 'cat'; already used by the stub at Stubs/a.yaml:2",
        ])
    }

    // MARK: - Requests

    func testUnknownRequestKey() throws {
        try assertIssues("a.yaml", "stubs:\n  - request:\n      url: /a.png\n", [
            "Stubs/a.yaml:3: stubs[0].request.url: unknown key 'url'; expected one of method, scheme, host, path, pathPrefix, pathPattern, extension, query, headers, cookies, basicAuth, accepts, body",
        ])
    }

    func testBadPathPatternAndHeaderPattern() throws {
        try assertIssues("a.yaml", """
            stubs:
              - request:
                  pathPattern: '^/cats/([0-9]+$'
                  headers: { Accept: { pattern: '*webp' } }
            """, [
            "Stubs/a.yaml:3: stubs[0].request.pathPattern: invalid regular expression '^/cats/([0-9]+$': not a valid pattern (^/cats/([0-9]+$)",
            "Stubs/a.yaml:4: stubs[0].request.headers.Accept.pattern: invalid regular expression '*webp': not a valid pattern (*webp)",
        ])
    }

    func testHeaderTestNeedsExactlyOneForm() throws {
        try assertIssues("a.json", """
            {"stubs": [{"request": {"headers": {
              "X-A": {"contains": "a", "present": true},
              "X-B": {"present": "yes"},
              "X-C": ["a"]
            }}}]}
            """, [
            "Stubs/a.json:2: stubs[0].request.headers.X-A: found 'contains' and 'present'; expected exactly one of contains, pattern, notPattern, present",
            "Stubs/a.json:3: stubs[0].request.headers.X-B.present: expected true or false, found string 'yes'",
            "Stubs/a.json:4: stubs[0].request.headers.X-C: expected a value, {contains: text}, {pattern: regex}, {notPattern: regex} or {present: true|false}, found a list",
        ])
    }

    func testMethodListMustHoldStrings() throws {
        try assertIssues("a.yaml", "stubs:\n  - request:\n      method: [GET, {a: 1}]\n      extension: []\n", [
            "Stubs/a.yaml:3: stubs[0].request.method[1]: expected a string, found a mapping",
            "Stubs/a.yaml:4: stubs[0].request.extension: the list is empty; expected an extension or a list of extensions",
        ])
    }

    func testPathMustStartWithSlash() throws {
        try assertIssues("a.yaml", "stubs:\n  - request: { path: cats/1.png }\n", [
            "Stubs/a.yaml:2: stubs[0].request.path: path 'cats/1.png' does not start with '/'; expected an absolute URL path like /cats/1.png",
        ])
    }

    func testRequestBodyTest() throws {
        try assertIssues("a.yaml", "stubs:\n  - request:\n      body: { matches: x }\n  - request:\n      body: {}\n", [
            "Stubs/a.yaml:3: stubs[0].request.body.matches: unknown key 'matches'; expected one of equals, contains, json, jsonPath",
            "Stubs/a.yaml:5: stubs[1].request.body: found no key; expected exactly one of equals, contains, json, jsonPath",
        ])
    }

    func testQueryMustBeAMapping() throws {
        try assertIssues("a.yaml", "stubs:\n  - request: { query: [w, h] }\n", [
            "Stubs/a.yaml:2: stubs[0].request.query: expected a mapping of query names to values, found a list",
        ])
    }

    // MARK: - Responses

    func testUnknownFault() throws {
        try assertIssues("a.yaml", "stubs:\n  - response:\n      fault: explode\n", [
            "Stubs/a.yaml:3: stubs[0].response.fault: unknown fault 'explode'; expected one of connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data",
        ])
    }

    func testTwoBodyKinds() throws {
        try assertIssues("a.json", "{\"stubs\": [{\"response\": {\n  \"body\": \"x\",\n  \"json\": {\"a\": 1}\n}}]}", [
            "Stubs/a.json:3: stubs[0].response.json: found both 'body' and 'json'; expected exactly one of body, json, base64, file, image, redirect, forward, hazard",
        ])
    }

    func testStatusOutOfRangeAndWrongType() throws {
        try assertIssues("a.yaml", "stubs:\n  - response: { status: 999 }\n  - response: { status: '404' }\n", [
            "Stubs/a.yaml:2: stubs[0].response.status: status 999 is out of range; expected an integer from 100 to 599",
            "Stubs/a.yaml:3: stubs[1].response.status: expected an integer from 100 to 599, found string '404'",
        ])
    }

    func testRedirectStatusMustBe3xx() throws {
        try assertIssues("a.yaml", "stubs:\n  - response:\n      redirect: { to: /b.png, status: 200 }\n  - response:\n      redirect: { status: 301 }\n", [
            "Stubs/a.yaml:3: stubs[0].response.redirect.status: redirect status 200 is not a redirect; expected an integer from 300 to 399",
            "Stubs/a.yaml:5: stubs[1].response.redirect: missing key 'to'; expected the location to redirect to",
        ])
    }

    func testStatusBesideRedirect() throws {
        try assertIssues("a.yaml", "stubs:\n  - response:\n      status: 301\n      redirect: { to: /b.png }\n", [
            "Stubs/a.yaml:3: stubs[0].response.status: a redirect takes its status inside 'redirect'; expected redirect: {to: ..., status: 301}",
        ])
    }

    func testBadDurations() throws {
        try assertIssues("a.yaml", """
            stubs:
              - response: { delay: 250 }
              - response: { delay: { uniform: [300ms, 100ms] } }
              - response: { delay: { lognormal: { median: 80ms } } }
              - response: { delay: { gaussian: 1s } }
              - response: { delay: { uniform: [1s] } }
            """, [
            "Stubs/a.yaml:2: stubs[0].response.delay: invalid duration '250'; expected a number with a unit, like 250ms, 1.5s or 2m",
            "Stubs/a.yaml:3: stubs[1].response.delay.uniform: the range is reversed; expected [low, high] with low <= high",
            "Stubs/a.yaml:4: stubs[2].response.delay.lognormal: missing key 'sigma'; expected {median: duration, sigma: number}",
            "Stubs/a.yaml:5: stubs[3].response.delay.gaussian: unknown key 'gaussian'; expected one of fixed, jitter, uniform, lognormal, chance",
            "Stubs/a.yaml:6: stubs[4].response.delay.uniform: expected a list of two durations [low, high], found a list",
        ])
    }

    func testBadBandwidth() throws {
        try assertIssues("a.json", "{\"stubs\": [{\"response\": {\"bandwidth\": \"5G\"}}]}", [
            "Stubs/a.json:1: stubs[0].response.bandwidth: unknown bandwidth '5G'; expected one of slow-3g, slow-4g, fast-4g, gprs, regular-2g, good-2g, regular-3g, good-3g, regular-4g, dsl, wifi, edge, 3g, 4g or a rate like 64KB/s",
        ])
    }

    func testBadBase64() throws {
        try assertIssues("a.yaml", "stubs:\n  - response:\n      base64: 'iVBORw0KGgo*'\n", [
            "Stubs/a.yaml:3: stubs[0].response.base64: invalid base64 (12 characters); expected base64 text like iVBORw0KGgo=",
        ])
    }

    func testTruncateAfterMustNotBeNegative() throws {
        try assertIssues("a.yaml", "stubs:\n  - response: { body: abc, truncateAfter: -1 }\n", [
            "Stubs/a.yaml:2: stubs[0].response.truncateAfter: expected an integer >= 0, found integer -1",
        ])
    }

    func testMissingFile() throws {
        try assertIssues("cats/a.yaml", "stubs:\n  - response: { file: images/nope.png }\n", [
            "Stubs/cats/a.yaml:2: stubs[0].response.file: file 'images/nope.png' does not exist; expected a file at Stubs/cats/images/nope.png",
        ])
    }

    func testForwardForms() throws {
        try assertIssues("a.yaml", "stubs:\n  - response: { forward: false }\n  - response: { forward: { to: 'ftp://x' } }\n", [
            "Stubs/a.yaml:2: stubs[0].response.forward: found boolean false; expected true or {to: URL} (leave 'forward' out to answer locally)",
            "Stubs/a.yaml:3: stubs[1].response.forward.to: invalid upstream URL 'ftp://x'; expected an http or https URL like http://upstream:8081",
        ])
    }

    func testBodyMustBeText() throws {
        try assertIssues("a.yaml", "stubs:\n  - response:\n      body: { a: 1 }\n", [
            "Stubs/a.yaml:3: stubs[0].response.body: expected text (use 'json' for structured bodies), found a mapping",
        ])
    }

    func testResponseHeadersMustBeStrings() throws {
        try assertIssues("a.yaml", "stubs:\n  - response:\n      headers: { X-A: { b: c }, X-B: null }\n", [
            "Stubs/a.yaml:3: stubs[0].response.headers.X-A: expected a value or a list of values, found a mapping",
            "Stubs/a.yaml:3: stubs[0].response.headers.X-B: expected a value or a list of values, found null",
        ])
    }

    // MARK: - All at once

    func testEveryIssueOfEveryFileIsReportedInOrder() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("b.yaml", "stubs:\n  - response: { fault: boom }\n  - request: { hots: x }\n")
        try sandbox.write("a.json", "{\"stubs\": [\n  {\"times\": -2}\n]}")
        try sandbox.write("notes.txt", "not a stub file")
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.json:2: stubs[0].times: expected an integer >= 1, found integer -2",
            "Stubs/b.yaml:2: stubs[0].response.fault: unknown fault 'boom'; expected one of connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data",
            "Stubs/b.yaml:3: stubs[1].request.hots: unknown key 'hots'; expected one of method, scheme, host, path, pathPrefix, pathPattern, extension, query, headers, cookies, basicAuth, accepts, body",
        ])
    }

    func testErrorDescriptionIsOneLinePerIssue() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - times: 0\n    priority: x\n")
        XCTAssertThrowsError(try StubRegistry().load(from: sandbox.stubs)) { error in
            XCTAssertEqual("\(error)", """
                Stubs/a.yaml:2: stubs[0].times: expected an integer >= 1, found integer 0
                Stubs/a.yaml:3: stubs[0].priority: expected an integer, found string 'x'
                """)
        }
    }
}
