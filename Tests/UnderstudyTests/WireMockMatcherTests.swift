import Foundation
@testable import Understudy
import XCTest

/// The matchers mapping files use beyond URLs, read from a WireMock mapping, a stub file and
/// the Swift API into the same matcher parts, which pass and fail the same requests. (What
/// WireMock 2.35.1 answers for them is in `WireMockMatchersDifferentialTests`.)
final class WireMockMatcherTests: XCTestCase {
    private func request(_ target: String, _ headers: HeaderFields = [:]) -> StubRequest {
        StubRequest(url: URL(string: "http://img.test" + target)!, headers: headers)
    }

    private func pattern(_ json: String) throws -> RequestMatcher {
        try WireMockLoader.requestPattern(parsing: json)
    }

    func testCookiesBasicAuthAndNegationAreOneMatcherFromEverySource() throws {
        let wireMock = try pattern(#"""
            {"cookies": {"session": {"equalTo": "42"}}, "basicAuthCredentials": {"username": "ann", "password": "s3cret"},
             "headers": {"X-Mode": {"doesNotMatch": "debug.*"}}}
            """#)
        let stubFile = try StubFileLoader.requestMatcher(parsing: """
            request:
              cookies: { session: "42" }
              basicAuth: { username: ann, password: s3cret }
              headers: { X-Mode: { notPattern: "\\\\A(?:debug.*)\\\\z" } }
            """, format: .yaml)
        let swift = RequestMatcher.cookie("session", value: "42") && .basicAuth(username: "ann", password: "s3cret")
            && (try RequestMatcher.header("X-Mode", notMatching: "\\A(?:debug.*)\\z"))
        let credentials = "Basic " + Data("ann:s3cret".utf8).base64EncodedString()
        let cases: [(HeaderFields, Bool)] = [
            (["Cookie": "theme=dark; session=42", "Authorization": credentials], true),
            (["Cookie": "session=42", "Authorization": credentials, "X-Mode": "quiet"], true),
            (["Cookie": "session=42", "Authorization": credentials, "X-Mode": "debug-all"], false),
            (["Cookie": "session=43", "Authorization": credentials], false),
            (["Cookie": "session=42", "Authorization": "Basic " + Data("ann:wrong".utf8).base64EncodedString()], false),
            (["Authorization": credentials], false),
        ]
        for (headers, expected) in cases {
            for (source, matcher) in [("mapping", wireMock), ("stub file", stubFile), ("Swift", swift)] {
                XCTAssertEqual(matcher.matches(request("/a", headers)), expected, "\(source): \(headers)")
            }
        }
        XCTAssertEqual(wireMock.description, swift.description, "the same parts, in the same words")
        XCTAssertEqual(stubFile.description, swift.description)
        let miss = wireMock.mismatches(for: request("/a", ["Cookie": "session=7", "Authorization": credentials]))
        XCTAssertEqual(miss.map(\.description), ["cookie session is 42 (got cookie session=7)"])
    }

    func testAStubFileWritesCookiesAndNegationBack() throws {
        let matcher = RequestMatcher.cookie("session", value: "42") && (try RequestMatcher.header("X-Mode", notMatching: "debug"))
        let written = try StubFileWriter.request(matcher)
        XCTAssertEqual(written["cookies"], ["session": "42"])
        XCTAssertEqual(written["headers"], ["X-Mode": ["notPattern": "debug"]])
    }

    func testMultiValuedParametersWithWireMock3sHasExactlyAndIncludes() throws {
        // WireMock 2.35.1 answers 422 for these; WireMock 3's documentation is the reference.
        let exactly = try pattern(#"{"queryParameters": {"id": {"hasExactly": [{"equalTo": "1"}, {"matches": "[0-9]{2}"}]}}}"#)
        let includes = try pattern(#"{"headers": {"X-Tag": {"includes": [{"equalTo": "cat"}]}}}"#)
        XCTAssertTrue(exactly.matches(request("/a?id=12&id=1")))
        XCTAssertFalse(exactly.matches(request("/a?id=1")), "each test needs a value")
        XCTAssertFalse(exactly.matches(request("/a?id=1&id=12&id=3")), "and no value may be left over")
        XCTAssertTrue(includes.matches(request("/a", HeaderFields([("X-Tag", "dog"), ("X-Tag", "cat")]))))
        XCTAssertFalse(includes.matches(request("/a", ["X-Tag": "dog"])))
        XCTAssertEqual(exactly.description, "query id has exactly [is 1, matches \\A(?:[0-9]{2})\\z]")
    }

    func testHostSchemeAndPortAsWireMockReadsThem() throws {
        let matcher = try pattern(#"{"host": {"equalTo": "img.test"}, "scheme": "http", "port": 8080}"#)
        XCTAssertTrue(matcher.matches(StubRequest(url: URL(string: "http://img.test:8080/a")!)))
        XCTAssertFalse(matcher.matches(StubRequest(url: URL(string: "http://img.test/a")!)), "port 80")
        XCTAssertFalse(matcher.matches(StubRequest(url: URL(string: "https://img.test:8080/a")!)))
        XCTAssertFalse(matcher.matches(StubRequest(url: URL(string: "http://cdn.test:8080/a")!)))
    }

    func testMistakesAreErrorsNamingTheField() {
        let cases: [(String, String)] = [
            (#"{"scheme": "ftp"}"#, "request body:1: scheme: scheme 'ftp' would never match; expected http or https"),
            (#"{"port": 70000}"#, "request body:1: port: port 70000 is out of range; expected a port number from 1 to 65535"),
            (#"{"basicAuthCredentials": {"username": "ann"}}"#, "request body:1: basicAuthCredentials: expected both username and password"),
            (#"{"cookies": {"a": {"or": []}}}"#, #"request body:1: cookies.a.or: expected a non-empty array of tests such as [{"equalTo": "a"}, {"contains": "b"}], found an array"#),
            (#"{"host": {"absent": true}}"#, "request body:1: host.absent: every request has a host; expected equalTo, contains or matches"),
            (#"{"headers": {"X": {"before": "now"}}}"#, "request body:1: headers.X.before: unsupported field; supported: \(WireMockParser.valueTests.joined(separator: ", "))"),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try pattern(json), json) { error in
                XCTAssertEqual((error as? StubFileError)?.issues.map(\.description), [message], json)
            }
        }
    }
}
