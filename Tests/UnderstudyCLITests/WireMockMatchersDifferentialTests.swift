import Foundation
import XCTest

/// The request matchers mapping files use beyond URLs (`host`, `scheme`, `port`, `cookies`,
/// `basicAuthCredentials`, `doesNotMatch`, `and`, `or`, `matchesJsonPath` with filters,
/// `equalToJson`'s `ignoreArrayOrder` and `ignoreExtraElements`) served by WireMock 2.35.1 itself and by
/// `understudy serve --wiremock` from one root written here: curl gets the same status and body
/// from both for each request.
final class WireMockMatchersDifferentialTests: XCTestCase {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-matchers-\(UUID().uuidString)")
        let mappings = #"""
            {"mappings": [
              {"request": {"urlPath": "/host", "host": {"equalTo": "images.test"}}, "response": {"body": "host"}},
              {"request": {"urlPath": "/scheme", "scheme": "http"}, "response": {"body": "scheme"}},
              {"request": {"urlPath": "/scheme-s", "scheme": "https"}, "response": {"body": "https"}},
              {"request": {"urlPath": "/port", "port": 8080}, "response": {"body": "port"}},
              {"request": {"urlPath": "/cookie", "cookies": {"session": {"matches": "[0-9]+"}, "theme": {"absent": true}}}, "response": {"body": "cookie"}},
              {"request": {"urlPath": "/auth", "basicAuthCredentials": {"username": "ann", "password": "s3cret"}}, "response": {"body": "auth"}},
              {"request": {"urlPath": "/not", "headers": {"X-Mode": {"doesNotMatch": "debug.*"}}}, "response": {"body": "not header"}},
              {"request": {"urlPath": "/notq", "queryParameters": {"v": {"doesNotMatch": "[0-9]+"}}}, "response": {"body": "not query"}},
              {"request": {"urlPath": "/and", "headers": {"X-Both": {"and": [{"contains": "a"}, {"contains": "b"}]}}}, "response": {"body": "and"}},
              {"request": {"urlPath": "/or", "queryParameters": {"size": {"or": [{"equalTo": "s"}, {"matches": "[0-9]+"}]}}}, "response": {"body": "or"}},
              {"request": {"urlPath": "/jp1", "bodyPatterns": [{"matchesJsonPath": "$.images[?(@.width > 100)]"}]}, "response": {"body": "wide"}},
              {"request": {"urlPath": "/jp2", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.owner.name", "equalTo": "ann"}}]}, "response": {"body": "owner"}},
              {"request": {"urlPath": "/jp3", "bodyPatterns": [{"matchesJsonPath": "$.tags"}]}, "response": {"body": "tags"}},
              {"request": {"urlPath": "/jp4", "bodyPatterns": [{"matchesJsonPath": "$..id"}]}, "response": {"body": "deep"}},
              {"request": {"urlPath": "/jp5", "bodyPatterns": [{"matchesJsonPath": "$.images[?(@.type == 'png' && @.width >= 2)]"}]}, "response": {"body": "png"}},
              {"request": {"urlPath": "/jp6", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.count", "equalTo": "2"}}]}, "response": {"body": "count"}},
              {"request": {"urlPath": "/jp7", "bodyPatterns": [{"matchesJsonPath": "$.images[?(@.name =~ /ca.*/i)]"}]}, "response": {"body": "regex"}},
              {"request": {"urlPath": "/eq", "bodyPatterns": [{"equalToJson": {"a": [1, 2], "b": 1}, "ignoreArrayOrder": true, "ignoreExtraElements": true}]}, "response": {"body": "eq"}},
              {"request": {"urlPath": "/eqx", "bodyPatterns": [{"equalToJson": {"a": [1, 2]}, "ignoreExtraElements": true}]}, "response": {"body": "eqx"}}
            ]}
            """#
        do {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
            try Data(mappings.utf8).write(to: root.appendingPathComponent("mappings/matchers.json"))
        } catch {
            XCTFail("cannot write the root: \(error)")
        }
        return root
    }()

    private static let servers = LockedServers(root: root)

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    typealias Probe = WireMockDifferentialTests.Probe

    func testHostSchemeAndPort() throws {
        try compare([
            Probe("GET", "/host", headers: ["Host: images.test"]),
            Probe("GET", "/host", headers: ["Host: images.test:8080"]),
            Probe("GET", "/host", unmatched: true),
            Probe("GET", "/scheme"),
            Probe("GET", "/scheme-s", unmatched: true),
            Probe("GET", "/port", headers: ["Host: a.test:8080"]),
            Probe("GET", "/port", headers: ["Host: a.test:9090"], unmatched: true),
        ])
    }

    func testCookiesAndBasicCredentials() throws {
        try compare([
            Probe("GET", "/cookie", headers: ["Cookie: session=123"]),
            Probe("GET", "/cookie", headers: ["Cookie: other=x; session=42"]),
            Probe("GET", "/cookie", headers: ["Cookie: session=abc"], unmatched: true),
            Probe("GET", "/cookie", headers: ["Cookie: session=1; theme=dark"], unmatched: true),
            Probe("GET", "/cookie", unmatched: true),
            Probe("GET", "/auth", headers: ["Authorization: Basic YW5uOnMzY3JldA=="]),
            Probe("GET", "/auth", headers: ["Authorization: Basic YW5uOndyb25n"], unmatched: true),
            Probe("GET", "/auth", unmatched: true),
        ])
    }

    func testNegationAndLogicalOperators() throws {
        try compare([
            Probe("GET", "/not"),
            Probe("GET", "/not", headers: ["X-Mode: quiet"]),
            Probe("GET", "/not", headers: ["X-Mode: debug-all"], unmatched: true),
            Probe("GET", "/notq"),
            Probe("GET", "/notq?v=abc"),
            Probe("GET", "/notq?v=12", unmatched: true),
            Probe("GET", "/and", headers: ["X-Both: ab"]),
            Probe("GET", "/and", headers: ["X-Both: a"], unmatched: true),
            Probe("GET", "/or?size=s"),
            Probe("GET", "/or?size=12"),
            Probe("GET", "/or?size=m", unmatched: true),
        ])
    }

    func testJSONPathsWithFiltersAndEqualToJsonOptions() throws {
        // Not compared: `{"count": 2.0}` against equalTo "2", which WireMock's Java double
        // writes as 2.0 and Understudy, reading JSON numbers as numbers, as 2.
        try compare([
            Probe("POST", "/jp1", body: #"{"images":[{"width":50},{"width":150}]}"#),
            Probe("POST", "/jp1", body: #"{"images":[{"width":50}]}"#, unmatched: true),
            Probe("POST", "/jp1", body: "not json", unmatched: true),
            Probe("POST", "/jp2", body: #"{"owner":{"name":"ann"}}"#),
            Probe("POST", "/jp2", body: #"{"owner":{"name":"bob"}}"#, unmatched: true),
            Probe("POST", "/jp2", body: "{}", unmatched: true),
            Probe("POST", "/jp3", body: #"{"tags":["a"]}"#),
            Probe("POST", "/jp3", body: #"{"tags":0}"#),
            Probe("POST", "/jp3", body: #"{"tags":""}"#),
            Probe("POST", "/jp3", body: #"{"tags":[]}"#, unmatched: true),
            Probe("POST", "/jp3", body: #"{"tags":null}"#, unmatched: true),
            Probe("POST", "/jp3", body: #"{"tags":{}}"#, unmatched: true),
            Probe("POST", "/jp4", body: #"{"a":{"b":{"id":1}}}"#),
            Probe("POST", "/jp4", body: #"{"a":1}"#, unmatched: true),
            Probe("POST", "/jp5", body: #"{"images":[{"type":"png","width":2}]}"#),
            Probe("POST", "/jp5", body: #"{"images":[{"type":"png","width":1}]}"#, unmatched: true),
            Probe("POST", "/jp6", body: #"{"count":2}"#),
            Probe("POST", "/jp6", body: #"{"count":"2"}"#),
            Probe("POST", "/jp7", body: #"{"images":[{"name":"CAT"}]}"#),
            Probe("POST", "/jp7", body: #"{"images":[{"name":"dog"}]}"#, unmatched: true),
            Probe("POST", "/eq", body: #"{"a":[2,1],"b":1,"c":3}"#),
            Probe("POST", "/eq", body: #"{"a":[2,1,3],"b":1}"#),
            Probe("POST", "/eq", body: #"{"a":[2],"b":1}"#, unmatched: true),
            Probe("POST", "/eqx", body: #"{"a":[1,2,3]}"#),
            Probe("POST", "/eqx", body: #"{"a":[1,2],"z":0}"#),
            Probe("POST", "/eqx", body: #"{"a":[2,1]}"#, unmatched: true),
        ])
    }

    private func compare(_ probes: [Probe], file: StaticString = #filePath, line: UInt = #line) throws {
        try WireMockDifferentialTests.compare(probes, ports: Self.servers.ports(), file: file, line: line)
    }
}
