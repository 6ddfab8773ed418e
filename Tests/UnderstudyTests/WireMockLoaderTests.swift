import Foundation
@testable import Understudy
import XCTest

/// WireMock mapping directories read into stubs: what loads, how it matches and answers in
/// process, and the exact error for everything that is not supported.
final class WireMockLoaderTests: XCTestCase {
    private var fixture: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("wiremock")
    }

    private func loadedFixture() throws -> StubRegistry {
        let stubs = StubRegistry()
        try stubs.load(wireMock: fixture)
        return stubs
    }

    // MARK: - Loading

    func testFixtureLoadsEveryMappingInByteWisePathOrder() throws {
        let loaded = try WireMockLoader.load(from: fixture)
        XCTAssertEqual(loaded.files.map { String($0.split(separator: "/").suffix(2).joined(separator: "/")) }, [
            "mappings/bodies.json", "mappings/faults.json", "mappings/matching.json", "more/no-response.json", "more/single-by-id.json",
            "more/unnamed.json", "mappings/priority.json", "mappings/timing.json",
        ])
        XCTAssertEqual(loaded.stubs.count, 38)
        let names = Set(loaded.stubs.map(\.name))
        XCTAssertTrue(names.isSuperset(of: ["hello", "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", "unnamed-1", "fault-random"]))
    }

    func testPriorityKeepsWireMockOrderWithItsDefaultAsOurs() throws {
        let priorities = Dictionary(uniqueKeysWithValues: try WireMockLoader.load(from: fixture).stubs.map { ($0.name, $0.priority) })
        XCTAssertEqual(priorities["priority-1"], 4)
        XCTAssertEqual(priorities["default-priority"], 0)
        XCTAssertEqual(priorities["priority-6"], -1)
        XCTAssertEqual(priorities["priority-10"], -5)
        XCTAssertEqual(priorities["catch-all"], -95)
    }

    // MARK: - Matching

    private func matchedName(_ stubs: StubRegistry, _ method: String, _ url: String, headers: HeaderFields = [:], body: String? = nil) -> String? {
        stubs.match(StubRequest(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) }))?.stubName
    }

    func testURLFormsMatchAsWireMockDoes() throws {
        let stubs = try loadedFixture()
        let base = "http://127.0.0.1:8080"
        XCTAssertEqual(matchedName(stubs, "GET", base + "/search?q=cats&page=2"), "url-with-query")
        XCTAssertNil(matchedName(stubs, "GET", base + "/search?page=2&q=cats"), "url compares path and query exactly")
        XCTAssertEqual(matchedName(stubs, "GET", base + "/a%20b?x=%41"), "url-percent-encoded")
        XCTAssertNil(matchedName(stubs, "GET", base + "/a%20b?x=A"), "url compares the text as sent, still encoded")
        XCTAssertEqual(matchedName(stubs, "GET", base + "/users/7?x=1"), "url-path-pattern")
        XCTAssertNil(matchedName(stubs, "GET", base + "/users/7/posts"), "urlPathPattern must match the whole path")
        XCTAssertEqual(matchedName(stubs, "GET", base + "/files/dot.png?v=2"), "url-pattern-png")
        XCTAssertNil(matchedName(stubs, "GET", base + "/files/dot.png?v=2&w=1"), "urlPattern must match the whole URL")
        XCTAssertNil(matchedName(stubs, "HEAD", base + "/hello"), "a GET mapping does not answer HEAD")
        XCTAssertEqual(matchedName(stubs, "HEAD", base + "/head-only"), "unnamed-1")
        XCTAssertEqual(matchedName(stubs, "OPTIONS", base + "/any"), "any-method")
    }

    func testQueryParametersDecodeLikeAFormAndHeadersIgnoreNameCase() throws {
        let stubs = try loadedFixture()
        let base = "http://127.0.0.1:8080/items?id=42&tag=cats&code=ABC&mode=fAsT"
        XCTAssertEqual(matchedName(stubs, "GET", base + "&name=x+y"), "url-path-and-query")
        XCTAssertEqual(matchedName(stubs, "GET", base + "&name=x%20y"), "url-path-and-query")
        XCTAssertNil(matchedName(stubs, "GET", base + "&name=x+y&debug"), "absent: a key without a value is present")
        let headers: HeaderFields = ["x-token": "abc", "ACCEPT": "text/json", "X-Trace": "0a1b2c3d", "X-Mode": "lOuD"]
        XCTAssertEqual(matchedName(stubs, "GET", "http://h/headers", headers: headers), "headers")
        var traced = headers
        traced["X-Trace"] = "0a1b2c3d4"
        XCTAssertNil(matchedName(stubs, "GET", "http://h/headers", headers: traced), "matches must match the whole value")
    }

    func testBodyPatterns() throws {
        let stubs = try loadedFixture()
        XCTAssertEqual(matchedName(stubs, "POST", "http://h/json", body: #"{"price": 1.5, "tags": ["a", "b"], "id": 7.0}"#), "body-equal-to-json")
        XCTAssertNil(matchedName(stubs, "POST", "http://h/json", body: #"{"price": 1.5, "tags": ["b", "a"], "id": 7}"#))
        XCTAssertEqual(matchedName(stubs, "POST", "http://h/json-text", body: #"{"ok":true}"#), "body-equal-to-json-text")
        XCTAssertEqual(matchedName(stubs, "POST", "http://h/text", body: "EXACT body"), "body-equal-to")
        XCTAssertEqual(matchedName(stubs, "PUT", "http://h/contains", body: "hay, needle"), "body-contains")
        XCTAssertNil(matchedName(stubs, "PUT", "http://h/contains", body: "needle"), "every body pattern must match")
    }

    func testPriorityAndTiesChooseAsWireMock() throws {
        let stubs = try loadedFixture()
        XCTAssertEqual(matchedName(stubs, "GET", "http://h/priority"), "priority-1")
        XCTAssertEqual(matchedName(stubs, "GET", "http://h/default"), "default-priority")
        XCTAssertEqual(matchedName(stubs, "GET", "http://h/tie"), "tie-last")
        XCTAssertEqual(matchedName(stubs, "GET", "http://h/catch/this"), "catch-specific")
        XCTAssertEqual(matchedName(stubs, "GET", "http://h/catch/that"), "catch-all")
    }

    // MARK: - Responses

    func testBodiesCarryNoContentTypeUnlessTheMappingGivesOne() async throws {
        let stubs = try loadedFixture()
        let file = try await stubs.answer("http://h/readme")
        XCTAssertEqual(file.text, "Served from __files/readme.txt\n")
        XCTAssertNil(file.headers["Content-Type"])
        let json = try await stubs.answer("http://h/search?q=cats&page=2")
        XCTAssertEqual(json.text, #"{"query":"cats","page":2,"price":1.5,"big":2000,"tiny":0.001,"tags":["a","é","tab\there"],"none":null,"ok":true}"#)
        XCTAssertNil(json.headers["Content-Type"])
        let png = try await stubs.answer("http://h/files/dot.png")
        XCTAssertEqual(png.headers["Content-Type"], "image/png")
        XCTAssertEqual(png.body, try Data(contentsOf: fixture.appendingPathComponent("__files/images/dot.png")))
        let gone = try await stubs.answer("http://h/gone")
        XCTAssertEqual(gone.status, 404)
        XCTAssertEqual(gone.headers.values(for: "Set-Cookie"), ["a=1", "b=2"])
        let bytes = try await stubs.answer("http://h/base64")
        XCTAssertEqual(bytes.body, Data([0, 1, 2, 3, 4, 255]))
    }

    func testJSONNumbersAreWrittenAsWireMockWritesThem() {
        let cases = ["1.0": "1", "1.50": "1.5", "2e3": "2000", "1E-3": "0.001", "-0.0": "0", "1e20": "100000000000000000000",
                     "12345678901234567890": "12345678901234567890", "-12.5e-1": "-1.25", "0.000": "0", "100": "100"]
        for (text, expected) in cases {
            XCTAssertEqual(WireMockJSON.plainDecimal(text), expected, text)
        }
    }

    func testTimingMapsOntoDelayAndPacing() async throws {
        let stubs = try loadedFixture()
        let fixed = try await stubs.answer("http://h/slow/fixed")
        XCTAssertEqual(fixed.delay, .milliseconds(200))
        // 10 bytes in 3 chunks over 600 ms: WireMock sends the head with the first chunk after
        // 200 ms and the last byte at 600 ms; here the head after 200 ms, then 10 bytes in 400 ms.
        let dribble = try await stubs.answer("http://h/slow/dribble")
        XCTAssertEqual(dribble.delay, .milliseconds(200))
        XCTAssertEqual(dribble.bandwidth, .bytesPerSecond(25))
        XCTAssertEqual(dribble.text, "0123456789")
        for _ in 0..<20 {
            let uniform = try await stubs.answer("http://h/slow/uniform")
            XCTAssertTrue((Duration.milliseconds(50)...Duration.milliseconds(150)).contains(uniform.delay), "\(uniform.delay)")
            let both = try await stubs.answer("http://h/slow/both")
            XCTAssertGreaterThanOrEqual(both.delay, .milliseconds(50), "the fixed part is added to each lognormal draw")
        }
        let late = try await stubs.answer("http://h/fault/late")
        XCTAssertEqual(late.fault, .emptyResponse)
        XCTAssertEqual(late.delay, .milliseconds(100))
    }

    func testFaultsMapToOurs() async throws {
        let stubs = try loadedFixture()
        let faults = [
            "/fault/empty": Fault.emptyResponse, "/fault/reset": .connectionReset,
            "/fault/malformed": .malformedChunk, "/fault/random": .randomDataThenClose,
        ]
        for (path, fault) in faults {
            let answer = try await stubs.answer("http://h" + path)
            XCTAssertEqual(answer.fault, fault, path)
        }
    }

    func testResetReadsTheMappingsAgain() async throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/a.json", #"{"request": {"url": "/a"}, "response": {"body": "one"}}"#)
        let stubs = StubRegistry()
        try stubs.load(wireMock: sandbox.directory)
        stubs.stub(.path("/code"), response: .status(204))
        try sandbox.write("mappings/a.json", #"{"request": {"url": "/a"}, "response": {"body": "two"}}"#)
        try stubs.reset()
        let answer = try await stubs.answer("http://h/a")
        XCTAssertEqual(answer.text, "two")
        XCTAssertEqual(stubs.stubs.map(\.name), ["a-1"])
        XCTAssertEqual(stubs.loadedSources, [sandbox.directory])
    }

    // MARK: - Errors

    func testEveryUnsupportedFieldIsAnErrorNamingFilePathAndWhatIsSupported() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/a.json", """
            {
              "scenarioName": 5,
              "request": {
                "method": "GET",
                "urlPath": "/a",
                "multipartPatterns": [ { "matchingType": "ANY" } ],
                "headers": { "X-A": { "before": "now" } },
                "queryParameters": { "q": { "equalTo": "1", "caseInsensitive": "yes" } },
                "bodyPatterns": [ { "equalToXml": "<a/>" }, { "contains": "a", "ignoreArrayOrder": true } ]
              },
              "response": {
                "status": 200,
                "statusMessage": "OK",
                "transformers": ["response-template", "other"],
                "delayDistribution": { "type": "fixed", "milliseconds": 5 },
                "chunkedDribbleDelay": { "numberOfChunks": 2, "totalDuration": 10, "extra": 1 }
              }
            }
            """)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/a.json:2: scenarioName: expected a scenario name, found number 5",
            "wiremock/mappings/a.json:6: request.multipartPatterns: unsupported field; supported: method, url, urlPath, urlPattern, urlPathPattern, urlPathTemplate, pathParameters, scheme, host, port, headers, queryParameters, cookies, basicAuthCredentials, bodyPatterns",
            "wiremock/mappings/a.json:7: request.headers.X-A.before: unsupported field; supported: equalTo, contains, matches, doesNotMatch, absent, caseInsensitive, and, or, hasExactly, includes",
            "wiremock/mappings/a.json:8: request.queryParameters.q.caseInsensitive: expected true or false, found string 'yes'",
            "wiremock/mappings/a.json:9: request.bodyPatterns[0].equalToXml: unsupported field; supported: equalTo, contains, equalToJson, matchesJsonPath, caseInsensitive, ignoreArrayOrder, ignoreExtraElements",
            "wiremock/mappings/a.json:9: request.bodyPatterns[1].ignoreArrayOrder: only applies to equalToJson; expected it beside equalToJson, not 'contains'",
            "wiremock/mappings/a.json:13: response.statusMessage: unsupported field; supported: status, body, jsonBody, base64Body, bodyFileName, headers, fixedDelayMilliseconds, delayDistribution, chunkedDribbleDelay, fault, transformers, transformerParameters, proxyBaseUrl, additionalProxyRequestHeaders",
            "wiremock/mappings/a.json:14: response.transformers[1]: unsupported transformer 'other'; supported: response-template",
            "wiremock/mappings/a.json:15: response.delayDistribution.type: unsupported distribution 'fixed'; supported: uniform, lognormal",
            "wiremock/mappings/a.json:16: response.chunkedDribbleDelay.extra: unsupported field; supported: numberOfChunks, totalDuration",
        ])
    }

    func testValuesWireMockWouldReadDifferentlyAreErrors() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/list.json", """
            {"mappings": [
              {"request": {"method": "get", "url": "/a", "urlPath": "/a"}, "response": {"fault": "EXPLODE"}},
              {"request": {"headers": {"X": {"absent": false}}, "queryParameters": {"q": {"contains": "a", "caseInsensitive": true}}}},
              {"request": {"bodyPatterns": [{"equalToJson": {"id": "${json-unit.any-string}"}}], "urlPattern": "("}},
              {"id": "not-a-uuid", "priority": "1", "response": {"body": "a", "jsonBody": {}, "bodyFileName": "x"}},
              {"name": "dup", "response": {"delayDistribution": {"type": "uniform", "lower": 9, "upper": 1}}},
              {"name": "dup", "response": {"chunkedDribbleDelay": {"numberOfChunks": 0, "totalDuration": 10}}}
            ]}
            """)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/list.json:2: mappings[0].request.method: method 'get' would never match (WireMock compares methods case-sensitively); expected GET or ANY",
            "wiremock/mappings/list.json:2: mappings[0].request.urlPath: found both 'url' and 'urlPath'; expected one of url, urlPath, urlPattern, urlPathPattern, urlPathTemplate",
            "wiremock/mappings/list.json:2: mappings[0].response.fault: unknown fault 'EXPLODE'; expected one of EMPTY_RESPONSE, CONNECTION_RESET_BY_PEER, MALFORMED_RESPONSE_CHUNK, RANDOM_DATA_THEN_CLOSE",
            "wiremock/mappings/list.json:3: mappings[1].request.headers.X.absent: found false; expected true (WireMock 2.35.1 reads any 'absent' as absent: leave the test out instead)",
            "wiremock/mappings/list.json:3: mappings[1].request.queryParameters.q.caseInsensitive: only applies to equalTo; WireMock ignores it beside 'contains'",
            "wiremock/mappings/list.json:4: mappings[2].request.bodyPatterns[0].equalToJson: JsonUnit placeholder '${json-unit.any-string}' is unsupported; expected literal JSON values",
            "wiremock/mappings/list.json:4: mappings[2].request.urlPattern: invalid regular expression '(': not a valid pattern (()",
            "wiremock/mappings/list.json:5: mappings[3].id: 'not-a-uuid' is not a UUID; expected one like 8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7",
            "wiremock/mappings/list.json:5: mappings[3].priority: expected an integer (1 is the highest), found string '1'",
            "wiremock/mappings/list.json:5: mappings[3].response.jsonBody: found both 'body' and 'jsonBody'; expected at most one of body, jsonBody, base64Body, bodyFileName",
            "wiremock/mappings/list.json:5: mappings[3].response.bodyFileName: found both 'body' and 'bodyFileName'; expected at most one of body, jsonBody, base64Body, bodyFileName",
            "wiremock/mappings/list.json:6: mappings[4].response.delayDistribution.lower: lower 9 is above upper 1; expected lower <= upper",
            "wiremock/mappings/list.json:7: mappings[5].response.chunkedDribbleDelay.numberOfChunks: expected an integer >= 1, found number 0",
        ])
    }

    func testBodyFilesStayInsideFilesDirectory() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("__files/ok.txt", "ok")
        try sandbox.write("secret.txt", "secret")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-outside-\(UUID().uuidString).txt")
        try Data("outside".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.directory.appendingPathComponent("__files/link.txt").path, withDestinationPath: outside.path
        )
        try sandbox.write("mappings/files.json", """
            {"mappings": [
              {"response": {"bodyFileName": "ok.txt"}},
              {"response": {"bodyFileName": "../secret.txt"}},
              {"response": {"bodyFileName": "/etc/passwd"}},
              {"response": {"bodyFileName": "link.txt"}},
              {"response": {"bodyFileName": "missing.txt"}}
            ]}
            """)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/files.json:3: mappings[1].response.bodyFileName: path '../secret.txt' escapes wiremock/__files; expected a path inside it",
            "wiremock/mappings/files.json:4: mappings[2].response.bodyFileName: absolute path '/etc/passwd' is refused; expected a path relative to __files, inside wiremock/__files",
            "wiremock/mappings/files.json:5: mappings[3].response.bodyFileName: path 'link.txt' resolves outside wiremock/__files through a symlink; expected a file inside it",
            "wiremock/mappings/files.json:6: mappings[4].response.bodyFileName: file 'missing.txt' does not exist; expected a file at wiremock/__files/missing.txt",
        ])
    }

    func testSyntaxAndLayoutErrors() throws {
        let sandbox = try WireMockSandbox()
        XCTAssertEqual(sandbox.issues(), ["wiremock: no mappings directory; expected a WireMock directory holding mappings/ (and __files/ for bodyFileName)"])
        try sandbox.write("mappings/bad.json", "{\n  \"request\": {\"url\": \"/a\"},\n  \"response\": {\"body\": 'a'}\n}\n")
        try sandbox.write("mappings/list.json", #"{"mappings": {"request": {}}}"#)
        try sandbox.write("mappings/notes.txt", "not a mapping")
        let issues = sandbox.issues()
        XCTAssertEqual(issues.count, 2, "\(issues)")
        XCTAssertTrue(issues.first?.hasPrefix("wiremock/mappings/bad.json:3: invalid JSON: ") == true, "\(issues)")
        XCTAssertEqual(issues.last, "wiremock/mappings/list.json:1: mappings: expected an array of mappings, found an object")
    }
}

/// A temporary directory holding a WireMock directory `wiremock/`, loaded through a URL
/// relative to the temporary base so that issues name files `wiremock/...`.
final class WireMockSandbox {
    let base: URL
    let directory: URL

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-wiremock-\(UUID().uuidString)", isDirectory: true)
        directory = URL(fileURLWithPath: "wiremock", isDirectory: true, relativeTo: base)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    func write(_ path: String, _ text: String) throws {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func issues() -> [String] {
        do {
            _ = try WireMockLoader.load(from: directory)
            return []
        } catch let error as StubFileError {
            return error.issues.map(\.description)
        } catch {
            return ["unexpected error: \(error)"]
        }
    }
}
